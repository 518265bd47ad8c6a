/* SPDX-License-Identifier: MIT */
/*
 * bt_compile_mem.c - reads of the traced program's memory through C
 * types (bt_types.h): `*p`, `p->m`, `s.m`, `a[i]`, and pointer
 * arithmetic (p + i steps over i elements).
 *
 * A read happens where bpftrace's probe_read does: at the hit, in the
 * traced process.  A uprobe's hit is recorded and its action runs later
 * in the tool (bt_session.c), so its reads are made at the hit by the
 * probe's fetch-args, fault-safe as every fetch-arg is: the compiler
 * turns the address into one ("+4(+0(%di)):s32", the member at 4 of the
 * struct the pointer at *arg0 points to) and the program reads it back
 * with FIELD, as DWARF's members are.  The address must therefore be
 * known from the hit alone: arguments (a uretprobe's retval, $retval),
 * constants, members and indexes that are literals, and variables
 * assigned once, at the top of the action, from such an address.  Any
 * other address is computed at run time and read with LOAD (STR for a
 * string): a uprobe's at the hit, by the runtime (runtime/bt_probe.c: a
 * system call a read, so the fetch-args stay the way where they can), a
 * replayed action's reads captured there into its record
 * (bt_session.c); a probe that runs in the tool (BEGIN, END, interval)
 * reads the tool's own memory, as bpftrace's BEGIN reads bpftrace's.  An
 * unreadable address gives 0, as a failed probe_read does.  DWARF's `args->p->m` (bt_dwarf.c) is read the same
 * way, FIELD of a fetch-arg.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_check.h"
#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_types.h"

/* An address known at the hit: off plus the value of the fetch-arg
 * base ("%di", "+8(%si)"; "" for a constant address). */
struct bt_sym {
	bool ok;
	char base[200];
	int64_t off;
	int64_t keys[UTRACE_BT_KEYS_MAX]; /* a map's: the literal keys it was assigned at */
};

static const char *const arg_regs[6] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

static bool fetch_probe(const struct comp *c)
{
	return c->ap->type == BT_P_UPROBE || c->ap->type == BT_P_URETPROBE;
}

static bool tool_probe(const struct comp *c)
{
	return c->ap->type == BT_P_BEGIN || c->ap->type == BT_P_END ||
	       c->ap->type == BT_P_INTERVAL;
}

bool bt_comp_tool_probe(const struct comp *c)
{
	return tool_probe(c);
}

bool bt_comp_hit_read(struct comp *c)
{
	if (!fetch_probe(c))
		return false;
	c->hit_reads = true;
	return true;
}

unsigned bt_comp_field(struct comp *c, const char *fetcharg, unsigned ctype)
{
	char *e = strdup(fetcharg), **f;
	unsigned k, *t;

	if (!e) {
		c->failed = -ENOMEM;
		return 0;
	}
	for (k = 0; k < c->nfields && (strcmp(c->fields[k], e) || c->ftypes[k] != ctype); k++)
		;
	if (k < c->nfields) {
		free(e);
		return k;
	}
	if ((t = realloc(c->ftypes, (k + 1) * sizeof(*t))))
		c->ftypes = t;
	if (!t || !(f = realloc(c->fields, (k + 1) * sizeof(*f)))) {
		free(e);
		c->failed = -ENOMEM;
		return k;
	}
	c->fields = f;
	c->ftypes[k] = ctype;
	c->fields[c->nfields++] = e;
	return k;
}

/* args->p->member: an extra fetch-arg of the probe, its text in n->a
 * (bt_dwarf.c; n->ival 0x200 when it is a string; a record: an array). */
static void dwarf_member(struct comp *c, const struct bt_node *n)
{
	unsigned k;

	if (!n->a) {
		c->failed = -ENOMEM;
		return;
	}
	if (n->type == BT_T_RECORD) { /* an array member (its C type) */
		bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, n->a->str, n->ctype), 2, 0);
		return;
	}
	k = bt_comp_field(c, n->a->str, 0);
	bt_comp_emit(c, UTRACE_BOP_FIELD, k, (n->ival & 0x200) != 0, 0);
}

