/* SPDX-License-Identifier: MIT */
/*
 * hist_expr.c - the expressions of hist triggers (keys, values, variables)
 * and the kernel's names for them.
 *
 * The kernel's grammar has no precedence climbing and no parentheses: an
 * expression is split at its last '-' or '+' (the last '/' or '*' if it
 * has neither), so "a-b-c" is (a-b)-c, and a '-' at the very start is a
 * unary minus that must be written -(...) and must be the whole
 * expression.  At most 3 operators (TOO_MANY_SUBEXPR).  This file does the
 * same cuts on the same strings as parse_expr(), parse_unary(),
 * parse_atom() and parse_field() of kernel/trace/trace_events_hist.c, so
 * that what the kernel accepts, rejects, and where it says the error is
 * are the same.  Whether a field exists is the compiler's question.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_internal.h"

int hist_fail(struct hist_parser *hp, int code, int errnum, unsigned kpos)
{
	if (!hp->errnum) {
		hp->code = code;
		hp->errnum = errnum;
		hp->kpos = kpos;
	}
	return -1;
}

int hist_fail_einval(struct hist_parser *hp, const char *why)
{
	if (!hp->errnum)
		hp->why = why;
	return hist_fail(hp, -1, -EINVAL, 0);
}

unsigned hist_errpos(const struct hist_parser *hp, const char *text)
{
	const char *p = text ? strstr(hp->cmd, text) : NULL;

	return p ? (unsigned)(p - hp->cmd) : 0;
}

unsigned hist_kcol(const struct hist_parser *hp, unsigned kpos)
{
	return kpos >= 5 ? hp->param_col + kpos - 5 : hp->cmd_col + kpos;
}

unsigned hist_col(const struct hist_parser *hp, const char *p)
{
	return hp->param_col + (unsigned)(p - hp->buf);
}

int hist_strtou64(const char *s, uint64_t *v)
{
	unsigned base = 10;
	uint64_t x = 0;
	const char *p;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (p = s; *p; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (d >= base || x > (UINT64_MAX - d) / base)
			return -1;
		x = x * base + d;
	}
	/* the kernel allows one trailing newline */
	if (p == s || (*p && !(*p == '\n' && !p[1])))
		return -1;
	*v = x;
	return 0;
}

static struct utrace_hist_expr *new_expr(struct hist_parser *hp, enum utrace_hist_expr_op op,
					 unsigned pos)
{
	struct utrace_hist_expr *e = calloc(1, sizeof(*e));

	if (!e) {
		hist_fail(hp, -1, -ENOMEM, 0);
		return NULL;
	}
	e->op = op;
	e->pos = pos;
	return e;
}

void hist_expr_free(struct utrace_hist_expr *e)
{
	if (!e)
		return;
	hist_expr_free(e->l);
	hist_expr_free(e->r);
	free(e->name);
	free(e);
}

int hist_expr_has_ref(const struct utrace_hist_expr *e)
{
	return e && (e->op == UTRACE_HE_VAR_REF || hist_expr_has_ref(e->l) ||
		     hist_expr_has_ref(e->r));
}

/* The kernel folds an operator whose operands are both constants. */
int hist_expr_is_const(const struct utrace_hist_expr *e)
{
	if (e->op == UTRACE_HE_CONST)
		return 1;
	return e->l && e->r && hist_expr_is_const(e->l) && hist_expr_is_const(e->r);
}

static uint64_t const_value(const struct utrace_hist_expr *e)
{
	uint64_t a, b;

	if (e->op == UTRACE_HE_CONST)
		return e->constant;
	a = const_value(e->l);
	b = const_value(e->r);
	switch (e->op) {
	case UTRACE_HE_PLUS:
		return a + b;
	case UTRACE_HE_MINUS:
		return a - b;
	case UTRACE_HE_MULT:
		return a * b;
	default:
		return b ? a / b : (uint64_t)-1;
	}
}

/* Timestamp units: the kernel gives an expression those of its left operand;
 * a variable's are unknown until the compiler finds it (-1). */
static int usecs_of(const struct utrace_hist_expr *e)
{
	switch (e->op) {
	case UTRACE_HE_FIELD:
		return !!(e->mods & UTRACE_HIST_MOD_USECS);
	case UTRACE_HE_VAR_REF:
		return -1;
	case UTRACE_HE_CONST:
		return 0;
	default:
		return usecs_of(e->l);
	}
}

