/* SPDX-License-Identifier: MIT */
/*
 * bt_compile.c - a probe's predicate and action into the stack machine of
 * common/bt_prog.h, once, in the tool.  Expressions leave one value on the
 * stack; statements leave none.  `@m[k] op= v` and `@m[k]++` read and
 * write the element with its key built twice (KEY before MGET and before
 * MSET), so that a map read inside v cannot change the key written.
 * Branches (if, ?:, && and ||, the predicate) jump forward only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_compile_internal.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_print.h"

static unsigned emit(struct comp *c, unsigned op, unsigned a, unsigned b, int64_t imm)
{
	if (c->n == c->cap) {
		unsigned cap = c->cap ? 2 * c->cap : 64;
		struct utrace_bt_insn *ins = realloc(c->ins, cap * sizeof(*ins));

		if (!ins || cap > UTRACE_BT_MAX_INSNS) {
			free(ins == c->ins ? NULL : ins);
			c->failed = c->failed ? c->failed : -E2BIG;
			return 0;
		}
		c->ins = ins;
		c->cap = cap;
	}
	c->ins[c->n] = (struct utrace_bt_insn){.op = (uint8_t)op, .a = (uint8_t)a,
					       .b = (uint16_t)b, .imm = imm};
	return c->n++;
}

static void patch(struct comp *c, unsigned at)
{
	if (at < c->n)
		c->ins[at].imm = c->n;
}

static void sconst(struct comp *c, const char *s)
{
	size_t len = strlen(s);
	char *d;

	if (len >= UTRACE_BT_STRLEN)
		len = UTRACE_BT_STRLEN - 1;
	d = realloc(c->data, c->ndata + len + 1);
	if (!d) {
		c->failed = -ENOMEM;
		return;
	}
	c->data = d;
	memcpy(d + c->ndata, s, len);
	d[c->ndata + len] = 0;
	emit(c, UTRACE_BOP_SCONST, 0, (unsigned)len, c->ndata);
	c->ndata += (unsigned)len + 1;
}

static bool is_str(const struct bt_node *n)
{
	return n->type == BT_T_STR || n->type == BT_T_USYM || n->type == BT_T_TUPLE ||
	       n->type == BT_T_BUF || n->type == BT_T_RECORD;
}

static void expr(struct comp *c, const struct bt_node *n);
static int64_t helper_err(struct comp *c, struct bt_loc loc, bool del);
static unsigned fmt_add(struct comp *c, const char *fmt);
static void stmts(struct comp *c, struct bt_node *const *s, unsigned n);

static void unsupported(struct comp *c, const struct bt_node *n, const char *what)
{
	if (!c->failed)
		c->failed = utrace_error_set(c->err, -EINVAL,
					     "%s:%u:%u: %s is not supported by utrace bt yet",
					     c->p->name, n->loc.line, n->loc.col, what);
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
		emit(c, UTRACE_BOP_ARG, (unsigned)n->slot, 0, 0);
		if (n->type == BT_T_STR)
			emit(c, UTRACE_BOP_STR, 0, 0, 0);
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
		emit(c, UTRACE_BOP_ARG, (unsigned)(n->str[3] - '0'), 0, 0);
		return;
	}
	if (!strcmp(n->str, "comm")) {
		emit(c, UTRACE_BOP_COMM, 0, 0, 0);
		return;
	}
	if (!strcmp(n->str, "username")) { /* uid's name, as bpftrace's /etc/passwd */
		emit(c, UTRACE_BOP_BUILTIN, UTRACE_BB_UID, 0, 0);
		emit(c, UTRACE_BOP_NAME, UTRACE_BN_USER, 0, 0);
		return;
	}
	if (!strcmp(n->str, "probe") || !strcmp(n->str, "func")) {
		char buf[UTRACE_BT_STRLEN];

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
		sconst(c, buf);
		return;
	}
	for (unsigned i = 0; i < UTRACE_BB_MAX; i++)
		if (names[i] && !strcmp(names[i], n->str)) {
			emit(c, UTRACE_BOP_BUILTIN, i, 0, 0);
			return;
		}
	unsupported(c, n, n->str);
}

