/* SPDX-License-Identifier: MIT */
/*
 * bt_param.c - bpftrace's positional parameters: `$1`, `$2` ... are the
 * words after the program on the command line, `$#` their count.  As
 * bpftrace does, they become literals when the program is parsed (so they
 * may stand where only a literal may: lhist's bounds, str()'s length): a
 * number (decimal, 0x hex, 0 octal) is an integer, another word a string,
 * a missing one 0; str($N) is the word itself ("" when missing), never
 * a read of memory at the number's address, and str($N + K) its bytes
 * from the K-th (bpftrace's "positional pointer arithmetics").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"

bool bt_param_is(const char *name)
{
	size_t i = 1;

	if (name[0] != '$')
		return false;
	if (!strcmp(name, "$#"))
		return true;
	while (name[i] >= '0' && name[i] <= '9')
		i++;
	return i > 1 && !name[i] && name[1] != '0';
}

/* The word of $N, NULL if there are fewer. */
static const char *param_word(const struct bt_program *p, const char *name)
{
	unsigned long k = strtoul(name + 1, NULL, 10);

	return k >= 1 && k <= p->nparams ? p->params[k - 1] : NULL;
}

static bool numeric(const char *w, int64_t *v)
{
	char *end;

	if (!*w)
		return false;
	*v = (int64_t)strtoll(w, &end, 0);
	return !*end;
}

int bt_param_node(const struct bt_program *p, struct bt_node *n)
{
	const char *w = strcmp(n->str, "$#") ? param_word(p, n->str) : NULL;
	int64_t v = 0;

	n->op[0] = '$'; /* a positional parameter: str() takes its word */
	n->pos = strcmp(n->str, "$#") ? (unsigned)strtoul(n->str + 1, NULL, 10) : 0;
	if (!strcmp(n->str, "$#")) {
		n->kind = BT_N_INT;
		n->ival = p->nparams;
	} else if (!w || numeric(w, &v)) {
		n->kind = BT_N_INT;
		n->ival = v;
	} else {
		free(n->str);
		if (!(n->str = strdup(w)))
			return -ENOMEM;
		n->kind = BT_N_STR;
		n->ival = (int64_t)strlen(w);
	}
	return 0;
}

static bool is_param(const struct bt_node *n)
{
	return n && n->op[0] == '$' && (n->kind == BT_N_INT || n->kind == BT_N_STR);
}

/* Whether n's tree holds a positional parameter. */
static bool has_param(const struct bt_node *n)
{
	if (!n)
		return false;
	if (is_param(n) || has_param(n->a) || has_param(n->b) || has_param(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (has_param(n->args[i]))
			return true;
	return false;
}

/* The word of parameter node a ("" when missing, as bpftrace's). */
static const char *word_of(const struct bt_program *p, const struct bt_node *a)
{
	const char *w = a->kind == BT_N_STR ? a->str
			: a->str && a->str[1] != '#' ? param_word(p, a->str)
						     : NULL;

	return w ? w : "";
}

/* str($N), str($N + K), str(K + $N) (bpftrace's semantic analyser):
 * a, the argument, names the word from its byte K (0 ≤ K ≤ its length),
 * *w; 0, or -EINVAL with err (bpftrace's errors and carets). */
static int param_arg(const struct bt_program *p, const struct bt_node *call,
		     const struct bt_node *a, const char **w, struct utrace_error *err)
{
	const struct bt_node *prm = a, *off = NULL;
	struct bt_loc at;
	char num[16];

	if (a->kind == BT_N_BINOP && (is_param(a->a) || is_param(a->b))) {
		prm = is_param(a->a) ? a->a : a->b;
		off = prm == a->a ? a->b : a->a;
	} else if (!is_param(a)) {
		return bt_error(err, p, call->loc, BT_ERR_STR_PARAM);
	}
	*w = word_of(p, prm);
	if (!off)
		return 0;
	if (off->kind != BT_N_INT || off->op[0] == '$' || strcmp(a->op, "+") || off->ival < 0 ||
	    (size_t)off->ival > strlen(*w)) {
		at = (struct bt_loc){a->loc.line, a->pos, a->b->loc.end};
		if (prm->pos)
			snprintf(num, sizeof(num), "%u", prm->pos);
		else
			snprintf(num, sizeof(num), "#");
		return bt_error(err, p, at, BT_ERR_STR_PARAM_ADD, num, strlen(*w));
	}
	*w += off->ival;
	return 0;
}

/* A parameter, or a binop of a parameter and an integer (param_arg's). */
static void leaves_free(struct bt_node *n)
{
	if (!n)
		return;
	leaves_free(n->a);
	leaves_free(n->b);
	free(n->str);
	free(n);
}

int bt_param_str(const struct bt_program *p, struct bt_node *call, struct utrace_error *err)
{
	struct bt_node *a = call->nargs == 1 ? call->args[0] : NULL;
	const char *w = "";
	char *s;
	int ret;

	if (!a || strcmp(call->str, "str") || !has_param(a))
		return 0;
	if ((ret = param_arg(p, call, a, &w, err)) < 0)
		return ret;
	if (!(s = strdup(w)))
		return -ENOMEM;
	free(call->str);
	call->str = s;
	call->kind = BT_N_STR;
	call->ival = (int64_t)strlen(s);
	leaves_free(a);
	free(call->args);
	call->args = NULL;
	call->nargs = 0;
	return 0;
}

int bt_param_int(const struct bt_program *p, const char *name, size_t len, int64_t *v)
{
	char buf[16];
	const char *w;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = 0;
	if (!bt_param_is(buf))
		return -1;
	if (!strcmp(buf, "$#")) {
		*v = p->nparams;
		return 0;
	}
	w = param_word(p, buf);
	*v = 0;
	return !w || numeric(w, v) ? 0 : -1;
}

char *bt_param_attach(const struct bt_program *p, const char *text)
{
	size_t len = strlen(text) + 1, n = 0;
	char *out;

	for (const char *t = text; *t; t++) /* room for every word */
		if (*t == '$')
			for (unsigned k = 0; k < p->nparams; k++)
				len += strlen(p->params[k]);
	if (!(out = malloc(len)))
		return NULL;
	for (const char *t = text; *t;) {
		char name[16];
		size_t d = 1;
		const char *w;

		while (t[d] >= '0' && t[d] <= '9' && d < sizeof(name) - 1)
			d++;
		if (*t != '$' || d == 1 || t[1] == '0') {
			out[n++] = *t++;
			continue;
		}
		memcpy(name, t, d);
		name[d] = 0;
		w = param_word(p, name);
		if (w) /* a missing parameter is empty */
			n += (size_t)(stpcpy(out + n, w) - (out + n));
		t += d;
	}
	out[n] = 0;
	return out;
}

