/* SPDX-License-Identifier: MIT */
/*
 * bt_check.c - bpftrace's semantic analyser (semantic_analyser.cpp) for
 * the subset utrace runs: every name known, every call with its number of
 * arguments, types that agree (a variable or a map keeps the type of its
 * first assignment, a map its key's types and its aggregation), builtins
 * only where their probe gives them a meaning (retval in uretprobes,
 * argN in uprobes), aggregations assigned straight to a map, printf's
 * format against its arguments.  Messages and ranges as bpftrace 0.17's;
 * a builtin or variable inside a call's arguments is underlined from the
 * call's start, as bpftrace's locations do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_dwarf.h"
#include "lib/bt/bt_print.h"
#include "lib/bt/bt_tracepoint.h"


static int check_stmts(struct bt_checker *ck, struct bt_node **s, unsigned n);
static int bt_check_expr(struct bt_checker *ck, struct bt_node *n);

static bool probe_has(const struct bt_probe *pr, enum bt_probe_type t)
{
	for (unsigned i = 0; i < pr->naps; i++)
		if (pr->aps[i].type != t)
			return false;
	return true;
}

static int check_builtin(struct bt_checker *ck, struct bt_node *n)
{
	static const char *const ints[] = {"pid",	"tid", "uid", "gid", "nsecs",
					   "elapsed", "cpu", "rand", "cgroup", "numaid"};
	const char *s = n->str;

	if ((!strncmp(s, "args.", 5) || !strncmp(s, "args->", 6)) &&
	    probe_has(ck->probe, BT_P_TRACEPOINT)) {
		if (s[4] == '-') /* args->FIELD is args.FIELD */
			memmove(n->str + 5, n->str + 6, strlen(n->str + 6) + 1);
		n->op[0] = 't'; /* for bt_compile.c: a tracepoint's, not DWARF's */
		return bt_tracepoint_check_field(ck->p, ck->probe, n, ck->err);
	}
	n->type = BT_T_INT;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(s, ints[i]))
			return 0;
	if (!strcmp(s, "comm") || !strcmp(s, "probe")) {
		n->type = BT_T_STR;
		n->size = !strcmp(s, "comm") ? 16 : 64;
		return 0;
	}
	if (!strcmp(s, "cpid")) {
		if (!ck->p->has_child)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_CPID_CHILD);
		return 0;
	}
	if (!strcmp(s, "username")) { /* the uid's name: bt_compile.c */
		n->type = BT_T_STR;
		n->size = 64;
		return 0;
	}
	if (!strcmp(s, "func")) {
		n->type = BT_T_USYM;
		return 0;
	}
	if (!strcmp(s, "ustack")) {
		n->type = BT_T_STACK;
		return 0;
	}
	if (!strcmp(s, "retval")) {
		if (!probe_has(ck->probe, BT_P_URETPROBE))
			return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_RETVAL_PROBE);
		return 0;
	}
	if (!strncmp(s, "arg", 3) && s[3] >= '0' && s[3] <= '9' && !s[4]) {
		if (!probe_has(ck->probe, BT_P_UPROBE) && !probe_has(ck->probe, BT_P_USDT))
			return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_ARG_PROBE, s);
		return 0;
	}
	if (!strncmp(s, "sarg", 4) && s[4] >= '0' && s[4] <= '9' && !s[5]) {
		if (!probe_has(ck->probe, BT_P_UPROBE))
			return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_SARG_PROBE, s);
		return 0;
	}
	if (!strncmp(s, "args->", 6) || !strncmp(s, "args.", 5))
		return bt_dwarf_check_arg(ck, n);
	return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_UNKNOWN_IDENT, s);
}

static int check_var_use(struct bt_checker *ck, struct bt_node *n)
{
	for (unsigned i = 0; i < ck->p->nvars; i++)
		if (!strcmp(ck->p->vars[i], n->str) && (ck->defined >> i & 1)) {
			n->slot = (int)i;
			n->type = ck->p->var_types[i];
			n->size = ck->p->var_sizes[i];
			n->ctype = ck->p->var_ctypes[i];
			return 0;
		}
	return bt_error(ck->err, ck->p, bt_name_loc(ck, n), BT_ERR_UNDEF_VAR, n->str);
}

