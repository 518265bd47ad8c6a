/* SPDX-License-Identifier: MIT */
/*
 * bt_compile_expr.c - expressions into the stack machine (bt_compile.c):
 * each leaves one value on the stack.  The builtins, the calls that give
 * a value, maps' keys, operators, ++/--, tuples.
 */
#include <stdio.h>
#include <string.h>

#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_longval.h"

bool bt_comp_is_str(const struct bt_node *n)
{
	return n->type == BT_T_STR || n->type == BT_T_USYM || n->type == BT_T_TUPLE ||
	       n->type == BT_T_BUF || n->type == BT_T_RECORD;
}

static void builtin(struct comp *c, const struct bt_node *n)
{
	static const char *const names[UTRACE_BB_MAX] = {
	    [UTRACE_BB_PID] = "pid",	       [UTRACE_BB_TID] = "tid",
	    [UTRACE_BB_UID] = "uid",	       [UTRACE_BB_GID] = "gid",
	    [UTRACE_BB_NSECS] = "nsecs",       [UTRACE_BB_ELAPSED] = "elapsed",
	    [UTRACE_BB_CPU] = "cpu",	       [UTRACE_BB_RETVAL] = "retval",
	    [UTRACE_BB_RAND] = "rand",	       [UTRACE_BB_CGROUP] = "cgroup",
	    [UTRACE_BB_NUMAID] = "numaid",     [UTRACE_BB_CPID] = "cpid",
	};

	if (!strncmp(n->str, "args", 4) && n->op[0] == 't') { /* a tracepoint's field */
		bt_comp_emit(c, UTRACE_BOP_ARG, (unsigned)n->slot, 0, 0);
		if (n->type == BT_T_STR)
			bt_comp_emit(c, UTRACE_BOP_STR, 0, 0, 0);
		return;
	}
	if (!strncmp(n->str, "args", 4)) { /* args->NAME: bt_dwarf.c */
		bt_comp_dwarf_arg(c, n);
		return;
	}
	if (!strncmp(n->str, "sarg", 4)) {
		bt_comp_sarg(c, n);
		return;
	}
	if (!strncmp(n->str, "arg", 3) && n->str[3] && !n->str[4]) {
		bt_comp_emit(c, UTRACE_BOP_ARG, (unsigned)(n->str[3] - '0'), 0, 0);
		return;
	}
	if (!strcmp(n->str, "comm")) {
		bt_comp_emit(c, UTRACE_BOP_COMM, 0, 0, 0);
		return;
	}
	if (!strcmp(n->str, "username")) { /* uid's name, as bpftrace's /etc/passwd */
		bt_comp_emit(c, UTRACE_BOP_BUILTIN, UTRACE_BB_UID, 0, 0);
		bt_comp_emit(c, UTRACE_BOP_NAME, UTRACE_BN_USER, 0, 0);
		return;
	}
	if (!strcmp(n->str, "probe") || !strcmp(n->str, "func")) {
		char buf[BT_LONGVAL_TEXT_MAX];

		if (!strcmp(n->str, "func"))
			snprintf(buf, sizeof(buf), "%s", c->func);
		else if (c->ap->type == BT_P_USDT)
			snprintf(buf, sizeof(buf), "usdt:%s", c->func);
		else if (c->ap->type == BT_P_TRACEPOINT)
			snprintf(buf, sizeof(buf), "tracepoint:%s", c->func);
		else if (c->ap->func)
			snprintf(buf, sizeof(buf), "%s:%s:%s",
				 c->ap->type == BT_P_UPROBE ? "uprobe" : "uretprobe", c->ap->target,
				 c->func);
		else
			snprintf(buf, sizeof(buf), "%s", c->ap->text);
		bt_comp_sconst_name(c, buf);
		return;
	}
	for (unsigned i = 0; i < UTRACE_BB_MAX; i++)
		if (names[i] && !strcmp(names[i], n->str)) {
			bt_comp_emit(c, UTRACE_BOP_BUILTIN, i, 0, 0);
			return;
		}
	bt_comp_unsupported(c, n, n->str);
}

/* The keys of map node m, then KEY. */
void bt_comp_key(struct comp *c, const struct bt_node *m)
{
	for (unsigned i = 0; i < m->nargs; i++)
		bt_comp_expr(c, m->args[i]);
	bt_comp_emit(c, UTRACE_BOP_KEY, (unsigned)m->slot, m->nargs, 0);
}