/* The keys of map node m, then KEY. */
static void key(struct comp *c, const struct bt_node *m)
{
	for (unsigned i = 0; i < m->nargs; i++)
		expr(c, m->args[i]);
	emit(c, UTRACE_BOP_KEY, (unsigned)m->slot, m->nargs, 0);
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

static unsigned binop_code(const char *op)
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

	expr(c, n->a);
	if (!and)
		emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	j1 = emit(c, UTRACE_BOP_JZ, 0, 0, 0); /* &&: a false; ||: a true */
	expr(c, n->b);
	emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	emit(c, UTRACE_BOP_LNOT, 0, 0, 0);
	end = emit(c, UTRACE_BOP_JMP, 0, 0, 0);
	patch(c, j1);
	emit(c, UTRACE_BOP_PUSH, 0, 0, and ? 0 : 1);
	patch(c, end);
}

static void incdec(struct comp *c, const struct bt_node *n)
{
	unsigned op = n->op[0] == '+' ? UTRACE_BOP_ADD : UTRACE_BOP_SUB;
	const struct bt_node *t = n->a;

	if (t->kind == BT_N_VAR) {
		emit(c, UTRACE_BOP_VLD, (unsigned)t->slot, 0, 0);
	} else {
		key(c, t);
		emit(c, UTRACE_BOP_MGET, (unsigned)t->slot, 0, 0);
	}
	emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t));
	emit(c, op, 0, 0, 0);
	emit(c, UTRACE_BOP_DUP, 0, 0, 0);
	if (t->kind == BT_N_VAR) {
		emit(c, UTRACE_BOP_VST, (unsigned)t->slot, 0, 0);
	} else {
		key(c, t);
		emit(c, UTRACE_BOP_MSET, (unsigned)t->slot, 0, 0);
	}
	if (n->post) { /* the value before */
		emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t));
		emit(c, op == UTRACE_BOP_ADD ? UTRACE_BOP_SUB : UTRACE_BOP_ADD, 0, 0, 0);
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
	emit(c, UTRACE_BOP_USTACK, mode, 0, limit);
}

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
		expr(c, n->args[0]);
		emit(c, UTRACE_BOP_USYM, 0, 0, 0);
		return;
	}
	if (!strcmp(n->str, "str")) {
		int64_t len = n->nargs > 1 ? n->args[1]->ival : 0;

		expr(c, n->args[0]);
		/* bpftrace 0.17's str(x, n): n characters */
		emit(c, UTRACE_BOP_STR, 0,
		     len > 0 && len < UTRACE_BT_STRLEN ? (unsigned)len : 0, 0);
		return;
	}
	if (!strcmp(n->str, "sizeof")) {
		emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival);
		return;
	}
	if (!strcmp(n->str, "ntop") && bt_is_pton(n->args[n->nargs - 1])) {
		char text[64];

		bt_ntop_pton_text(n, text, sizeof(text));
		sconst(c, text);
		return;
	}
	if (!strcmp(n->str, "pton")) {
		unsupported(c, n, "pton() other than as ntop()'s argument (its uint8 array)");
		return;
	}
	if (!strcmp(n->str, "ntop")) {
		expr(c, n->args[n->nargs - 1]);
		emit(c, UTRACE_BOP_NTOP, 0, 0, 0);
		return;
	}
	if (!strcmp(n->str, "buf")) {
		expr(c, n->args[0]);
		emit(c, UTRACE_BOP_BUF, 0, 0, n->size);
		return;
	}
	if (!strcmp(n->str, "strftime")) {
		expr(c, n->args[1]);
		emit(c, UTRACE_BOP_STRFTIME, 0, 0, fmt_add(c, n->args[0]->str));
		return;
	}
	if (!strcmp(n->str, "bswap")) {
		expr(c, n->args[0]);
		emit(c, UTRACE_BOP_BSWAP, bt_int_bytes(n->args[0]), 0, 0);
		return;
	}
	if (!strcmp(n->str, "strncmp")) {
		expr(c, n->args[0]);
		expr(c, n->args[1]);
		emit(c, UTRACE_BOP_STRNCMP, 0, 0, n->args[2]->ival);
		return;
	}
	if (!strcmp(n->str, "uaddr")) { /* the checker's address */
		emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival);
		return;
	}
	if (!strcmp(n->str, "strerror")) {
		expr(c, n->args[0]);
		emit(c, UTRACE_BOP_NAME, UTRACE_BN_ERRNO, 0, 0);
		return;
	}
	if (!strcmp(n->str, "strcontains")) {
		expr(c, n->args[0]);
		expr(c, n->args[1]);
		emit(c, UTRACE_BOP_STRSTR, 0, 0, 0);
		return;
	}
	unsupported(c, n, n->str);
}