/* A parameter by name: its register, as wide and as signed as its type
 * (n->ival: bytes | 0x100 if signed); a member (n->slot -1): FIELD. */
void bt_comp_dwarf_arg(struct comp *c, const struct bt_node *n)
{
	unsigned bits = 8 * (unsigned)(n->ival & 0xff);
	int64_t sign = (int64_t)(1ull << ((bits ? bits : 64) - 1));

	if (n->slot < 0) {
		dwarf_member(c, n);
		return;
	}
	bt_comp_emit(c, UTRACE_BOP_ARG, (unsigned)n->slot, 0, 0);
	if (bits >= 64)
		return;
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, (int64_t)((1ull << bits) - 1));
	bt_comp_emit(c, UTRACE_BOP_AND, 0, 0, 0);
	if (!(n->ival & 0x100))
		return;
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, sign);
	bt_comp_emit(c, UTRACE_BOP_XOR, 0, 0, 0);
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, sign);
	bt_comp_emit(c, UTRACE_BOP_SUB, 0, 0, 0);
}

unsigned bt_comp_scale(const struct comp *c, const struct bt_node *n)
{
	return bt_ctype_scale(c->p, n->ctype);
}

/* The struct member n (->, .) reads. */
static const struct bt_member *member_of(const struct comp *c, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(c->p, n->a->ctype);

	if (t && t->kind == BT_C_PTR)
		t = bt_ctype(c->p, t->elem);
	return t ? bt_ctype_member(c->p, (unsigned)(t - c->p->ctypes), n->str) : NULL;
}

static unsigned elem_size(const struct comp *c, const struct bt_node *a)
{
	const struct bt_ctype *t = bt_ctype(c->p, a->ctype);
	const struct bt_ctype *e = t ? bt_ctype(c->p, t->elem) : NULL;

	return e ? e->size : 1;
}

static bool is_place(const struct bt_node *n)
{
	return n->kind == BT_N_DEREF || n->kind == BT_N_MEMBER || n->kind == BT_N_INDEX;
}

static void sym_place(const struct comp *c, const struct bt_node *n, struct bt_sym *s);

/* The keys of map node n when all are integer literals, into s->keys. */
static bool literal_keys(const struct bt_node *n, struct bt_sym *s)
{
	memset(s->keys, 0, sizeof(s->keys));
	for (unsigned i = 0; i < n->nargs; i++) {
		if (n->args[i]->kind != BT_N_INT || i >= UTRACE_BT_KEYS_MAX)
			return false;
		s->keys[i] = n->args[i]->ival;
	}
	return true;
}

static void offtext(char *buf, size_t room, int64_t off)
{
	snprintf(buf, room, "%s%lld", off < 0 ? "" : "+", (long long)off);
}

/* The fetch-arg that reads at a (its offset from its base; no base: an
 * absolute address, @ADDR), then type; false if it does not fit. */
static bool fetch_text(char *buf, size_t room, const struct bt_sym *a, const char *type)
{
	char o[24];

	offtext(o, sizeof(o), a->off);
	if (!a->base[0])
		return (size_t)snprintf(buf, room, "@0x%llx%s", (unsigned long long)a->off, type) <
		       room;
	return (size_t)snprintf(buf, room, "%s(%s)%s", o, a->base, type) < room;
}