static const struct {
	const char *op;
	unsigned code;
} binops[] = {
    {"+", UTRACE_BOP_ADD},  {"-", UTRACE_BOP_SUB},  {"*", UTRACE_BOP_MUL}, {"/", UTRACE_BOP_DIV},
    {"%", UTRACE_BOP_MOD},  {"&", UTRACE_BOP_AND},  {"|", UTRACE_BOP_OR},  {"^", UTRACE_BOP_XOR},
    {"<<", UTRACE_BOP_SHL}, {">>", UTRACE_BOP_SHR}, {"==", UTRACE_BOP_EQ}, {"!=", UTRACE_BOP_NE},
    {"<", UTRACE_BOP_LT},   {"<=", UTRACE_BOP_LE},  {">", UTRACE_BOP_GT},  {">=", UTRACE_BOP_GE},
};

unsigned bt_comp_binop(const char *op)
{
	size_t len = strlen(op);

	if (len > 1 && op[len - 1] == '=' && strcmp(op, "==") && strcmp(op, "!=") &&
	    strcmp(op, "<=") && strcmp(op, ">="))
		len--; /* "+=" is "+" */
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (strlen(binops[i].op) == len && !strncmp(binops[i].op, op, len))
			return binops[i].code;
	return UTRACE_BOP_ADD;
}

static void logic(struct comp *c, const struct bt_node *n)
{
	bool and = !strcmp(n->op, "&&");
	unsigned j1, end;

	bt_comp_expr(c, n->a);
	if (!and)
		bt_comp_emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	j1 = bt_comp_emit(c, UTRACE_BOP_JZ, 0, 0, 0); /* &&: a false; ||: a true */
	bt_comp_expr(c, n->b);
	bt_comp_emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	bt_comp_emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	end = bt_comp_emit(c, UTRACE_BOP_JMP, 0, 0, 0);
	bt_comp_patch(c, j1);
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, and ? 0 : 1);
	bt_comp_patch(c, end);
}

static void incdec(struct comp *c, const struct bt_node *n)
{
	unsigned op = n->op[0] == '+' ? UTRACE_BOP_ADD : UTRACE_BOP_SUB;
	const struct bt_node *t = n->a;

	if (t->kind == BT_N_VAR) {
		bt_comp_emit(c, UTRACE_BOP_VLD, (unsigned)t->slot, 0, 0);
	} else {
		bt_comp_key(c, t);
		bt_comp_emit(c, UTRACE_BOP_MGET, (unsigned)t->slot, 0, 0);
	}
	bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t));
	bt_comp_emit(c, op, 0, 0, 0);
	bt_comp_emit(c, UTRACE_BOP_DUP, 0, 0, 0);
	if (t->kind == BT_N_VAR) {
		bt_comp_emit(c, UTRACE_BOP_VST, (unsigned)t->slot, 0, 0);
	} else {
		bt_comp_key(c, t);
		bt_comp_emit(c, UTRACE_BOP_MSET, (unsigned)t->slot, 0, 0);
	}
	if (n->post) { /* the value before */
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t));
		bt_comp_emit(c, op == UTRACE_BOP_ADD ? UTRACE_BOP_SUB : UTRACE_BOP_ADD, 0, 0, 0);
	}
}

/* ustack, ustack(N), ustack(perf), ustack(perf, N): bpftrace's 127 frames
 * unless N says fewer; the tool names them (bt_usym.c). */
static void ustack(struct comp *c, const struct bt_node *n)
{
	unsigned mode = 0, first = 0;
	int64_t limit = 127;

	if (n->kind == BT_N_CALL && n->nargs && n->args[0]->kind == BT_N_BUILTIN) {
		mode = !strcmp(n->args[0]->str, "perf");
		first = 1;
	}
	if (n->kind == BT_N_CALL && n->nargs > first)
		limit = n->args[first]->ival;
	bt_comp_emit(c, UTRACE_BOP_USTACK, mode, 0, limit);
	c->ustack = true;
}

/* str()'s argument that the probe's record holds the string of:
 * argN, retval (bt_run.c's str_args). */
static bool is_strarg(const struct bt_node *a)
{
	const char *s = a->str;

	return a->kind == BT_N_BUILTIN && s &&
	       ((!strncmp(s, "arg", 3) && s[3] >= '0' && s[3] <= '5' && !s[4]) ||
		!strcmp(s, "retval"));
}

/* The calls that give or compare text: str(), buf(), ntop() and pton(),
 * strftime(), strerror(), strncmp(), strcontains(); false if n is none. */