/* (a, b, ...): its elements, then TUPLE. */
static void tuple(struct comp *c, const struct bt_node *n)
{
	uint32_t strs = 0;
	int64_t tuples = 0;
	unsigned at;

	for (unsigned i = 0; i < n->nargs; i++) {
		expr(c, n->args[i]);
		if (is_str(n->args[i]))
			strs |= 1u << i;
		if (n->args[i]->type == BT_T_TUPLE || n->args[i]->type == BT_T_RECORD)
			tuples |= 1ll << i;
	}
	at = emit(c, UTRACE_BOP_TUPLE, 0, n->nargs, tuples);
	if (at < c->n)
		c->ins[at].key_str = strs;
}

static void expr(struct comp *c, const struct bt_node *n)
{
	unsigned j, end;

	switch (n->kind) {
	case BT_N_INT: emit(c, UTRACE_BOP_PUSH, 0, 0, n->ival); break;
	case BT_N_STR: sconst(c, n->str); break;
	case BT_N_BUILTIN:
		if (n->type == BT_T_STACK)
			ustack(c, n);
		else
			builtin(c, n);
		break;
	case BT_N_VAR: emit(c, UTRACE_BOP_VLD, (unsigned)n->slot, 0, 0); break;
	case BT_N_MAP:
		key(c, n);
		emit(c, UTRACE_BOP_MGET, (unsigned)n->slot, c->p->helper_check >= 2,
		     c->p->helper_check >= 2 ? helper_err(c, n->loc, false) : 0);
		break;
	case BT_N_CALL: call_value(c, n); break;
	case BT_N_TUPLE:
		tuple(c, n);
		break;
	case BT_N_FIELD:
		expr(c, n->a);
		emit(c, UTRACE_BOP_TGET, (unsigned)n->ival, n->type != BT_T_INT, 0);
		break;
	case BT_N_CAST:
		expr(c, n->a);
		if (n->ival < 8)
			emit(c, UTRACE_BOP_EXT, (unsigned)n->ival, n->op[0] == 's', 0);
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
		expr(c, n->a);
		expr(c, n->b);
		if (is_str(n->a))
			emit(c, !strcmp(n->op, "==") ? UTRACE_BOP_STREQ : UTRACE_BOP_STRNE, 0, 0, 0);
		else
			emit(c, binop_code(n->op), 0, 0, 0);
		break;
	case BT_N_UNOP:
		expr(c, n->a);
		emit(c, n->op[0] == '!' ? UTRACE_BOP_LNOT : n->op[0] == '~' ? UTRACE_BOP_BNOT
									 : UTRACE_BOP_NEG,
		     0, 0, 0);
		break;
	case BT_N_TERNARY:
		expr(c, n->a);
		j = emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		expr(c, n->b);
		end = emit(c, UTRACE_BOP_JMP, 0, 0, 0);
		patch(c, j);
		expr(c, n->c);
		patch(c, end);
		break;
	case BT_N_INCDEC: incdec(c, n); break;
	default: unsupported(c, n, "this expression"); break;
	}
}