static int check_binop(struct bt_checker *ck, struct bt_node *n)
{
	char b1[24], b2[24];
	int ret;

	if ((ret = bt_check_expr(ck, n->a)) < 0 || (ret = bt_check_expr(ck, n->b)) < 0)
		return ret;
	n->type = BT_T_INT;
	if (n->a->type == BT_T_INT && n->b->type == BT_T_INT) {
		bt_check_ptr_arith(ck, n);
		bt_sign_binop(ck, n);
		return 0;
	}
	if (((n->a->type == BT_T_STR && n->b->type == BT_T_STR &&
	      bt_is_timestamp(ck->p, n->a->ctype) == bt_is_timestamp(ck->p, n->b->ctype)) ||
	     (n->a->type == BT_T_BUF && n->b->type == BT_T_BUF) ||
	     (n->a->type == BT_T_RECORD && n->b->type == BT_T_RECORD &&
	      n->a->ctype == n->b->ctype)) &&
	    (!strcmp(n->op, "==") || !strcmp(n->op, "!=")))
		return 0;
	return bt_error(ck->err, ck->p, n->loc, BT_ERR_BINOP_TYPE, n->op,
			bt_value_name(ck->p, n->a, b1, sizeof(b1)),
			bt_value_name(ck->p, n->b, b2, sizeof(b2)));
}

static int check_ternary(struct bt_checker *ck, struct bt_node *n)
{
	char b1[24];
	int ret;

	if ((ret = bt_check_expr(ck, n->a)) < 0 || (ret = bt_check_expr(ck, n->b)) < 0 ||
	    (ret = bt_check_expr(ck, n->c)) < 0)
		return ret;
	if (n->a->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_COND_TYPE, "ternary",
				n->a->type == BT_T_STR
				    ? "string"
				    : bt_type_name(n->a->type, n->a->size, b1, sizeof(b1)));
	if ((ret = bt_ternary_timestamp(ck, n)) < 0)
		return ret;
	n->type = n->b->type;
	n->size = n->b->size > n->c->size ? n->b->size : n->c->size;
	if (n->b->type != n->c->type)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_TERNARY_TYPE,
				n->b->type == BT_T_STR ? "string" : "integer",
				n->c->type == BT_T_STR ? "string" : "integer");
	return 0;
}

static int bt_check_expr(struct bt_checker *ck, struct bt_node *n)
{
	char b1[24];
	int ret;

	switch (n->kind) {
	case BT_N_INT:
		n->type = BT_T_INT;
		return 0;
	case BT_N_STR:
		n->type = BT_T_STR;
		n->size = (unsigned)n->ival + 1;
		return 0;
	case BT_N_BUILTIN:
		if ((ret = check_builtin(ck, n)) == 0)
			bt_sign_builtin(ck, n);
		return ret;
	case BT_N_VAR:
		return check_var_use(ck, n);
	case BT_N_MAP:
		return bt_check_map_read(ck, n);
	case BT_N_CALL: {
		unsigned saved = ck->call_col;

		ck->call_col = n->loc.col;
		ret = bt_check_call(ck, n);
		ck->call_col = saved;
		return ret;
	}
	case BT_N_BINOP:
		return check_binop(ck, n);
	case BT_N_CAST:
		return bt_check_cast(ck, n);
	case BT_N_TUPLE:
		return bt_check_tuple(ck, n);
	case BT_N_FIELD:
		return bt_check_field(ck, n);
	case BT_N_DEREF:
	case BT_N_MEMBER:
	case BT_N_INDEX:
		return bt_check_ctype(ck, n);
	case BT_N_UNOP:
		if ((ret = bt_check_expr(ck, n->a)) < 0)
			return ret;
		n->type = BT_T_INT;
		if (n->a->type != BT_T_INT &&
		    (strcmp(n->op, "!") || bt_is_timestamp(ck->p, n->a->ctype)))
			return bt_error(ck->err, ck->p,
					(struct bt_loc){n->loc.line, n->loc.col, n->loc.col + 1},
					BT_ERR_UNOP_TYPE, n->op, bt_value_name(ck->p, n->a, b1, sizeof(b1)));
		bt_sign_unop(ck, n);
		return 0;
	case BT_N_TERNARY:
		return check_ternary(ck, n);
	case BT_N_INCDEC:
		if (n->a->kind == BT_N_MAP)
			return bt_check_map_incdec(ck, n);
		if (n->a->kind != BT_N_VAR)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_INCDEC, n->op);
		if ((ret = check_var_use(ck, n->a)) < 0)
			return ret;
		n->type = BT_T_INT;
		n->ctype = n->a->ctype;
		return 0;
	default:
		return 0;
	}
}