static bool call_text(struct comp *c, const struct bt_node *n)
{
	if (!strcmp(n->str, "str")) {
		int64_t len = n->nargs > 1 ? n->args[1]->ival : 0;
		char at[200], fa[240];

		/* an address a uprobe's hit gives (arg0 + 4, a pointer member):
		 * read there, by a fetch-arg of the probe, as bpftrace's
		 * probe_read_str at the hit (argN and retval: bt_run.c's) */
		if (n->args[0]->kind != BT_N_BUILTIN && n->nargs == 1 &&
		    bt_comp_addr_fetch(c, n->args[0], 0, at, sizeof(at)) &&
		    (size_t)snprintf(fa, sizeof(fa), "%s:string", at) < sizeof(fa)) {
			bt_comp_emit(c, UTRACE_BOP_FIELD, bt_comp_field(c, fa, 0), 1, 0);
			return true;
		}
		/* argN and retval: the probe's strings (bt_run.c's); anything
		 * else is read at the hit (runtime/bt_probe.c) */
		bool hit = !is_strarg(n->args[0]) && bt_comp_hit_read(c);
		int64_t kk = 0;

		bt_comp_expr(c, n->args[0]);
		/* -kk: a read that faults reported, as LOAD's (BEGIN's, END's:
		 * the tool's memory; a uprobe's at a run-time address) */
		if (c->p->helper_check >= 2 && (hit || bt_comp_tool_probe(c)))
			kk = bt_comp_helper_err(c, n->loc,
						hit ? BT_HELPER_PROBE_READ_USER_STR
						    : BT_HELPER_PROBE_READ_STR) + 1;
		/* bpftrace 0.17's str(x, n): n characters */
		bt_comp_emit(c, UTRACE_BOP_STR, 0,
			     len > 0 && len < UTRACE_BT_STRLEN ? (unsigned)len : 0, kk);
		return true;
	}
	if (!strcmp(n->str, "ntop") && bt_is_pton(n->args[n->nargs - 1])) {
		char text[64];

		bt_ntop_pton_text(n, text, sizeof(text));
		bt_comp_sconst(c, text);
		return true;
	}
	if (!strcmp(n->str, "pton")) {
		bt_comp_unsupported(c, n,
				    "pton() other than as ntop()'s argument (its uint8 array)");
		return true;
	}
	if (!strcmp(n->str, "ntop")) {
		bt_comp_expr(c, n->args[n->nargs - 1]);
		bt_comp_emit(c, UTRACE_BOP_NTOP, 0, 0, 0);
		return true;
	}
	if (!strcmp(n->str, "buf")) {
		bt_comp_buf(c, n);
		return true;
	}
	if (!strcmp(n->str, "strftime")) {
		bt_comp_expr(c, n->args[1]);
		bt_comp_emit(c, UTRACE_BOP_STRFTIME, 0, 0, bt_comp_fmt_add(c, n->args[0]->str));
		return true;
	}
	if (!strcmp(n->str, "strncmp")) {
		bt_comp_expr(c, n->args[0]);
		bt_comp_expr(c, n->args[1]);
		bt_comp_emit(c, UTRACE_BOP_STRNCMP, 0, 0, n->args[2]->ival);
		return true;
	}
	if (!strcmp(n->str, "strerror")) {
		bt_comp_expr(c, n->args[0]);
		bt_comp_emit(c, UTRACE_BOP_NAME, UTRACE_BN_ERRNO, 0, 0);
		return true;
	}
	if (!strcmp(n->str, "strcontains")) {
		bt_comp_expr(c, n->args[0]);
		bt_comp_expr(c, n->args[1]);
		bt_comp_emit(c, UTRACE_BOP_STRSTR, 0, 0, 0);
		return true;
	}
	return false;
}

/* A call that gives a value (printf() and the others that give none:
 * bt_compile_stmt.c). */
static void call_value(struct comp *c, const struct bt_node *n)
{
	if (!strcmp(n->str, "ustack")) {
		ustack(c, n);
		return;
	}
	if (!strcmp(n->str, "reg") || !strcmp(n->str, "macaddr")) {
		(n->str[0] == 'r' ? bt_comp_reg : bt_comp_macaddr)(c, n);
		return;
	}
	if (!strcmp(n->str, "usym")) {
		bt_comp_expr(c, n->args[0]);
		bt_comp_emit(c, UTRACE_BOP_USYM, 0, 0, 0);
		return;
	}
	if (!strcmp(n->str, "sizeof")) {
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival);
		return;
	}
	if (!strcmp(n->str, "bswap")) {
		bt_comp_expr(c, n->args[0]);
		bt_comp_emit(c, UTRACE_BOP_BSWAP, bt_int_bytes(n->args[0]), 0, 0);
		return;
	}
	if (!strcmp(n->str, "uaddr")) { /* the checker's address */
		bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival);
		return;
	}
	if (!call_text(c, n))
		bt_comp_unsupported(c, n, n->str);
}