static unsigned fmt_add(struct comp *c, const char *fmt)
{
	char **f = realloc(c->fmts->fmts, (c->fmts->n + 1) * sizeof(*f));
	uint32_t *st = realloc(c->fmts->stacks, (c->fmts->n + 1) * sizeof(*st));

	if (st) {
		c->fmts->stacks = st;
		st[c->fmts->n] = 0;
	}

	if (!f || !st || !(f[c->fmts->n] = strdup(fmt))) {
		if (f)
			c->fmts->fmts = f;
		c->failed = -ENOMEM;
		return 0;
	}
	c->fmts->fmts = f;
	return c->fmts->n++;
}

/* -k: the record id of a map helper's failure at loc. */
static int64_t helper_err(struct comp *c, struct bt_loc loc, bool del)
{
	char *text = bt_helper_err_text(c->p, loc, del);
	unsigned id;

	if (!text) {
		c->failed = -ENOMEM;
		return 0;
	}
	id = fmt_add(c, text);
	free(text);
	return id;
}

/* EMIT of kind with the values of args (already pushed). */
static void emit_rec(struct comp *c, unsigned kind, struct bt_node *const *args, unsigned n,
		     int64_t id)
{
	unsigned at = emit(c, UTRACE_BOP_EMIT, kind, n, id);

	for (unsigned i = 0; i < n && kind == UTRACE_BREC_PRINTF && !c->failed; i++)
		if (args[i]->type == BT_T_STACK) /* its id: bt_format.c prints its frames */
			c->fmts->stacks[id] |= 1u << i;
	for (unsigned i = 0; i < n && at < c->n; i++)
		if (is_str(args[i]))
			c->ins[at].key_str |= 1u << i;
}

static void call_stmt(struct comp *c, const struct bt_node *n)
{
	const char *f = n->str;

	if (!strcmp(f, "printf") || !strcmp(f, "cat") || !strcmp(f, "system")) {
		for (unsigned i = 1; i < n->nargs; i++)
			expr(c, n->args[i]);
		emit_rec(c, f[0] == 'p' ? UTRACE_BREC_PRINTF : f[0] == 'c' ? UTRACE_BREC_CAT
									  : UTRACE_BREC_SYSTEM,
			 n->args + 1, n->nargs - 1, fmt_add(c, n->args[0]->str));
	} else if (!strcmp(f, "print") && n->args[0]->kind == BT_N_MAP && !n->args[0]->nargs) {
		emit(c, UTRACE_BOP_PUSH, 0, 0, n->nargs > 1 ? n->args[1]->ival : 0);
		emit(c, UTRACE_BOP_PUSH, 0, 0, n->nargs > 2 ? n->args[2]->ival : 0);
		emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_PRINT_MAP, 2, n->args[0]->slot);
	} else if (!strcmp(f, "print")) {
		expr(c, n->args[0]);
		emit_rec(c, UTRACE_BREC_PRINT, n->args, 1,
			 n->args[0]->type == BT_T_TUPLE || n->args[0]->type == BT_T_RECORD ? 2
			 : n->args[0]->type == BT_T_STACK ? 3
							  : is_str(n->args[0]));
	} else if (!strcmp(f, "clear") || !strcmp(f, "zero")) {
		emit(c, UTRACE_BOP_EMIT, f[0] == 'c' ? UTRACE_BREC_CLEAR : UTRACE_BREC_ZERO, 0,
		     n->args[0]->slot);
	} else if (!strcmp(f, "delete")) {
		key(c, n->args[0]);
		emit(c, UTRACE_BOP_MDEL, (unsigned)n->args[0]->slot, c->p->helper_check >= 1,
		     c->p->helper_check >= 1 ? helper_err(c, n->loc, true) : 0);
	} else if (!strcmp(f, "exit")) {
		emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_EXIT, 0, 0);
	} else if (!strcmp(f, "time")) {
		emit(c, UTRACE_BOP_EMIT, UTRACE_BREC_TIME, 0,
		     fmt_add(c, n->nargs ? n->args[0]->str : "%H:%M:%S\n"));
	} else {
		expr(c, n);
		emit(c, UTRACE_BOP_POP, 0, 0, 0);
	}
}