/* The value of pointer (or integer) expression n as an address. */
static void sym_value(const struct comp *c, const struct bt_node *n, struct bt_sym *s)
{
	struct bt_sym a;

	s->ok = false;
	switch (n->kind) {
	case BT_N_INT:
		*s = (struct bt_sym){.ok = true, .off = n->ival};
		return;
	case BT_N_BUILTIN:
		if (fetch_probe(c) && c->ap->type == BT_P_UPROBE && !strncmp(n->str, "arg", 3) &&
		    n->str[3] >= '0' && n->str[3] <= '5' && !n->str[4]) {
			*s = (struct bt_sym){.ok = true};
			snprintf(s->base, sizeof(s->base), "%s", arg_regs[n->str[3] - '0']);
		} else if (c->ap->type == BT_P_UPROBE && !strncmp(n->str, "args", 4) &&
			   n->op[0] != 't' && n->slot >= 0 && n->slot < 6 && n->ctype) {
			*s = (struct bt_sym){.ok = true}; /* a pointer parameter (bt_dwarf.c) */
			snprintf(s->base, sizeof(s->base), "%s", arg_regs[n->slot]);
		} else if (c->ap->type == BT_P_URETPROBE && !strcmp(n->str, "retval")) {
			*s = (struct bt_sym){.ok = true, .base = "$retval"};
		}
		return;
	case BT_N_CAST:
		if (n->ival == 8)
			sym_value(c, n->a, s);
		return;
	case BT_N_CALL:
		if (fetch_probe(c) && !strcmp(n->str, "reg")) {
			*s = (struct bt_sym){.ok = true};
			snprintf(s->base, sizeof(s->base), "%%%s", n->args[0]->str);
		} else if (!strcmp(n->str, "uaddr")) { /* an address, as a literal */
			*s = (struct bt_sym){.ok = true, .off = n->ival};
		}
		return;
	case BT_N_VAR:
		if (n->slot >= 0 && c->vsym[n->slot])
			*s = *c->vsym[n->slot];
		return;
	case BT_N_MAP:
		if (n->slot >= 0 && c->msym && c->msym[n->slot] && literal_keys(n, &a) &&
		    !memcmp(a.keys, c->msym[n->slot]->keys, sizeof(a.keys)))
			*s = *c->msym[n->slot];
		return;
	case BT_N_BINOP: {
		bool minus = !strcmp(n->op, "-");
		const struct bt_node *p = n->a, *k = n->b;

		if (!minus && strcmp(n->op, "+"))
			return;
		if (!minus && n->a->kind == BT_N_INT)
			p = n->b, k = n->a;
		if (k->kind != BT_N_INT)
			return;
		sym_value(c, p, s);
		s->off += (minus ? -1 : 1) * k->ival * (int64_t)bt_comp_scale(c, n);
		return;
	}
	default:
		if (!is_place(n) || n->ival != 8)
			return;
		sym_place(c, n, &a); /* a pointer read from memory */
		if (!a.ok)
			return;
		*s = (struct bt_sym){.ok = true};
		if (!fetch_text(s->base, sizeof(s->base), &a, ""))
			s->ok = false;
		return;
	}
}

bool bt_comp_addr_fetch(struct comp *c, const struct bt_node *n, int64_t add, char *buf,
			size_t room)
{
	struct bt_sym s;

	if (!fetch_probe(c))
		return false;
	sym_value(c, n, &s);
	s.off += add;
	return s.ok && fetch_text(buf, room, &s, "");
}

/* The address of place n. */
static void sym_place(const struct comp *c, const struct bt_node *n, struct bt_sym *s)
{
	const struct bt_member *m;
	const struct bt_ctype *t;

	s->ok = false;
	switch (n->kind) {
	case BT_N_DEREF: sym_value(c, n->a, s); return;
	case BT_N_MEMBER:
		if (!(m = member_of(c, n)))
			return;
		if (n->op[0] == '-')
			sym_value(c, n->a, s);
		else if (is_place(n->a))
			sym_place(c, n->a, s);
		s->off += m->off;
		return;
	case BT_N_INDEX:
		t = bt_ctype(c->p, n->a->ctype);
		if (!t || n->b->kind != BT_N_INT)
			return;
		if (t->kind == BT_C_PTR)
			sym_value(c, n->a, s);
		else if (is_place(n->a))
			sym_place(c, n->a, s);
		s->off += n->b->ival * (int64_t)elem_size(c, n->a);
		return;
	default: return;
	}
}

