/* SPDX-License-Identifier: MIT */
/*
 * bt_check_ptr.c - the checker's part for C types (bt_types.h): casts to
 * pointers, `*p`, `p->m`, `s.m`, `a[i]`, and arithmetic on pointers.  An
 * expression of a C type keeps it in n->ctype: a pointer or an integer
 * is a value of type int64 (its ival the integer's bytes), an array of
 * char is a string of its length (bpftrace's string[N]), any other array
 * or struct a record of its bytes.
 */
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_dwarf.h"
#include "lib/bt/bt_types.h"
#include "lib/elf/symtab.h"

static void unsigned_cmp(struct bt_checker *ck, struct bt_node *n);

/* n is a value of C type t. */
static int typed(struct bt_checker *ck, struct bt_node *n, unsigned t)
{
	const struct bt_ctype *c = bt_ctype(ck->p, t);
	char b1[64];

	n->ctype = t;
	if (!c)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_DEREF,
				bt_ctype_name(ck->p, t, b1, sizeof(b1)));
	if (c->kind == BT_C_INT || c->kind == BT_C_PTR) {
		n->type = BT_T_INT;
		n->ival = c->size;
	} else if (bt_ctype_is_str(ck->p, t)) {
		n->type = BT_T_STR;
		n->size = c->count;
	} else {
		n->type = BT_T_RECORD;
		n->size = c->size;
	}
	return 0;
}

static const struct bt_ctype *ptr_of(const struct bt_checker *ck, const struct bt_node *n)
{
	const struct bt_ctype *c = n->type == BT_T_INT ? bt_ctype(ck->p, n->ctype) : NULL;

	return c && c->kind == BT_C_PTR ? c : NULL;
}

int bt_check_cast_ptr(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *c;
	char b1[24], b2[64];
	int ret = ck->expr(ck, n->a);

	if (ret < 0)
		return ret;
	c = bt_ctype(ck->p, n->ctype); /* after: checking a may grow the table */
	if (n->a->type != BT_T_INT || !c || c->kind != BT_C_PTR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_CAST,
				bt_type_name(n->a->type, n->a->size, b1, sizeof(b1)),
				bt_ctype_name(ck->p, n->ctype, b2, sizeof(b2)));
	n->type = BT_T_INT;
	n->ival = 8;
	return 0;
}

static int check_deref(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *c;
	char b1[24];
	int ret = ck->expr(ck, n->a);

	if (ret < 0)
		return ret;
	if (!(c = ptr_of(ck, n->a)))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_DEREF,
				bt_type_name(n->a->type, n->a->size, b1, sizeof(b1)));
	return typed(ck, n, c->elem);
}

/* a.f or a->f where a (or *a) is no struct: bpftrace's two errors, the
 * type as bpftrace names it (an integer's *a is its uint64) */
static int member_error(struct bt_checker *ck, const struct bt_node *n, const struct bt_ctype *c)
{
	const struct bt_ctype *a = bt_ctype(ck->p, n->a->ctype);
	char b1[64];

	if (a && a->kind == BT_C_PTR && n->op[0] == '.')
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_MEMBER_TYPE, n->str,
				bt_ctype_name(ck->p, n->a->ctype, b1, sizeof(b1)));
	if (c && c->kind == BT_C_INT)
		snprintf(b1, sizeof(b1), "%sint%u", c->is_signed ? "" : "unsigned ", 8 * c->size);
	else if (n->a->type == BT_T_INT && n->op[0] == '-')
		snprintf(b1, sizeof(b1), "unsigned int64");
	else if (n->a->type == BT_T_INT)
		bt_int_type_name(ck->p, n->a, b1, sizeof(b1));
	else if (c)
		bt_ctype_name(ck->p, (unsigned)(c - ck->p->ctypes), b1, sizeof(b1));
	else
		bt_type_name(n->a->type, n->a->size, b1, sizeof(b1));
	return bt_error(ck->err, ck->p, n->loc, BT_ERR_MEMBER_EXPR, n->str, b1);
}

static int check_member(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *c;
	const struct bt_member *m;
	char b1[64];
	unsigned t;
	int ret = ck->expr(ck, n->a);

	if (ret < 0)
		return ret;
	c = n->op[0] == '-' ? ptr_of(ck, n->a) : n->a->type == BT_T_RECORD ? bt_ctype(ck->p, n->a->ctype)
								      : NULL;
	if (c && c->kind == BT_C_PTR)
		c = bt_ctype(ck->p, c->elem);
	if (!c || c->kind != BT_C_STRUCT)
		return member_error(ck, n, c);
	t = (unsigned)(c - ck->p->ctypes);
	if (!c->defined && bt_dwarf_struct(ck->p, ck->probe, t) == 0)
		c = bt_ctype(ck->p, t); /* (the table may have moved) */
	if (!(m = bt_ctype_member(ck->p, t, n->str)))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NO_FIELD,
				bt_ctype_name(ck->p, t, b1, sizeof(b1)), n->str);
	return typed(ck, n, m->type);
}