static void assign(struct comp *c, const struct bt_node *s)
{
	const struct bt_node *t = s->a, *v = s->b;
	int agg = v->kind == BT_N_CALL ? bt_agg_of(v->str) : -1;
	bool plain = !strcmp(s->op, "=");

	if (t->kind == BT_N_MAP && agg >= 0) {
		if (v->nargs)
			expr(c, v->args[0]);
		key(c, t);
		emit(c, UTRACE_BOP_AGG, (unsigned)t->slot, (unsigned)agg, 0);
		return;
	}
	if (!plain) {
		if (t->kind == BT_N_VAR) {
			emit(c, UTRACE_BOP_VLD, (unsigned)t->slot, 0, 0);
		} else {
			key(c, t);
			emit(c, UTRACE_BOP_MGET, (unsigned)t->slot, 0, 0);
		}
	}
	expr(c, v);
	if (!plain && (s->op[0] == '+' || s->op[0] == '-') && bt_comp_scale(c, t) > 1) {
		emit(c, UTRACE_BOP_PUSH, 0, 0, bt_comp_scale(c, t)); /* p += i: i elements */
		emit(c, UTRACE_BOP_MUL, 0, 0, 0);
	}
	if (!plain)
		emit(c, binop_code(s->op), 0, 0, 0);
	if (t->kind == BT_N_VAR && plain)
		bt_comp_var_sym(c, t, v, c->depth == 0);
	if (t->kind == BT_N_VAR) {
		emit(c, UTRACE_BOP_VST, (unsigned)t->slot, is_str(v), 0);
		return;
	}
	if (plain)
		bt_comp_map_sym(c, t, v, c->depth == 0);
	key(c, t);
	emit(c, UTRACE_BOP_MSET, (unsigned)t->slot, 0, 0);
}

static void stmt(struct comp *c, const struct bt_node *s)
{
	unsigned j, end;

	switch (s->kind) {
	case BT_N_ASSIGN: assign(c, s); break;
	case BT_N_IF:
		expr(c, s->a);
		j = emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		c->depth++;
		stmts(c, s->body, s->nbody);
		if (s->norelse) {
			end = emit(c, UTRACE_BOP_JMP, 0, 0, 0);
			patch(c, j);
			stmts(c, s->orelse, s->norelse);
			j = end;
		}
		c->depth--;
		patch(c, j);
		break;
	case BT_N_WHILE: /* the condition, the body, LOOP back to the condition */
		end = c->n;
		expr(c, s->a);
		j = emit(c, UTRACE_BOP_JZ, 0, 0, 0);
		c->depth++;
		stmts(c, s->body, s->nbody);
		c->depth--;
		emit(c, UTRACE_BOP_LOOP, 0, 0, end);
		patch(c, j);
		break;
	case BT_N_UNROLL:
		c->depth++;
		for (int64_t i = 0; i < s->ival && i < 100; i++)
			stmts(c, s->body, s->nbody);
		c->depth--;
		break;
	case BT_N_EXPR:
		if (s->a->kind == BT_N_CALL) {
			call_stmt(c, s->a);
			break;
		}
		expr(c, s->a);
		emit(c, UTRACE_BOP_POP, 0, 0, 0);
		break;
	default: unsupported(c, s, "this statement"); break;
	}
}

static void stmts(struct comp *c, struct bt_node *const *s, unsigned n)
{
	for (unsigned i = 0; i < n && !c->failed; i++)
		stmt(c, s[i]);
}

