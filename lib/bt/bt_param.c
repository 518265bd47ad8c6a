/* SPDX-License-Identifier: MIT */
/*
 * bt_param.c - bpftrace's positional parameters: `$1`, `$2` ... are the
 * words after the program on the command line, `$#` their count.  As
 * bpftrace does, they become literals when the program is parsed (so they
 * may stand where only a literal may: lhist's bounds, str()'s length): a
 * number (decimal, 0x hex, 0 octal) is an integer, another word a string,
 * a missing one 0; str($N) is the word itself ("" when missing), never
 * a read of memory at the number's address.
 */
#include <errno.h>
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

int bt_param_str(const struct bt_program *p, struct bt_node *call)
{
	struct bt_node *a = call->nargs == 1 ? call->args[0] : NULL;
	const char *w;
	char *s;

	if (!a || a->op[0] != '$' || strcmp(call->str, "str") ||
	    (a->kind != BT_N_INT && a->kind != BT_N_STR))
		return 0;
	w = a->kind == BT_N_STR ? a->str : a->str && a->str[1] != '#' ? param_word(p, a->str) : NULL;
	if (!(s = strdup(w ? w : "")))
		return -ENOMEM;
	free(call->str);
	call->str = s;
	call->kind = BT_N_STR;
	call->ival = (int64_t)strlen(s);
	free(a->str);
	free(a);
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

