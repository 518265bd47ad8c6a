/* SPDX-License-Identifier: MIT */
/*
 * bt_check_call.c - the checker's half for functions and maps: each
 * function's number and kind of arguments (bpftrace's messages), the
 * maps' keys and values kept as their first use made them, printf's
 * format string against its arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_prog.h"
#include "lib/bt/bt_check.h"
#include "lib/bt/bt_print.h"

enum fn_kind { FN_AGG, FN_VALUE, FN_STMT, FN_MAP };

static const struct fn {
	const char *name;
	unsigned min, max;
	enum fn_kind kind;
	enum bt_type type; /* FN_VALUE's result */
	int agg;
} fns[] = {
    {"count", 0, 0, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_COUNT},
    {"sum", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_SUM},
    {"avg", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_AVG},
    {"min", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_MIN},
    {"max", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_MAX},
    {"stats", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_STATS},
    {"hist", 1, 1, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_HIST},
    {"lhist", 4, 4, FN_AGG, BT_T_AGG, UTRACE_BT_AGG_LHIST},
    {"printf", 1, 1 + UTRACE_BT_EMIT_MAX, FN_STMT, BT_T_NONE, -1},
    {"print", 1, 3, FN_STMT, BT_T_NONE, -1},
    {"clear", 1, 1, FN_MAP, BT_T_NONE, -1},
    {"zero", 1, 1, FN_MAP, BT_T_NONE, -1},
    {"delete", 1, 1, FN_MAP, BT_T_NONE, -1},
    {"exit", 0, 0, FN_STMT, BT_T_NONE, -1},
    {"time", 0, 1, FN_STMT, BT_T_NONE, -1},
    {"system", 1, 1 + UTRACE_BT_EMIT_MAX, FN_STMT, BT_T_NONE, -1},
    {"cat", 1, 1 + UTRACE_BT_EMIT_MAX, FN_STMT, BT_T_NONE, -1},
    {"join", 1, 2, FN_STMT, BT_T_NONE, -1},
    {"str", 1, 2, FN_VALUE, BT_T_STR, -1},
    {"ustack", 0, 2, FN_VALUE, BT_T_STACK, -1},
    {"usym", 1, 1, FN_VALUE, BT_T_USYM, -1},
    {"bswap", 1, 1, FN_VALUE, BT_T_INT, -1},
    {"strncmp", 3, 3, FN_VALUE, BT_T_INT, -1},
    {"strcontains", 2, 2, FN_VALUE, BT_T_INT, -1},
    {"sizeof", 1, 1, FN_VALUE, BT_T_INT, -1},
    {"strftime", 2, 2, FN_VALUE, BT_T_STR, -1},
    {"buf", 1, 2, FN_VALUE, BT_T_BUF, -1},
    {"ntop", 1, 2, FN_VALUE, BT_T_STR, -1},
    {"reg", 1, 1, FN_VALUE, BT_T_INT, -1},
    {"macaddr", 1, 1, FN_VALUE, BT_T_STR, -1},
    {"strerror", 1, 1, FN_VALUE, BT_T_STR, -1},
    {"uaddr", 1, 1, FN_VALUE, BT_T_INT, -1},
    {"pton", 1, 1, FN_VALUE, BT_T_INT, -1},
};

static int nargs_error(struct bt_checker *ck, const struct bt_node *n, const struct fn *f)
{
	if (f->max == 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NARGS_NONE, f->name, n->nargs);
	if (f->min == f->max && f->min == 1)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NARGS_ONE, f->name, n->nargs);
	if (f->min == f->max)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NARGS_N, f->name, f->min, n->nargs);
	if (n->nargs > f->max)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NARGS_AT_MOST, f->name, f->max,
				n->nargs);
	return bt_error(ck->err, ck->p, n->loc, BT_ERR_NARGS_AT_LEAST, f->name, f->min,
			f->min == 1 ? "" : "s", n->nargs);
}

int bt_fmt_scan(const char *fmt, enum bt_fmt_conv *conv, char (*spec)[8], unsigned max)
{
	unsigned n = 0;

	for (const char *s = fmt; *s; s++) {
		const char *c;
		unsigned k = 0;
		bool raw;

		if (*s != '%')
			continue;
		if (s[1] == '%') {
			s++;
			continue;
		}
		for (c = s + 1; *c && strchr("-+ #0", *c); c++)
			;
		while (isdigit((unsigned char)*c) || *c == '.')
			c++;
		if (n == max)
			return -1;
		while (*c == 'l' || *c == 'h' || *c == 'z' || *c == 'j' || *c == 't') {
			if (k < 6)
				spec[n][k++] = *c;
			c++;
		}
		if (!*c || !strchr("diuxXocspr", *c))
			return -1;
		raw = *c == 'r';
		spec[n][k++] = *c;
		if (raw && (c[1] == 'x' || c[1] == 'h')) /* bpftrace's %rx, %rh */
			spec[n][k++] = *++c;
		spec[n][k] = 0;
		conv[n++] = raw		? BT_FMT_BUF
			    : *c == 's' ? BT_FMT_STR
			    : *c == 'c' ? BT_FMT_CHAR
			    : *c == 'p' ? BT_FMT_PTR
			    : strchr("di", *c) ? BT_FMT_INT
					       : BT_FMT_UINT;
		s = c;
	}
	return (int)n;
}