/* The header, the maps' descriptions, the instructions, the data. */
static int finish(struct comp *c, struct bt_code *out)
{
	const struct bt_program *p = c->p;
	size_t head = sizeof(struct utrace_bt_hdr) + p->nmaps * sizeof(struct utrace_bt_mapdesc);
	size_t len = head + c->n * sizeof(struct utrace_bt_insn) + c->ndata;
	uint8_t *b = calloc(1, len);
	struct utrace_bt_hdr *h = (struct utrace_bt_hdr *)b;
	struct utrace_bt_mapdesc *m = (struct utrace_bt_mapdesc *)(h + 1);

	if (!b)
		return -ENOMEM;
	*h = (struct utrace_bt_hdr){(uint32_t)len, UTRACE_BT_MAGIC, c->n, p->nmaps};
	for (unsigned i = 0; i < p->nmaps; i++) {
		const struct bt_mapdef *d = &p->maps[i];

		m[i] = (struct utrace_bt_mapdesc){.nkeys = d->nkeys, .agg = (uint32_t)d->agg,
						  .value_str = d->vtype == BT_T_TUPLE ||
								       d->vtype == BT_T_RECORD ? 2u
							       : d->vtype == BT_T_BUF ? 3u
			       : d->vtype == BT_T_STR ||
								       d->vtype == BT_T_USYM,
						  .lmin = d->lmin, .lmax = d->lmax, .lstep = d->lstep};
		for (unsigned k = 0; k < d->nkeys; k++)
			if (d->key_types[k] == BT_T_STR || d->key_types[k] == BT_T_USYM)
				m[i].key_str |= 1u << k;
			else if (d->key_types[k] == BT_T_BUF)
				m[i].key_str |= 1u << k | 1u << (16 + k);
			else if (d->key_types[k] == BT_T_RECORD || d->key_types[k] == BT_T_TUPLE)
				m[i].key_str |= 1u << k | 1u << (8 + k);
	}
	for (unsigned i = 0; i < c->n; i++)
		if (c->ins[i].op == UTRACE_BOP_SCONST)
			c->ins[i].imm += (int64_t)(head + c->n * sizeof(struct utrace_bt_insn));
	if (c->n) /* an empty action has no instructions, no data */
		memcpy(b + head, c->ins, c->n * sizeof(struct utrace_bt_insn));
	if (c->ndata)
		memcpy(b + head + c->n * sizeof(struct utrace_bt_insn), c->data, c->ndata);
	out->prog = b;
	out->len = (uint32_t)len;
	return utrace_bt_check(b, out->len) ? -EINVAL : 0;
}

int bt_compile(const struct bt_program *p, const struct bt_probe *pr, const struct bt_attach *ap,
	       const char *func, struct bt_formats *fmts, struct bt_code *out,
	       struct utrace_error *err)
{
	static const struct bt_comp_ops ops = {emit, expr, unsupported};
	struct comp c = {.ops = &ops, .p = p, .ap = ap, .func = func, .fmts = fmts, .err = err};
	unsigned j = UINT32_MAX;
	int ret;

	bt_comp_count_vars(&c, pr->body, pr->nbody);
	if (pr->pred) {
		expr(&c, pr->pred);
		j = emit(&c, UTRACE_BOP_JZ, 0, 0, 0);
	}
	stmts(&c, pr->body, pr->nbody);
	if (j != UINT32_MAX)
		patch(&c, j);
	ret = c.failed;
	if (!ret)
		ret = finish(&c, out);
	out->fields = c.fields;
	out->nfields = c.nfields;
	out->ftypes = c.ftypes;
	out->p = p;
	if (ret == -E2BIG || ret == -ENOMEM)
		utrace_error_set(err, ret, "%s", ret == -E2BIG ? "program too large" : "out of memory");
	else if (ret == -EINVAL && !err->msg[0])
		utrace_error_set(err, ret, "internal error: the compiled program does not check");
	free(c.ins);
	free(c.data);
	bt_comp_mem_free(&c);
	return ret;
}

void bt_formats_free(struct bt_formats *f)
{
	for (unsigned i = 0; i < f->n; i++)
		free(f->fmts[i]);
	free(f->fmts);
	free(f->stacks);
	f->stacks = NULL;
	f->fmts = NULL;
	f->n = 0;
}