/* (a, b, ...): its elements, then TUPLE (its unsigned integers, which
 * bpftrace prints as uint64, and its timestamps, which its json prints
 * unquoted, in key_str's bits 16 and up). */
static void tuple(struct comp *c, const struct bt_node *n)
{
	uint32_t strs = 0;
	int64_t tuples = 0;
	unsigned at;

	for (unsigned i = 0; i < n->nargs; i++) {
		bt_comp_expr(c, n->args[i]);
		if (bt_comp_is_str(n->args[i]))
			strs |= (1u | (uint32_t)bt_is_timestamp(c->p, n->args[i]->ctype) << 16) << i;
		else if (bt_is_unsigned(c->p, n->args[i]))
			strs |= 1u << (16 + i);
		if (n->args[i]->type == BT_T_TUPLE || n->args[i]->type == BT_T_RECORD)
			tuples |= 1ll << i;
	}
	at = bt_comp_emit(c, UTRACE_BOP_TUPLE, 0, n->nargs, tuples);
	if (at < c->n)
		c->ins[at].key_str = strs;
}

void bt_comp_expr(struct comp *c, const struct bt_node *n)
{
	unsigned j, end;

	switch (n->kind) {
	case BT_N_INT: bt_comp_emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival); break;
	case BT_N_STR: bt_comp_sconst(c, n->str); break;
	case BT_N_BUILTIN:
		if (n->type == BT_T_STACK)
			ustack(c, n);
		else
			builtin(c, n);
		break;
	case BT_N_VAR: bt_comp_emit(c, UTRACE_BOP_VLD, (unsigned)n->slot, 0, 0); break;
	case BT_N_MAP:
		bt_comp_key(c, n);
		bt_comp_emit(c, UTRACE_BOP_MGET, (unsigned)n->slot, c->p->helper_check >= 2,
			     c->p->helper_check >= 2 ? bt_comp_helper_err(c, n->loc, BT_HELPER_MAP_LOOKUP)
						     : 0);
		break;
	case BT_N_CALL: call_value(c, n); break;
	case BT_N_TUPLE:
		tuple(c, n);
		break;
	case BT_N_FIELD:
		bt_comp_expr(c, n->a);
		bt_comp_emit(c, UTRACE_BOP_TGET, (unsigned)n->ival, n->type != BT_T_INT, 0);
		break;
	case BT_N_CAST:
		bt_comp_expr(c, n->a);
		if (n->ival < 8)
			bt_comp_emit(c, UTRACE_BOP_EXT, (unsigned)n->ival, n->op[0] == 's', 0);
		break;
	case BT_N_DEREF:
	case BT_N_MEMBER:
	case BT_N_INDEX: bt_comp_mem(c, n); break;
	case BT_N_BINOP:
		if (!strcmp(n->op, "&&") || !strcmp(n->op, "||")) {
			logic(c, n);
			break;
		}
		if (bt_comp_ptr_arith(c, n))
			break;
		bt_comp_expr(c, n->a);
		bt_comp_expr(c, n->b);
		if (bt_comp_is_str(n->a))
			bt_comp_emit(c, !strcmp(n->op, "==") ? UTRACE_BOP_STREQ : UTRACE_BOP_STRNE,
				     0, 0, 0);
		else
			bt_comp_emit(c, bt_comp_binop(n->op), 0, 0, 0);
		break;
	case BT_N_UNOP:
		bt_comp_expr(c, n->a);
		bt_comp_emit(c,
			     n->op[0] == '!'   ? UTRACE_BOP_LNOT
			     : n->op[0] == '~' ? UTRACE_BOP_BNOT
					       : UTRACE_BOP_NEG,
			     0, 0, 0);
		break;
	case BT_N_TERNARY:
		bt_comp_expr(c, n->a);
		j = bt_comp_emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		bt_comp_expr(c, n->b);
		end = bt_comp_emit(c, UTRACE_BOP_JMP, 0, 0, 0);
		bt_comp_patch(c, j);
		bt_comp_expr(c, n->c);
		bt_comp_patch(c, end);
		break;
	case BT_N_INCDEC: incdec(c, n); break;
	default: bt_comp_unsupported(c, n, "this expression"); break;
	}
}