static const struct {
	const char *name;
	unsigned mod;
} plain_mods[] = {
    {"hex", UTRACE_HIST_MOD_HEX},	  {"sym", UTRACE_HIST_MOD_SYM},
    {"symXoffset", UTRACE_HIST_MOD_SYM_OFFSET}, {"syscall", UTRACE_HIST_MOD_SYSCALL},
    {"stacktrace", UTRACE_HIST_MOD_STACKTRACE}, {"log2", UTRACE_HIST_MOD_LOG2},
    {"usecs", UTRACE_HIST_MOD_USECS},
};

/* parse_field(): "name.modifier", on a copy as the kernel's kstrdup(). */
static int parse_field(struct hist_parser *hp, const char *str, enum hist_ctx ctx,
		       struct utrace_hist_expr *e)
{
	char *copy = strdup(str), *mod;
	unsigned i;
	int ret = 0;

	if (!copy)
		return hist_fail(hp, -1, -ENOMEM, 0);
	mod = strchr(copy, '.');
	if (mod)
		*mod++ = '\0';
	e->name = strdup(copy);
	if (!e->name) {
		free(copy);
		return hist_fail(hp, -1, -ENOMEM, 0);
	}
	if (!mod)
		goto out;
	for (i = 0; i < sizeof(plain_mods) / sizeof(plain_mods[0]); i++)
		if (!strcmp(mod, plain_mods[i].name)) {
			e->mods |= plain_mods[i].mod;
			goto out;
		}
	if (!strcmp(mod, "execname") && !strcmp(copy, "common_pid")) {
		e->mods |= UTRACE_HIST_MOD_EXECNAME;
	} else if (!strncmp(mod, "bucket", 6)) {
		/* "bucket=N" or "buckets=N"; the error points past what matched */
		mod += 6;
		if (*mod == 's')
			mod++;
		if (*mod != '=')
			goto bad;
		mod++;
		if (hist_strtou64(mod, &e->buckets) || !e->buckets)
			goto bad;
		e->mods |= UTRACE_HIST_MOD_BUCKETS;
	} else if (!strncmp(mod, "percent", 7) || !strncmp(mod, "graph", 5)) {
		/* a prefix is enough for the kernel too */
		if (ctx != HIST_CTX_VAL)
			goto bad;
		e->mods |= mod[0] == 'p' ? UTRACE_HIST_MOD_PERCENT : UTRACE_HIST_MOD_GRAPH;
	} else {
bad:
		ret = hist_fail(hp, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, -EINVAL, hist_errpos(hp, mod));
	}
out:
	free(copy);
	return ret;
}

/* "$name" standing for a variable of this trigger defined as a plain
 * field: the kernel reads the field instead (local_field_var_ref()). */
static const char *plain_var(const struct hist_parser *hp, const char *ref)
{
	for (unsigned i = 0; i < hp->nr_var_defs; i++) {
		const char *x = hp->var_expr[i];

		if (strcmp(ref + 1, hp->var_name[i]))
			continue;
		if (strpbrk(x, "+-*/") || (x[0] == '$' && x[1]))
			continue;
		return x;
	}
	return NULL;
}

/* parse_atom(): a constant, a variable reference or a field. */
static struct utrace_hist_expr *parse_atom(struct hist_parser *hp, char *str, enum hist_ctx ctx)
{
	char *sys = NULL, *event = NULL, *var = str, *s;
	struct utrace_hist_expr *e;
	const char *field;

	if (isdigit((unsigned char)str[0])) {
		e = new_expr(hp, UTRACE_HE_CONST, hist_col(hp, str));
		if (e && hist_strtou64(str, &e->constant)) {
			hist_fail(hp, UTRACE_HIST_ERR_EXPECT_NUMBER, -EINVAL, hist_errpos(hp, str));
			hist_expr_free(e);
			return NULL;
		}
		return e;
	}
	e = new_expr(hp, UTRACE_HE_FIELD, hist_col(hp, str));
	if (!e)
		return NULL;
	/* two dots: system.event.var */
	s = strchr(str, '.');
	if (s && strchr(s + 1, '.')) {
		sys = strsep(&var, ".");
		event = strsep(&var, ".");
	}
	field = var;
	if (var[0] == '$' && var[1]) {
		field = sys ? NULL : plain_var(hp, var);
		if (!field) {
			size_t n = strlen(var) + (sys ? strlen(sys) + strlen(event) + 2 : 0);

			e->op = UTRACE_HE_VAR_REF;
			e->name = malloc(n);
			if (!e->name) {
				hist_fail(hp, -1, -ENOMEM, 0);
				hist_expr_free(e);
				return NULL;
			}
			if (sys)
				snprintf(e->name, n, "%s.%s.%s", sys, event, var + 1);
			else
				snprintf(e->name, n, "%s", var + 1);
			return e;
		}
	}
	if (parse_field(hp, field, ctx, e)) {
		hist_expr_free(e);
		return NULL;
	}
	return e;
}