/* The address of place n, computed at run time onto the stack. */
static void addr(struct comp *c, const struct bt_node *n)
{
	const struct bt_member *m = n->kind == BT_N_MEMBER ? member_of(c, n) : NULL;
	const struct bt_ctype *t = bt_ctype(c->p, n->a->ctype);

	if (n->kind == BT_N_DEREF || (t && t->kind == BT_C_PTR) ||
	    (n->kind == BT_N_MEMBER && n->op[0] == '-'))
		c->ops->expr(c, n->a);
	else if (is_place(n->a))
		addr(c, n->a);
	else
		bt_comp_unsupported(c, n, "a member or an element of a value that is not in memory");
	if (m) {
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, m->off);
		bt_comp_emit(c, UTRACE_BOP_ADD, 0, 0, 0);
	} else if (n->kind == BT_N_INDEX) {
		c->ops->expr(c, n->b);
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, elem_size(c, n->a));
		bt_comp_emit(c, UTRACE_BOP_MUL, 0, 0, 0);
		bt_comp_emit(c, UTRACE_BOP_ADD, 0, 0, 0);
	}
}

/* A bitfield's bits out of its unit's value. */
static void bits(struct comp *c, const struct bt_member *m)
{
	if (!m || !m->bits)
		return;
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, m->bit_off);
	bt_comp_emit(c, UTRACE_BOP_SHR, 0, 0, 0);
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0,
		     m->bits >= 64 ? -1 : (int64_t)((1ull << m->bits) - 1));
	bt_comp_emit(c, UTRACE_BOP_AND, 0, 0, 0);
}

/* Whether place n is in the program's memory, not in a value (a struct
 * or an array kept in a variable or a map). */
static bool in_mem(const struct comp *c, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(c->p, n->a->ctype);

	if (n->kind == BT_N_DEREF || (n->kind == BT_N_MEMBER && n->op[0] == '-') ||
	    (n->kind == BT_N_INDEX && t && t->kind == BT_C_PTR))
		return true;
	return is_place(n->a) && in_mem(c, n->a);
}

/* s.m, a[N] of a value: its element (common/bt_tuple.h). */
static void elem_of_value(struct comp *c, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(c->p, n->a->ctype);
	int64_t idx = -1;

	if (n->kind == BT_N_INDEX && n->b->kind == BT_N_INT)
		idx = n->b->ival;
	for (unsigned i = 0; n->kind == BT_N_MEMBER && t && i < t->nm; i++)
		if (!strcmp(t->m[i].name, n->str))
			idx = i;
	if (idx < 0 || idx > 255) {
		bt_comp_unsupported(c, n, "an element of a struct or an array value at an index "
					  "that is not a literal");
		return;
	}
	c->ops->expr(c, n->a);
	bt_comp_emit(c, UTRACE_BOP_TGET, (unsigned)idx, n->type != BT_T_INT, 0);
}

/* A struct or an array read at the hit: its bytes as a fetch-arg, made
 * a value in the tool (bt_record.c). */
static void record(struct comp *c, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(c->p, n->ctype);
	unsigned w = t->size % 8 == 0 && t->size > 64 ? 8 : t->size % 4 == 0 && t->size > 64 ? 4 : 1;
	char fa[256], o[24];
	struct bt_sym s;

	if (bt_record_maxlen(c->p, n->ctype) >= BT_LONGVAL_TEXT_MAX) {
		bt_comp_unsupported(c, n, "a struct or an array value this long");
		return;
	}
	if (tool_probe(c)) { /* the tool's memory, read as the run goes */
		addr(c, n);
		bt_comp_emit(c, UTRACE_BOP_LOADREC, 0, 0, n->ctype);
		return;
	}
	sym_place(c, n, &s);
	if (!fetch_probe(c) || !s.ok || !s.base[0] || !t->size || t->size / w > 64) {
		bt_comp_unsupported(c, n, fetch_probe(c) && s.ok ? "a struct or an array this large"
							       : "a struct or an array value here");
		return;
	}
	offtext(o, sizeof(o), s.off);
	snprintf(fa, sizeof(fa), "%s(%s):u%u[%u]", o, s.base, 8 * w, t->size / w);
	bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, n->ctype), 2, 0);
}