static int check_printf(struct bt_checker *ck, struct bt_node *n)
{
	enum bt_fmt_conv conv[UTRACE_BT_EMIT_MAX];
	char spec[UTRACE_BT_EMIT_MAX][8];
	int nc;

	if (n->args[0]->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_FIRST, n->str,
				n->args[0]->type == BT_T_INT ? "integer" : "string");
	nc = bt_fmt_scan(n->args[0]->str, conv, spec, UTRACE_BT_EMIT_MAX);
	if (nc < 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_BAD, n->str);
	if ((unsigned)nc > n->nargs - 1)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_FEW, n->str, n->nargs - 1,
				(unsigned)nc);
	if ((unsigned)nc < n->nargs - 1)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_MANY, n->str, n->nargs - 1,
				(unsigned)nc);
	for (int i = 0; i < nc; i++) {
		enum bt_type t = n->args[i + 1]->type;
		bool want_str = conv[i] == BT_FMT_STR;
		bool is_str = t == BT_T_STR || t == BT_T_USYM || t == BT_T_STACK;

		if ((conv[i] == BT_FMT_BUF) != (t == BT_T_BUF))
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_TYPE, n->str, spec[i],
					conv[i] == BT_FMT_BUF ? "buffer" : want_str ? "string"
										     : "integer",
					t == BT_T_BUF ? "buffer" : is_str ? "string" : "integer");
		if (conv[i] != BT_FMT_BUF && want_str != is_str)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_TYPE, n->str, spec[i],
					want_str ? "string" : "integer",
					is_str ? "string" : "integer");
	}
	return 0;
}

/* Whether argument i of call n is ustack's stack mode: the word `perf`
 * or `bpftrace`, first of two or alone (bpftrace's STACK_MODE token). */
static bool bt_stack_mode_arg(const char *fn, const struct bt_node *n, unsigned i)
{
	const struct bt_node *a = n->args[i];

	return i == 0 && !strcmp(fn, "ustack") && a->kind == BT_N_BUILTIN &&
	       (!strcmp(a->str, "perf") || !strcmp(a->str, "bpftrace"));
}

/* ustack's arguments: a mode, a number of frames (a literal), or both. */
static int check_ustack(struct bt_checker *ck, const struct bt_node *n)
{
	unsigned first = n->nargs && bt_stack_mode_arg("ustack", n, 0);

	if (n->nargs == 2 && !first)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, "ustack", "mode");
	for (unsigned i = first; i < n->nargs; i++)
		if (n->args[i]->kind != BT_N_INT || n->args[i]->ival < 0)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, "ustack", "limit");
	return 0;
}

static int check_args(struct bt_checker *ck, struct bt_node *n, const struct fn *f)
{
	int ret;

	for (unsigned i = 0; i < n->nargs; i++) {
		struct bt_node *a = n->args[i];

		if (f->kind == FN_MAP || (i == 0 && !strcmp(f->name, "print") &&
					  a->kind == BT_N_MAP && !a->nargs)) {
			if (a->kind != BT_N_MAP)
				return bt_error(ck->err, ck->p, n->loc, BT_ERR_MAP_ARG, f->name);
			if ((ret = bt_check_map_whole(ck, a)) < 0)
				return ret;
			continue;
		}
		if (bt_stack_mode_arg(f->name, n, i))
			continue; /* ustack(perf), ustack(bpftrace, N) */
		if ((ret = ck->expr(ck, a)) < 0)
			return ret;
		if (a->type == BT_T_AGG)
			return bt_error(ck->err, ck->p, a->loc, BT_ERR_AGG_ASSIGN, a->str);
	}
	return 0;
}

/* bpftrace's name of a value's kind (its Type enum) */
static const char *kind_name(enum bt_type t)
{
	return t == BT_T_INT ? "integer" : t == BT_T_STR ? "string" : t == BT_T_TUPLE ? "tuple"
	       : t == BT_T_BUF ? "buffer" : t == BT_T_RECORD ? "record" : t == BT_T_USYM ? "usym"
	       : t == BT_T_STACK ? "ustack" : "none";
}

/* join(char **a [, "delim"]): bpftrace 0.17's errors (its first one
 * says "()" without the name). */
static int check_join(struct bt_checker *ck, const struct bt_node *n)
{
	if (n->args[0]->type != BT_T_INT)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_JOIN_ARG,
				kind_name(n->args[0]->type));
	if (n->nargs > 1 && n->args[1]->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_FIRST, "join",
				kind_name(n->args[1]->type));
	return 0;
}

/* lhist(v, min, max, step): literals (a negative one too: bt_parse.c),
 * then bpftrace 0.17's checks of their values in its order (it prints
 * every one that fails; this, the first). */