/* parse_unary(): only "-(...)", and only as a whole expression. */
static struct utrace_hist_expr *parse_unary(struct hist_parser *hp, char *str, unsigned *n)
{
	struct utrace_hist_expr *e, *op;
	char *s;

	if (++*n > UTRACE_HIST_SUBEXPR_MAX) {
		hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_SUBEXPR, -EINVAL, hist_errpos(hp, str));
		return NULL;
	}
	e = new_expr(hp, UTRACE_HE_UMINUS, hist_col(hp, str));
	if (!e)
		return NULL;
	str++;
	if (!strchr(str, '(')) {
		hist_fail_einval(hp, "unary minus needs parentheses");
		goto fail;
	}
	str++;
	s = strrchr(str, ')');
	if (!s) {
		hist_fail_einval(hp, "no closing parenthesis after unary minus");
		goto fail;
	}
	if (s[1]) {
		hist_fail(hp, UTRACE_HIST_ERR_UNARY_MINUS_SUBEXPR, -EINVAL, hist_errpos(hp, str));
		goto fail;
	}
	*s = '\0';
	op = hist_parse_expr(hp, str, HIST_CTX_VAL, n);
	if (!op)
		goto fail;
	e->l = op;
	return e;
fail:
	hist_expr_free(e);
	return NULL;
}

/* contains_operator(): the root operator, the rightmost of the lowest
 * precedence; *sep at it.  A '-' first is a unary minus. */
static enum utrace_hist_expr_op root_operator(char *str, char **sep)
{
	char *minus = strrchr(str, '-'), *plus, *div, *mult;

	*sep = NULL;
	if (minus == str) {
		*sep = minus;
		return UTRACE_HE_UMINUS;
	}
	plus = strrchr(str, '+');
	if (plus || minus) {
		*sep = plus > minus ? plus : minus;
		return plus > minus ? UTRACE_HE_PLUS : UTRACE_HE_MINUS;
	}
	div = strrchr(str, '/');
	mult = strrchr(str, '*');
	if (!div && !mult)
		return UTRACE_HE_FIELD;
	*sep = mult > div ? mult : div;
	return mult > div ? UTRACE_HE_MULT : UTRACE_HE_DIV;
}

struct utrace_hist_expr *hist_parse_expr(struct hist_parser *hp, char *str, enum hist_ctx ctx,
					 unsigned *n)
{
	struct utrace_hist_expr *e, *l, *r;
	enum utrace_hist_expr_op op;
	char *sep, *rhs;
	int ul, ur;

	if (*n > UTRACE_HIST_SUBEXPR_MAX) {
		hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_SUBEXPR, -EINVAL, hist_errpos(hp, str));
		return NULL;
	}
	op = root_operator(str, &sep);
	if (op == UTRACE_HE_FIELD)
		return parse_atom(hp, str, ctx);
	if (op == UTRACE_HE_UMINUS)
		return parse_unary(hp, str, n);
	++*n;
	*sep = '\0';
	rhs = sep + 1;
	if (!*str || !*rhs) {
		hist_fail_einval(hp, "operator without an operand");
		return NULL;
	}
	l = hist_parse_expr(hp, str, HIST_CTX_VAL, n);
	if (!l)
		return NULL;
	r = hist_parse_expr(hp, rhs, HIST_CTX_VAL, n);
	e = r ? new_expr(hp, op, l->pos) : NULL;
	if (!e) {
		hist_expr_free(l);
		hist_expr_free(r);
		return NULL;
	}
	e->l = l;
	e->r = r;
	/* check_expr_operands(): known units only, a variable's are not */
	ul = usecs_of(l);
	ur = usecs_of(r);
	if (ul >= 0 && ur >= 0 && ul != ur) {
		hist_fail(hp, UTRACE_HIST_ERR_TIMESTAMP_MISMATCH, -EINVAL, 0);
		goto fail;
	}
	if (op == UTRACE_HE_DIV && hist_expr_is_const(r) && !const_value(r)) {
		hist_fail(hp, UTRACE_HIST_ERR_DIVISION_BY_ZERO, -EDOM, hist_errpos(hp, rhs));
		goto fail;
	}
	return e;
fail:
	hist_expr_free(e);
	return NULL;
}

/* ---- names ---------------------------------------------------------- */