static int var_define(struct bt_checker *ck, struct bt_node *v, const struct bt_node *val,
		      struct bt_loc at)
{
	struct bt_program *p = ck->p;
	char b1[24], b2[24];
	unsigned i;
	int ret;

	for (i = 0; i < p->nvars && strcmp(p->vars[i], v->str); i++)
		;
	if (i == 64)
		return utrace_error_set(ck->err, -E2BIG, "more than 64 scratch variables");
	if (i == p->nvars) {
		char **names = realloc(p->vars, (i + 1) * sizeof(*names));
		enum bt_type *types;
		unsigned *sizes, *ctypes;

		if (names)
			p->vars = names;
		types = names ? realloc(p->var_types, (i + 1) * sizeof(*types)) : NULL;
		if (types)
			p->var_types = types;
		sizes = types ? realloc(p->var_sizes, (i + 1) * sizeof(*sizes)) : NULL;
		if (sizes)
			p->var_sizes = sizes;
		ctypes = sizes ? realloc(p->var_ctypes, (i + 1) * sizeof(*ctypes)) : NULL;
		if (!ctypes || !(names[i] = strdup(v->str)))
			return utrace_error_set(ck->err, -ENOMEM, "out of memory");
		p->var_ctypes = ctypes;
		p->var_ctypes[i] = val->ctype;
		p->var_types[i] = val->type;
		p->var_sizes[i] = val->size;
		p->nvars++;
	} else if (p->var_types[i] != val->type ||
		   bt_is_timestamp(p, val->ctype) != bt_is_timestamp(p, p->var_ctypes[i])) {
		return bt_error(ck->err, p, at, BT_ERR_VAR_TYPE, v->str,
				bt_value_name(p, val, b1, sizeof(b1)),
				bt_is_timestamp(p, p->var_ctypes[i])
				    ? "timestamp"
				    : bt_type_name(p->var_types[i], p->var_sizes[i], b2, sizeof(b2)));
	} else if (val->type == BT_T_TUPLE && (ret = bt_tuple_same(ck, at, p->var_sizes[i],
								     val->size)) < 0) {
		return ret;
	} else if (val->size > p->var_sizes[i]) {
		p->var_sizes[i] = val->size;
	}
	v->slot = (int)i;
	v->type = val->type;
	v->ctype = p->var_ctypes[i];
	ck->defined |= 1ull << i;
	return 0;
}

static int check_assign(struct bt_checker *ck, struct bt_node *n)
{
	int ret;

	if (n->a->kind == BT_N_MAP)
		return bt_check_map_assign(ck, n);
	ck->assigning_agg = false;
	if ((ret = bt_check_expr(ck, n->b)) < 0)
		return ret;
	if (n->b->type == BT_T_AGG)
		return bt_error(ck->err, ck->p, n->b->loc, BT_ERR_AGG_ASSIGN, n->b->str);
	if (strcmp(n->op, "=")) {
		if ((ret = check_var_use(ck, n->a)) < 0)
			return ret;
		if (n->a->type != BT_T_INT || n->b->type != BT_T_INT)
			return bt_compound_error(ck, n);
		return 0;
	}
	return var_define(ck, n->a, n->b, n->loc);
}