static int check_lhist(struct bt_checker *ck, const struct bt_node *n)
{
	long long min, max, step;

	for (unsigned i = 1; i < 4; i++)
		if (n->args[i]->kind != BT_N_INT)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_LITERAL,
					kind_name(n->args[i]->type));
	min = n->args[1]->ival;
	max = n->args[2]->ival;
	step = n->args[3]->ival;
	if (step <= 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_STEP, step);
	if ((max - min) / step > 1000)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_BUCKETS,
				(int)((max - min) / step));
	if (min < 0)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_MIN, min);
	if (min > max)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_ORDER, min, max);
	if (max - min < step)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_LHIST_RANGE, step, max - min);
	return 0;
}

static int check_special(struct bt_checker *ck, struct bt_node *n, const struct fn *f)
{
	char b1[24];

	if ((!strcmp(f->name, "str") || !strcmp(f->name, "join")) &&
	    n->args[0]->kind == BT_N_BUILTIN && n->args[0]->op[0] == 't' &&
	    n->args[0]->op[1] == 'k' && n->args[0]->slot >= 0 && n->args[0]->slot < 6)
		ck->p->tp_deref |= 1u << n->args[0]->slot; /* bt_kcap.c: read at the event */
	if (!strcmp(f->name, "join"))
		return check_join(ck, n);
	if (!strcmp(f->name, "printf") || !strcmp(f->name, "cat") || !strcmp(f->name, "system"))
		return check_printf(ck, n);
	if (!strcmp(f->name, "print") && n->args[0]->kind == BT_N_MAP && n->nargs > 1 &&
	    n->args[0]->slot >= 0 && ck->p->maps[n->args[0]->slot].assigned &&
	    ck->p->maps[n->args[0]->slot].agg == UTRACE_BT_AGG_STATS)
		bt_warning(ck->p, n->loc, "print()'s top and div arguments are ignored when used on "
					  "stats() maps.");
	if (!strcmp(f->name, "print") && n->args[0]->kind != BT_N_MAP && n->nargs > 1)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINT_NONMAP, n->nargs);
	if ((!strcmp(f->name, "print") || !strcmp(f->name, "str")) && n->nargs > 1)
		for (unsigned i = 1; i < n->nargs; i++)
			if (n->args[i]->kind != BT_N_INT)
				return bt_error(ck->err, ck->p, n->loc, BT_ERR_LITERAL_ARG, f->name,
						f->name[1] == 't' ? "length" : i == 1 ? "top" : "div");
	if (!strcmp(f->name, "lhist"))
		return check_lhist(ck, n);
	if (!strcmp(f->name, "ustack"))
		return check_ustack(ck, n);
	if ((f->kind == FN_AGG && f->min) || !strcmp(f->name, "str") || !strcmp(f->name, "usym") ||
	    !strcmp(f->name, "strerror")) {
		if (n->args[0]->type == BT_T_STR && !strcmp(f->name, "str"))
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_STR_FIRST,
					bt_value_name(ck->p, n->args[0], b1, sizeof(b1)));
		if (n->args[0]->type != BT_T_INT)
			return bt_error(ck->err, ck->p, n->loc, BT_ERR_INT_ARG, f->name);
	}
	if (!strcmp(f->name, "ntop") && bt_is_pton(n->args[n->nargs - 1]))
		return bt_check_ntop_pton(ck, n);
	if (!strcmp(f->name, "ntop") && (n->args[n->nargs - 1]->type != BT_T_INT ||
					 (n->nargs == 2 && (n->args[0]->kind != BT_N_INT ||
							    n->args[0]->ival != 2))))
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_NTOP);
	if (!strcmp(f->name, "time") && n->nargs && n->args[0]->kind != BT_N_STR)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_PRINTF_FIRST, "time", "integer");
	return 0;
}

int bt_check_call(struct bt_checker *ck, struct bt_node *n)
{
	const struct fn *f = NULL;
	int ret;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, n->str))
			f = &fns[i];
	if (!f)
		return bt_error(ck->err, ck->p, (struct bt_loc){n->loc.line, n->loc.col,
								n->loc.col + (unsigned)strlen(n->str)},
				BT_ERR_UNKNOWN_FUNC, n->str);
	if (!strcmp(f->name, "system") && !ck->p->unsafe)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_UNSAFE, f->name);
	if (n->nargs < f->min || n->nargs > f->max)
		return nargs_error(ck, n, f);
	if (f->type == BT_T_INT && f->kind == FN_VALUE)
		return bt_check_int_fn(ck, n);
	if (!strcmp(f->name, "strftime"))
		return bt_check_strftime(ck, n);
	if (!strcmp(f->name, "buf"))
		return bt_check_buf(ck, n);
	if (!strcmp(f->name, "macaddr"))
		return bt_check_macaddr(ck, n);
	if ((ret = check_args(ck, n, f)) < 0 || (ret = check_special(ck, n, f)) < 0)
		return ret;
	n->type = f->type;
	n->size = f->type == BT_T_STR ? 64 : 0;
	if (f->kind == FN_AGG && !ck->assigning_agg)
		return bt_error(ck->err, ck->p, n->loc, BT_ERR_AGG_ASSIGN, f->name);
	return 0;
}
