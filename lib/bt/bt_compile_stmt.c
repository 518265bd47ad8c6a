/* SPDX-License-Identifier: MIT */
/*
 * bt_compile_stmt.c - statements into the stack machine (bt_compile.c):
 * each leaves the stack as it found it.  Assignments and aggregations,
 * the calls that give no value (printf, print, clear, delete, exit ...),
 * if, while and unroll.
 */
#include <string.h>

#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_check.h"

/* EMIT of kind with the values of args (already pushed). */
static void emit_rec(struct comp *c, unsigned kind, struct bt_node *const *args, unsigned n,
		     int64_t id)
{
	unsigned at = bt_comp_emit(c, UTRACE_BOP_EMIT, kind, n, id);

	for (unsigned i = 0; i < n && kind == UTRACE_BREC_PRINTF && !c->failed; i++)
		if (args[i]->type == BT_T_STACK) /* its id: bt_format.c prints its frames */
			c->fmts->stacks[id] |= 1u << i;
	for (unsigned i = 0; i < n && at < c->n; i++)
		if (bt_comp_is_str(args[i]))
			c->ins[at].key_str |= 1u << i;
}

/* A kernel event's pointer into the process (bt_tracepoint.c): what it
 * points to is read at the event by a BPF program (bt_kcap.c). */
static bool kernel_ptr(const struct bt_node *n)
{
	return n->kind == BT_N_BUILTIN && n->op[0] == 't' && n->op[1] == 'k';
}

/* join()'s array at an address computed at run time, at a uprobe, or a
 * kernel event's array: its pointers and their strings read at the hit
 * (LOAD, STR), the address kept in the last variable, which the program
 * leaves free; false if it is not free or the probe is neither. */
static bool join_at_hit(struct comp *c, const struct bt_node *n)
{
	const unsigned tmp = UTRACE_BT_VARS - 1;

	if (c->p->nvars >= tmp || (!kernel_ptr(n->args[0]) && !bt_comp_hit_read(c)))
		return false;
	bt_comp_expr(c, n->args[0]);
	bt_comp_emit(c, UTRACE_BOP_VST, tmp, 0, 0);
	for (unsigned i = 0; i < UTRACE_BT_JOIN_MAX; i++) {
		bt_comp_emit(c, UTRACE_BOP_VLD, tmp, 0, 0);
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, 8 * (int64_t)i);
		bt_comp_emit(c, UTRACE_BOP_ADD, 0, 0, 0);
		bt_comp_emit(c, UTRACE_BOP_LOAD, 8, 0, 0);
		bt_comp_emit(c, UTRACE_BOP_STR, 0, 0, 0);
	}
	return true;
}

/* join(a, delim), as bpftrace 0.17's: the strings the pointers a[0] ...
 * a[15] point to, read at the hit (fetch-args of the probe where the
 * arguments give the array, else join_at_hit: a NULL one, the array's
 * end, reads ""), joined in the tool up to the first empty one. */
static void join(struct comp *c, const struct bt_node *n)
{
	char at[200], fa[240];
	unsigned at_i;

	for (unsigned i = 0; i < UTRACE_BT_JOIN_MAX && !c->failed; i++) {
		if (kernel_ptr(n->args[0]) || /* join_at_hit: read at the event */
		    !bt_comp_addr_fetch(c, n->args[0], 8 * (int64_t)i, at, sizeof(at)) ||
		    (size_t)snprintf(fa, sizeof(fa), "+0(%s):string", at) >= sizeof(fa)) {
			if (!i && join_at_hit(c, n))
				break;
			bt_comp_unsupported(c, n, "join() of an array the probe's arguments do not "
						  "give (an address computed at run time outside a "
						  "uprobe, other than a kernel event's char ** field)");
			return;
		}
		bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, 0), 1, 0);
	}
	at_i = bt_comp_emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_JOIN, UTRACE_BT_JOIN_MAX,
			    bt_comp_fmt_add(c, n->nargs > 1 ? n->args[1]->str : " "));
	if (at_i < c->n) /* every value a string */
		c->ins[at_i].key_str = (1u << UTRACE_BT_JOIN_MAX) - 1;
}