void bt_comp_mem(struct comp *c, const struct bt_node *n)
{
	const struct bt_ctype *t = bt_ctype(c->p, n->ctype);
	const struct bt_member *m = n->kind == BT_N_MEMBER ? member_of(c, n) : NULL;
	bool str = n->type == BT_T_STR, sgn = t && t->kind == BT_C_INT && t->is_signed;
	unsigned size = t ? t->size : 8;
	char fa[256], o[24];
	struct bt_sym s;

	if (!t)
		return;
	if (!in_mem(c, n)) {
		elem_of_value(c, n);
		return;
	}
	if (n->type == BT_T_RECORD) {
		record(c, n);
		return;
	}
	if (m && m->bits)
		sgn = false; /* bpftrace reads a bitfield as unsigned */
	sym_place(c, n, &s);
	/* a literal address (no base) is read at the hit too: uaddr() */
	if (fetch_probe(c) && s.ok && (s.base[0] || s.off)) {
		snprintf(o, sizeof(o), ":%c%u", sgn ? 's' : 'u', 8 * size);
		fetch_text(fa, sizeof(fa), &s, str ? ":string" : o);
		/* a char array is as long as it is: str's b cuts it there */
		bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, 0),
			     str ? 1 | (t->count < UTRACE_BT_STRLEN ? t->count : 0) << 2 : 0, 0);
		bits(c, m);
		return;
	}
	if (!tool_probe(c) && !bt_comp_hit_read(c)) {
		bt_comp_unsupported(c, n,
				    "a read of memory at an address the probe's arguments do not give");
		return;
	}
	addr(c, n);
	if (str)
		bt_comp_emit(c, UTRACE_BOP_STR, 0, t->count < UTRACE_BT_STRLEN ? t->count : 0, 0);
	else /* -kk: a read that faults is reported (imm: its record id + 1) */
		bt_comp_emit(c, UTRACE_BOP_LOAD, size, sgn,
			     c->p->helper_check >= 2
				 ? bt_comp_helper_err(c, n->loc,
						      fetch_probe(c) ? BT_HELPER_PROBE_READ_USER
								     : BT_HELPER_PROBE_READ) + 1
				 : 0);
	bits(c, m);
}

/* a < b as unsigned: both with their top bit flipped, compared signed */
static void unsigned_cmp(struct comp *c, const struct bt_node *n)
{
	for (unsigned i = 0; i < 2; i++) {
		c->ops->expr(c, i ? n->b : n->a);
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, INT64_MIN);
		bt_comp_emit(c, UTRACE_BOP_XOR, 0, 0, 0);
	}
	bt_comp_emit(c, n->op[0] == '<' ? (n->op[1] == '=' ? UTRACE_BOP_LE : UTRACE_BOP_LT)
					: (n->op[1] == '=' ? UTRACE_BOP_GE : UTRACE_BOP_GT),
		     0, 0, 0);
}

bool bt_comp_ptr_arith(struct comp *c, const struct bt_node *n)
{
	unsigned sc = bt_comp_scale(c, n);
	bool left = n->a->ctype == n->ctype;

	if (n->op[3] == 'u') {
		unsigned_cmp(c, n);
		return true;
	}
	if (!n->ctype || sc == 1)
		return false;
	c->ops->expr(c, n->a);
	if (!left) {
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, sc);
		bt_comp_emit(c, UTRACE_BOP_MUL, 0, 0, 0);
	}
	c->ops->expr(c, n->b);
	if (left) {
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, sc);
		bt_comp_emit(c, UTRACE_BOP_MUL, 0, 0, 0);
	}
	bt_comp_emit(c, n->op[0] == '-' ? UTRACE_BOP_SUB : UTRACE_BOP_ADD, 0, 0, 0);
	return true;
}

static void count_node(struct comp *c, const struct bt_node *n)
{
	const struct bt_node *t = NULL;

	if (!n)
		return;
	if (n->kind == BT_N_ASSIGN || n->kind == BT_N_INCDEC)
		t = n->a;
	if (t && t->kind == BT_N_VAR && t->slot >= 0 && t->slot < (int)UTRACE_BT_VARS &&
	    c->vcount[t->slot] < 255)
		c->vcount[t->slot]++;
	if (t && t->kind == BT_N_MAP && t->slot >= 0 && (unsigned)t->slot < c->p->nmaps &&
	    (c->mcount || (c->mcount = calloc(c->p->nmaps, 1))) && c->mcount[t->slot] < 255)
		c->mcount[t->slot]++;
	if (n->kind == BT_N_CALL && (!strcmp(n->str, "delete") || !strcmp(n->str, "clear") ||
				     !strcmp(n->str, "zero")) && n->nargs &&
	    n->args[0]->slot >= 0 && (unsigned)n->args[0]->slot < c->p->nmaps &&
	    (c->mcount || (c->mcount = calloc(c->p->nmaps, 1))))
		c->mcount[n->args[0]->slot] = 255; /* emptied: its value is no longer known */
	count_node(c, n->a);
	count_node(c, n->b);
	count_node(c, n->c);
	bt_comp_count_vars(c, n->args, n->nargs);
	bt_comp_count_vars(c, n->body, n->nbody);
	bt_comp_count_vars(c, n->orelse, n->norelse);
}