static int check_index(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *c;
	char b1[24];
	int ret;

	if ((ret = ck->expr(ck, n->a)) < 0 || (ret = ck->expr(ck, n->b)) < 0)
		return ret;
	c = n->a->ctype ? bt_ctype(ck->p, n->a->ctype) : NULL;
	if (!c || (c->kind != BT_C_PTR && c->kind != BT_C_ARRAY) || n->b->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_INDEX_TYPE,
				bt_type_name(n->a->type, n->a->size, b1, sizeof(b1)));
	if (c->kind == BT_C_ARRAY && n->b->kind == BT_N_INT &&
	    (n->b->ival < 0 || n->b->ival >= (int64_t)c->count))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_INDEX_BOUNDS, (long long)n->b->ival,
				c->count);
	return typed(ck, n, c->elem);
}

int bt_check_ctype(struct bt_checker *ck, struct bt_node *n)
{
	switch (n->kind) {
	case BT_N_DEREF: return check_deref(ck, n);
	case BT_N_MEMBER: return check_member(ck, n);
	case BT_N_INDEX: return check_index(ck, n);
	default: return 0;
	}
}

/* p + i, i + p, p - i: a pointer, as p's type. */
void bt_check_ptr_arith(struct bt_checker *ck, struct bt_node *n)
{
	unsigned_cmp(ck, n);
	if ((n->op[0] == '+' || n->op[0] == '-') && !n->op[1] && ptr_of(ck, n->a))
		n->ctype = n->a->ctype;
	else if (n->op[0] == '+' && !n->op[1] && ptr_of(ck, n->b))
		n->ctype = n->b->ctype;
}

/* The registers reg() names: the fetch-args' (pt_regs') names. */
static const char *const regs[] = {"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9",
				   "r8",  "ax",	 "cx",	"dx",  "si", "di", "ip",  "sp"};

int bt_check_reg(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_node *a = n->args[0];

	n->type = BT_T_INT;
	if (a->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, n->str, "register name");
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i], a->str)) {
			for (unsigned k = 0; k < ck->probe->naps; k++)
				if (ck->probe->aps[k].type != BT_P_UPROBE &&
				    ck->probe->aps[k].type != BT_P_URETPROBE)
					return bt_error(ck->err, ck->p, n->loc, BT_ERR_ARG_PROBE,
							n->str);
			return 0;
		}
	return bt_error(ck->err, ck->p, n->loc, BT_ERR_REG, a->str);
}

/* uaddr("NAME"): the address of symbol NAME of the probe's binary (its
 * ELF address, as bpftrace's: not moved by a PIE's load address), a
 * pointer to an integer as wide as the symbol (1, 2, 4 bytes, else 8). */
int bt_check_uaddr(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_node *a = n->args[0];
	uint64_t addr = 0, size = 0;

	if (a->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, n->str, "symbol name");
	for (unsigned k = 0; k < ck->probe->naps; k++) {
		const struct bt_attach *ap = &ck->probe->aps[k];
		static const char *const types[] = {[BT_P_BEGIN] = "BEGIN", [BT_P_END] = "END",
						    [BT_P_INTERVAL] = "interval",
						    [BT_P_TRACEPOINT] = "tracepoint",
						    [BT_P_PROFILE] = "profile"};

		if (ap->type != BT_P_UPROBE && ap->type != BT_P_URETPROBE && ap->type != BT_P_USDT)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_UADDR_PROBE, n->str,
					(size_t)ap->type < sizeof(types) / sizeof(types[0]) &&
							types[ap->type]
						? types[ap->type]
						: "other");
		if (utrace_symtab_find(ap->target, a->str, &addr, &size) < 0 || !addr)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_UADDR_SYMBOL, ap->target,
					a->str);
	}
	n->type = BT_T_INT;
	n->ival = (int64_t)addr;
	n->ctype = bt_ctype_ptr(ck->p, bt_ctype_int(ck->p, size == 1 || size == 2 || size == 4
								  ? (unsigned)size
								  : 8,
							true, false));
	return 0;
}

int bt_check_macaddr(struct bt_checker *ck, struct bt_node *n)
{
	struct bt_node *a = n->args[0];
	const struct bt_ctype *c;
	int ret = ck->expr(ck, a);

	if (ret < 0)
		return ret;
	c = bt_ctype(ck->p, a->ctype);
	if (!c || c->kind != BT_C_ARRAY || c->size < 6 ||
	    (a->kind != BT_N_MEMBER && a->kind != BT_N_INDEX && a->kind != BT_N_DEREF))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_MACADDR, n->str);
	n->type = BT_T_STR;
	n->size = 18;
	return 0;
}

/* A comparison of 64-bit values one of which is unsigned is unsigned, as
 * in C: op[3] 'u' says so to bt_compile_mem.c. */
static void unsigned_cmp(struct bt_checker *ck, struct bt_node *n)
{
	const struct bt_ctype *a = bt_ctype(ck->p, n->a->ctype), *b = bt_ctype(ck->p, n->b->ctype);
	bool cmp = (n->op[0] == '<' || n->op[0] == '>') && n->op[1] != n->op[0];

	if (cmp && ((a && a->kind == BT_C_INT && !a->is_signed && a->size == 8) ||
		    (b && b->kind == BT_C_INT && !b->is_signed && b->size == 8)))
		n->op[3] = 'u'; /* for bt_compile_mem.c */
}

unsigned bt_ctype_scale(const struct bt_program *p, unsigned ctype)
{
	const struct bt_ctype *c = bt_ctype(p, ctype), *e;

	if (!c || c->kind != BT_C_PTR)
		return 1;
	e = bt_ctype(p, c->elem);
	return e && e->size ? e->size : 1;
}