static void call_stmt(struct comp *c, const struct bt_node *n)
{
	const char *f = n->str;

	if (!strcmp(f, "printf") || !strcmp(f, "cat") || !strcmp(f, "system")) {
		for (unsigned i = 1; i < n->nargs; i++)
			bt_comp_expr(c, n->args[i]);
		emit_rec(c, f[0] == 'p' ? UTRACE_BREC_PRINTF : f[0] == 'c' ? UTRACE_BREC_CAT
									  : UTRACE_BREC_SYSTEM,
			 n->args + 1, n->nargs - 1, bt_comp_fmt_add(c, n->args[0]->str));
	} else if (!strcmp(f, "print") && n->args[0]->kind == BT_N_MAP && !n->args[0]->nargs) {
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, n->nargs > 1 ? n->args[1]->ival : 0);
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, n->nargs > 2 ? n->args[2]->ival : 0);
		bt_comp_emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_PRINT_MAP, 2, n->args[0]->slot);
	} else if (!strcmp(f, "print")) {
		bt_comp_expr(c, n->args[0]);
		emit_rec(c, UTRACE_BREC_PRINT, n->args, 1,
			 n->args[0]->type == BT_T_TUPLE || n->args[0]->type == BT_T_RECORD ? 2
			 : bt_is_timestamp(c->p, n->args[0]->ctype)			       ? 5
			 : n->args[0]->type == BT_T_STACK			       ? 3
			 : bt_is_unsigned(c->p, n->args[0])			       ? 4
										       : bt_comp_is_str(n->args[0]));
	} else if (!strcmp(f, "clear") || !strcmp(f, "zero")) {
		bt_comp_emit(c, UTRACE_BOP_EMIT, f[0] == 'c' ? UTRACE_BREC_CLEAR : UTRACE_BREC_ZERO,
			     0, n->args[0]->slot);
	} else if (!strcmp(f, "delete")) {
		bt_comp_key(c, n->args[0]);
		bt_comp_emit(c, UTRACE_BOP_MDEL, (unsigned)n->args[0]->slot,
			     c->p->helper_check >= 1,
			     c->p->helper_check >= 1 ? bt_comp_helper_err(c, n->loc, BT_HELPER_MAP_DELETE)
						     : 0);
	} else if (!strcmp(f, "join")) {
		join(c, n);
	} else if (!strcmp(f, "exit")) {
		bt_comp_emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_EXIT, 0, 0);
	} else if (!strcmp(f, "time")) {
		bt_comp_emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_TIME, 0,
			     bt_comp_fmt_add(c, n->nargs ? n->args[0]->str : "%H:%M:%S\n"));
	} else {
		bt_comp_expr(c, n);
		bt_comp_emit(c, UTRACE_BOP_POP, 0, 0, 0);
	}
}

static void assign(struct comp *c, const struct bt_node *s)
{
	const struct bt_node *t = s->a, *v = s->b;
	int agg = v->kind == BT_N_CALL ? bt_agg_of(v->str) : -1;
	bool plain = !strcmp(s->op, "=");

	if (t->kind == BT_N_MAP && agg >= 0) {
		if (v->nargs)
			bt_comp_expr(c, v->args[0]);
		bt_comp_key(c, t);
		bt_comp_emit(c, UTRACE_BOP_AGG, (unsigned)t->slot, (unsigned)agg, 0);
		return;
	}
	if (!plain) {
		if (t->kind == BT_N_VAR) {
			bt_comp_emit(c, UTRACE_BOP_VLD, (unsigned)t->slot, 0, 0);
		} else {
			bt_comp_key(c, t);
			bt_comp_emit(c, UTRACE_BOP_MGET, (unsigned)t->slot, 0, 0);
		}
	}
	bt_comp_expr(c, v);
	if (!plain && (s->op[0] == '+' || s->op[0] == '-') && bt_comp_scale(c, t) > 1) {
		/* p += i: i elements */
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t));
		bt_comp_emit(c, UTRACE_BOP_MUL, 0, 0, 0);
	}
	if (!plain)
		bt_comp_emit(c, bt_comp_binop(s->op), 0, 0, 0);
	if (t->kind == BT_N_VAR && plain)
		bt_comp_var_sym(c, t, v, c->depth == 0);
	if (t->kind == BT_N_VAR) {
		bt_comp_emit(c, UTRACE_BOP_VST, (unsigned)t->slot, bt_comp_is_str(v), 0);
		return;
	}
	if (plain)
		bt_comp_map_sym(c, t, v, c->depth == 0);
	bt_comp_key(c, t);
	bt_comp_emit(c, UTRACE_BOP_MSET, (unsigned)t->slot, 0, 0);
}

static void stmt(struct comp *c, const struct bt_node *s)
{
	unsigned j, end;

	switch (s->kind) {
	case BT_N_ASSIGN: assign(c, s); break;
	case BT_N_IF:
		bt_comp_expr(c, s->a);
		j = bt_comp_emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		c->depth++;
		bt_comp_stmts(c, s->body, s->nbody);
		if (s->norelse) {
			end = bt_comp_emit(c, UTRACE_BOP_JMP, 0, 0, 0);
			bt_comp_patch(c, j);
			bt_comp_stmts(c, s->orelse, s->norelse);
			j = end;
		}
		c->depth--;
		bt_comp_patch(c, j);
		break;
	case BT_N_WHILE: /* the condition, the body, LOOP back to the condition */
		end = c->n;
		bt_comp_expr(c, s->a);
		j = bt_comp_emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		c->depth++;
		bt_comp_stmts(c, s->body, s->nbody);
		c->depth--;
		bt_comp_emit(c, UTRACE_BOP_LOOP, 0, 0, end);
		bt_comp_patch(c, j);
		break;
	case BT_N_UNROLL:
		c->depth++;
		for (int64_t i = 0; i < s->ival && i < 100; i++)
			bt_comp_stmts(c, s->body, s->nbody);
		c->depth--;
		break;
	case BT_N_EXPR:
		if (s->a->kind == BT_N_CALL) {
			call_stmt(c, s->a);
			break;
		}
		bt_comp_expr(c, s->a);
		bt_comp_emit(c, UTRACE_BOP_POP, 0, 0, 0);
		break;
	default: bt_comp_unsupported(c, s, "this statement"); break;
	}
}

void bt_comp_stmts(struct comp *c, struct bt_node *const *s, unsigned n)
{
	for (unsigned i = 0; i < n && !c->failed; i++)
		stmt(c, s[i]);
}