/* One branch of a ternary statement as a block of one statement. */
static int branch_block(struct bt_node *e, struct bt_node ***body, unsigned *n)
{
	struct bt_node *st = calloc(1, sizeof(*st));

	if (!st || !(*body = calloc(1, sizeof(**body)))) {
		free(st);
		return -ENOMEM;
	}
	*st = (struct bt_node){.kind = BT_N_EXPR, .loc = e->loc, .a = e};
	(*body)[0] = st;
	*n = 1;
	return 0;
}

/* `c ? printf(...) : printf(...);`: a ternary whose branches have no
 * value (bpftrace's none type) is a statement, `if (c) {...} else {...}`. */
static int ternary_stmt(struct bt_node *s)
{
	struct bt_node *t = s->a;

	if (branch_block(t->b, &s->body, &s->nbody) < 0 ||
	    branch_block(t->c, &s->orelse, &s->norelse) < 0)
		return -ENOMEM;
	s->kind = BT_N_IF;
	s->a = t->a;
	t->a = t->b = t->c = NULL;
	free(t->str);
	free(t);
	return 0;
}

static int check_stmt(struct bt_checker *ck, struct bt_node *s)
{
	char b1[24];
	int ret;

	ck->call_col = 0;
	switch (s->kind) {
	case BT_N_ASSIGN:
		return check_assign(ck, s);
	case BT_N_IF:
	case BT_N_WHILE:
		if ((ret = bt_check_expr(ck, s->a)) < 0)
			return ret;
		if (s->a->type != BT_T_INT)
			return bt_error(ck->err, ck->p, (struct bt_loc){1, 1, 1}, BT_ERR_COND_TYPE,
					s->kind == BT_N_IF ? "if()" : "while()",
					s->a->type == BT_T_STR && !bt_is_timestamp(ck->p, s->a->ctype)
					    ? "string"
					    : bt_value_name(ck->p, s->a, b1, sizeof(b1)));
		if ((ret = check_stmts(ck, s->body, s->nbody)) < 0)
			return ret;
		return check_stmts(ck, s->orelse, s->norelse);
	case BT_N_UNROLL:
		if (s->ival > 100 || s->ival < 1)
			return bt_error(ck->err, ck->p, s->loc,
					s->ival > 100 ? BT_ERR_UNROLL_MAX : BT_ERR_UNROLL_MIN);
		return check_stmts(ck, s->body, s->nbody);
	case BT_N_EXPR:
		if ((ret = bt_check_expr(ck, s->a)) < 0)
			return ret;
		if (s->a->type == BT_T_AGG)
			return bt_error(ck->err, ck->p, s->a->loc, BT_ERR_AGG_ASSIGN, s->a->str);
		if (s->a->kind == BT_N_TERNARY && s->a->type == BT_T_NONE)
			return ternary_stmt(s);
		return 0;
	default:
		return bt_check_expr(ck, s);
	}
}

static int check_stmts(struct bt_checker *ck, struct bt_node **s, unsigned n)
{
	int ret = 0;

	for (unsigned i = 0; i < n && !ret; i++)
		ret = check_stmt(ck, s[i]);
	return ret;
}

int bt_check(struct bt_program *p, struct utrace_error *err)
{
	struct bt_checker ck = {.p = p, .err = err, .expr = bt_check_expr};
	char b1[24];
	int ret = 0;

	for (unsigned i = 0; i < p->nprobes && !ret; i++) {
		ck.probe = &p->probes[i];
		ck.defined = 0;
		if (ck.probe->pred) {
			ck.call_col = 0;
			if ((ret = bt_check_expr(&ck, ck.probe->pred)) < 0)
				return ret;
			if (ck.probe->pred->type != BT_T_INT)
				return bt_error(err, p, ck.probe->pred->loc, BT_ERR_COND_TYPE,
						"predicate",
						bt_type_name(ck.probe->pred->type,
							     ck.probe->pred->size, b1, sizeof(b1)));
		}
		ret = check_stmts(&ck, ck.probe->body, ck.probe->nbody);
	}
	return ret ? ret : bt_check_maps_final(p, err);
}