void bt_comp_count_vars(struct comp *c, struct bt_node *const *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		count_node(c, s[i]);
}

void bt_comp_var_sym(struct comp *c, const struct bt_node *var, const struct bt_node *v, bool top)
{
	struct bt_sym s;

	if (var->slot < 0 || var->slot >= (int)UTRACE_BT_VARS || c->vcount[var->slot] != 1 || !top)
		return;
	sym_value(c, v, &s);
	if (!s.ok || !(c->vsym[var->slot] = malloc(sizeof(s))))
		return;
	*c->vsym[var->slot] = s;
}

bool bt_comp_in_mem(const struct comp *c, const struct bt_node *n)
{
	return is_place(n) && in_mem(c, n);
}

bool bt_comp_place_fetch(struct comp *c, const struct bt_node *n, char *buf, size_t room)
{
	struct bt_sym s;

	if (!fetch_probe(c) || !bt_comp_in_mem(c, n))
		return false;
	sym_place(c, n, &s);
	return s.ok && s.base[0] && fetch_text(buf, room, &s, "");
}

void bt_comp_macaddr(struct comp *c, const struct bt_node *n)
{
	char fa[256];

	if (!bt_comp_place_fetch(c, n->args[0], fa, sizeof(fa) - 8)) {
		bt_comp_unsupported(c, n, "macaddr() of an address the probe's arguments do not give");
		return;
	}
	strcat(fa, ":u8[6]");
	bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, BT_FTYPE_MACADDR), 2, 0);
}

void bt_comp_reg(struct comp *c, const struct bt_node *n)
{
	char fa[32];

	if (!fetch_probe(c)) {
		bt_comp_unsupported(c, n, "reg() outside a uprobe");
		return;
	}
	snprintf(fa, sizeof(fa), "%%%s:u64", n->args[0]->str);
	bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, 0), 0, 0);
}

/* sargN: the uprobe's Nth argument on the stack, read at the hit where
 * bpftrace reads it (x86-64: sp + 8 * (N + 1), past the return address,
 * at the function's entry). */
void bt_comp_sarg(struct comp *c, const struct bt_node *n)
{
	char fa[32];

	if (!fetch_probe(c)) {
		bt_comp_unsupported(c, n, "a sarg outside a uprobe");
		return;
	}
	snprintf(fa, sizeof(fa), "+%u(%%sp):u64", 8u * (unsigned)(n->str[4] - '0' + 1));
	bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, 0), 0, 0);
}

void bt_comp_map_sym(struct comp *c, const struct bt_node *map, const struct bt_node *v, bool top)
{
	struct bt_sym s;

	if (!top || !c->mcount || map->slot < 0 || (unsigned)map->slot >= c->p->nmaps ||
	    c->mcount[map->slot] != 1 || !literal_keys(map, &s))
		return;
	sym_value(c, v, &s);
	if (!s.ok || !literal_keys(map, &s) ||
	    (!c->msym && !(c->msym = calloc(c->p->nmaps, sizeof(*c->msym)))) ||
	    !(c->msym[map->slot] = malloc(sizeof(s))))
		return;
	*c->msym[map->slot] = s;
}

void bt_comp_mem_free(struct comp *c)
{
	for (unsigned i = 0; i < UTRACE_BT_VARS; i++)
		free(c->vsym[i]);
	for (unsigned i = 0; c->msym && i < c->p->nmaps; i++)
		free(c->msym[i]);
	free(c->msym);
	free(c->mcount);
}