void hist_sb_printf(struct hist_sb *sb, const char *fmt, ...)
{
	size_t room = sb->len < sb->size ? sb->size - sb->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n;
}

const char *hist_mod_name(const struct utrace_hist_expr *e)
{
	static const struct {
		unsigned mod;
		const char *name;
	} order[] = {
	    {UTRACE_HIST_MOD_HEX, "hex"},	    {UTRACE_HIST_MOD_SYM, "sym"},
	    {UTRACE_HIST_MOD_SYM_OFFSET, "sym-offset"}, {UTRACE_HIST_MOD_EXECNAME, "execname"},
	    {UTRACE_HIST_MOD_SYSCALL, "syscall"},	    {UTRACE_HIST_MOD_LOG2, "log2"},
	    {UTRACE_HIST_MOD_BUCKETS, "buckets"},	    {UTRACE_HIST_MOD_USECS, "usecs"},
	    {UTRACE_HIST_MOD_PERCENT, "percent"},	    {UTRACE_HIST_MOD_GRAPH, "graph"},
	};
	unsigned mods = e->mods;

	/* an expression carries the units of its left operand */
	if (e->l && usecs_of(e) > 0)
		mods = UTRACE_HIST_MOD_USECS;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (mods & order[i].mod)
			return order[i].name;
	return NULL;
}

static int is_cpu(const struct utrace_hist_expr *e)
{
	return e->op == UTRACE_HE_FIELD &&
	       (!strcmp(e->name, "common_cpu") || !strcmp(e->name, "cpu") ||
		!strcmp(e->name, "CPU"));
}

static void expr_str(struct hist_sb *sb, const struct utrace_hist_expr *e, unsigned level);

/* expr_field_str(): an operand inside an expression's name. */
static void operand_str(struct hist_sb *sb, const struct utrace_hist_expr *e)
{
	const char *mod;

	if (e->op == UTRACE_HE_VAR_REF)
		hist_sb_printf(sb, "$");
	hist_name(sb, e);
	if (e->op != UTRACE_HE_VAR_REF && (mod = hist_mod_name(e)))
		hist_sb_printf(sb, ".%s", mod);
}

static void expr_str(struct hist_sb *sb, const struct utrace_hist_expr *e, unsigned level)
{
	static const char ops[] = {[UTRACE_HE_PLUS] = '+', [UTRACE_HE_MINUS] = '-',
				   [UTRACE_HE_MULT] = '*', [UTRACE_HE_DIV] = '/'};

	if (level > 1)
		return;
	if (!e->l) {
		operand_str(sb, e);
	} else if (e->op == UTRACE_HE_UMINUS) {
		hist_sb_printf(sb, "-(");
		expr_str(sb, e->l, level + 1);
		hist_sb_printf(sb, ")");
	} else {
		operand_str(sb, e->l);
		hist_sb_printf(sb, "%c", ops[e->op]);
		operand_str(sb, e->r);
	}
}

void hist_name(struct hist_sb *sb, const struct utrace_hist_expr *e)
{
	if (hist_expr_is_const(e))
		/* a constant's name is its value, folded as the kernel does */
		hist_sb_printf(sb, "%llu", (unsigned long long)const_value(e));
	else if (e->op == UTRACE_HE_FIELD || e->op == UTRACE_HE_VAR_REF)
		hist_sb_printf(sb, "%s", e->name);
	else
		expr_str(sb, e, 0);
}

void hist_field_print(struct hist_sb *sb, const struct utrace_hist_expr *e)
{
	const char *mod;

	if (is_cpu(e))
		hist_sb_printf(sb, "common_cpu");
	else if (e->op == UTRACE_HE_VAR_REF)
		hist_sb_printf(sb, "$%s", e->name);
	else
		hist_name(sb, e);
	if (e->op == UTRACE_HE_VAR_REF || (e->l && !hist_expr_is_const(e)))
		return;
	if ((mod = hist_mod_name(e)))
		hist_sb_printf(sb, ".%s", mod);
	if (e->mods & UTRACE_HIST_MOD_BUCKETS)
		hist_sb_printf(sb, "=%llu", (unsigned long long)e->buckets);
}

const char *utrace_hist_var_name(const char *name, char *sys, char *ev, size_t n)
{
	const char *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

	sys[0] = ev[0] = 0;
	if (d1 && !d2)
		return NULL;
	if (!d2)
		return name;
	snprintf(sys, n, "%.*s", (int)(d1 - name), name);
	snprintf(ev, n, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
	return d2 + 1;
}
