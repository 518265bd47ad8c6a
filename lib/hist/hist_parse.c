/* SPDX-License-Identifier: MIT */
/*
 * hist_parse.c - "hist:..." into a struct utrace_hist_spec (hist.h), with
 * the kernel's errors at the kernel's positions.
 *
 * The steps and their order are the kernel's (event_hist_trigger_parse()):
 * split off " if FILTER", cut the rest at ':' into attributes
 * (parse_hist_trigger_attrs()), then parse the handlers, the variable
 * definitions, the values, the variables, the keys and the sort keys, then
 * check the handlers' variables.  The first error wins, as in the kernel,
 * so a trigger with two errors reports the one the kernel reports.
 * Everything that needs the event's format (field names, types, synthetic
 * events) is left to the compiler.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_internal.h"

#define UTRACE_HIST_ERR_TEXT(name, text) text,
static const char *const err_text[] = {UTRACE_HIST_ERRORS(UTRACE_HIST_ERR_TEXT)};
#undef UTRACE_HIST_ERR_TEXT

const char *utrace_hist_err_text(int code)
{
	if (code < 0 || code >= UTRACE_HIST_ERR_MAX)
		return "Invalid argument";
	return err_text[code];
}

/* The attribute strings, as parse_hist_trigger_attrs() keeps them, but in
 * place (the kernel copies them) so that nodes know their columns. */
struct attrs {
	char *keys, *vals, *sort;
	char *assign[UTRACE_HIST_VARS_MAX];
	unsigned nr_assign;
	char *action[UTRACE_HIST_ACTIONS_MAX];
	unsigned nr_actions;
};

static int set_str(struct hist_parser *hp, char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	return *dst ? 0 : hist_fail(hp, -1, -ENOMEM, 0);
}

/* parse_map_size(): size=N rounded up to a power of two. */
static int parse_size(struct hist_parser *hp, const char *s, struct utrace_hist_spec *spec)
{
	uint64_t size;
	unsigned bits = 0;

	if (hist_strtou64(s, &size) || !size)
		return hist_fail_einval(hp, "size= is not a number");
	while ((1ull << bits) < size && bits < 63)
		bits++;
	if (bits < UTRACE_HIST_BITS_MIN || bits > UTRACE_HIST_BITS_MAX)
		return hist_fail_einval(hp, "size= is not between 128 and 131072");
	spec->map_bits = bits;
	return 0;
}

/* parse_assignment(): "key=value" attributes; anything else is a variable. */
static int parse_assignment(struct hist_parser *hp, char *str, struct attrs *a,
			    struct utrace_hist_spec *s)
{
	static const char *const keys[] = {"key=", "keys="};
	static const char *const vals[] = {"val=", "vals=", "values="};
	size_t n;

	for (unsigned i = 0; i < 2; i++)
		if (!strncmp(str, keys[i], n = strlen(keys[i])))
			return a->keys = str + n, 0;
	for (unsigned i = 0; i < 3; i++)
		if (!strncmp(str, vals[i], n = strlen(vals[i])))
			return a->vals = str + n, 0;
	if (!strncmp(str, "sort=", 5))
		return a->sort = str + 5, 0;
	if (!strncmp(str, "name=", 5))
		return set_str(hp, &s->name, str + 5);
	if (!strncmp(str, "clock=", 6)) {
		char *c = str + 6, *end;

		while (*c == ' ' || *c == '\t')
			c++;
		for (end = c + strlen(c); end > c && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		return set_str(hp, &s->clock, c);
	}
	if (!strncmp(str, "size=", 5))
		return parse_size(hp, str + 5, s);
	if (a->nr_assign == UTRACE_HIST_VARS_MAX)
		return hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_VARS, -EINVAL, hist_errpos(hp, str));
	a->assign[a->nr_assign++] = str;
	return 0;
}

static int parse_attrs(struct hist_parser *hp, char *param, struct attrs *a,
		       struct utrace_hist_spec *s)
{
	while (param) {
		char *str = strsep(&param, ":"), *rhs = strchr(str, '=');

		if (rhs) {
			if (!rhs[1])
				return hist_fail(hp, UTRACE_HIST_ERR_EMPTY_ASSIGNMENT, -EINVAL,
						 hist_errpos(hp, str));
			if (parse_assignment(hp, str, a, s))
				return -1;
		} else if (!strcmp(str, "nohitcount") || !strcmp(str, "NOHC")) {
			s->nohitcount = true;
		} else if (!strcmp(str, "pause")) {
			s->pause = true;
		} else if (!strcmp(str, "cont") || !strcmp(str, "continue")) {
			s->cont = true;
		} else if (!strcmp(str, "clear")) {
			s->clear = true;
		} else if (!strncmp(str, "onmatch(", 8) || !strncmp(str, "onmax(", 6) ||
			   !strncmp(str, "onchange(", 9)) {
			if (a->nr_actions >= UTRACE_HIST_ACTIONS_MAX) {
				/* the kernel's bare -EINVAL, here at the one too many */
				hist_fail_einval(hp, "more than 8 actions");
				hp->kpos = hist_errpos(hp, str);
				return -1;
			}
			a->action[a->nr_actions++] = str;
		} else {
			return hist_fail_einval(hp, "unknown hist trigger attribute");
		}
	}
	if (!a->keys)
		return hist_fail_einval(hp, "no keys=");
	return 0;
}

/* parse_action_params(): comma-separated, blanks stripped, 2 chars at least. */
static int parse_params(struct hist_parser *hp, char *params, struct utrace_hist_action *act,
			bool trace_keyword)
{
	bool first = true;

	while (params) {
		char *p = strsep(&params, ","), *end;

		if (act->nr_params >= UTRACE_HIST_PARAMS_MAX)
			return hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_PARAMS, -EINVAL, 0);
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		for (end = p + strlen(p); end > p && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		if (strlen(p) < 2)
			return hist_fail(hp, UTRACE_HIST_ERR_INVALID_PARAM, -EINVAL,
					 hist_errpos(hp, p));
		if (first && trace_keyword) {
			act->synth = strdup(p);
			first = false;
			if (!act->synth)
				return hist_fail(hp, -1, -ENOMEM, 0);
			continue;
		}
		first = false;
		act->param_pos[act->nr_params] = hist_kcol(hp, hist_errpos(hp, p));
		if (!(act->params[act->nr_params] = strdup(p)))
			return hist_fail(hp, -1, -ENOMEM, 0);
		act->nr_params++;
	}
	return 0;
}

/* action_parse(): ".name(params)" after the handler. */
static int parse_action(struct hist_parser *hp, char *str, struct utrace_hist_action *act)
{
	char *name, *params;
	bool track = act->handler != UTRACE_HIST_ONMATCH;

	strsep(&str, ".");
	if (!str)
		return hist_fail(hp, UTRACE_HIST_ERR_ACTION_NOT_FOUND, -EINVAL, 0);
	name = strsep(&str, "(");
	if (!name || !str)
		return hist_fail(hp, UTRACE_HIST_ERR_ACTION_NOT_FOUND, -EINVAL, 0);
	params = strsep(&str, ")");
	if (!strncmp(name, "save", 4)) {
		act->kind = UTRACE_HIST_ACT_SAVE;
		if (parse_params(hp, params, act, false))
			return -1;
	} else if (!strncmp(name, "snapshot", 8)) {
		act->kind = UTRACE_HIST_ACT_SNAPSHOT;
		if (!str)
			return hist_fail(hp, UTRACE_HIST_ERR_NO_CLOSING_PAREN, -EINVAL,
					 hist_errpos(hp, params));
	} else {
		bool keyword = !strncmp(name, "trace", 5);

		act->kind = UTRACE_HIST_ACT_TRACE;
		act->trace_keyword = keyword;
		if (parse_params(hp, params, act, keyword))
			return -1;
		if (!keyword && !(act->synth = strdup(name)))
			return hist_fail(hp, -1, -ENOMEM, 0);
		return 0;
	}
	if (!track)
		return hist_fail(hp, UTRACE_HIST_ERR_ACTION_MISMATCH, -EINVAL,
				 hist_errpos(hp, name));
	return 0;
}

/* parse_actions(): onmatch(sys.event), onmax($var), onchange($var). */
static int parse_handler(struct hist_parser *hp, char *str, struct utrace_hist_action *act)
{
	char *arg;

	act->pos = hist_col(hp, str);
	if (!strncmp(str, "onmatch(", 8)) {
		char *sys;

		act->handler = UTRACE_HIST_ONMATCH;
		str += 8;
		arg = strsep(&str, ")");
		if (!str)
			return hist_fail(hp, UTRACE_HIST_ERR_NO_CLOSING_PAREN, -EINVAL,
					 hist_errpos(hp, arg));
		sys = strsep(&arg, ".");
		if (!arg)
			return hist_fail(hp, UTRACE_HIST_ERR_SUBSYS_NOT_FOUND, -EINVAL,
					 hist_errpos(hp, sys));
		act->match_system = strdup(sys);
		act->match_event = strdup(arg);
		if (!act->match_system || !act->match_event)
			return hist_fail(hp, -1, -ENOMEM, 0);
	} else {
		act->handler = str[2] == 'm' ? UTRACE_HIST_ONMAX : UTRACE_HIST_ONCHANGE;
		str += act->handler == UTRACE_HIST_ONMAX ? 6 : 9;
		arg = strsep(&str, ")");
		if (!str)
			return hist_fail_einval(hp, "no ')' after the handler's variable");
		if (!(act->var = strdup(arg)))
			return hist_fail(hp, -1, -ENOMEM, 0);
	}
	return parse_action(hp, str, act);
}

/* parse_var_defs(): each assignment may define several, comma-separated. */
static int parse_var_defs(struct hist_parser *hp, struct attrs *a)
{
	for (unsigned i = 0; i < a->nr_assign; i++) {
		char *str = a->assign[i];

		for (unsigned j = 0; j < UTRACE_HIST_VARS_MAX; j++) {
			char *field = strsep(&str, ","), *name;

			if (!field)
				break;
			name = strsep(&field, "=");
			if (!field)
				return hist_fail(hp, UTRACE_HIST_ERR_MALFORMED_ASSIGNMENT, -EINVAL,
						 hist_errpos(hp, name));
			if (hp->nr_var_defs == UTRACE_HIST_VARS_MAX)
				return hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_VARS, -EINVAL,
						 hist_errpos(hp, name));
			hp->var_name[hp->nr_var_defs] = name;
			hp->var_expr[hp->nr_var_defs++] = field;
		}
	}
	return 0;
}

/* __create_val_field()'s check: what a value or a variable may not have. */
static int check_val_mods(struct hist_parser *hp, const struct utrace_hist_expr *e,
			  const char *str, bool var)
{
	unsigned bad = UTRACE_HIST_MOD_BUCKETS | UTRACE_HIST_MOD_LOG2;

	/*
	 * The kernel since 6.4 also refuses .percent and .graph on values
	 * (e0213434fe3e, e30fbc618e97), which breaks its own documented
	 * examples; they are accepted here as histogram.rst describes them.
	 */
	if (var)
		bad |= UTRACE_HIST_MOD_PERCENT | UTRACE_HIST_MOD_GRAPH;
	else
		bad |= UTRACE_HIST_MOD_SYM | UTRACE_HIST_MOD_SYM_OFFSET |
		       UTRACE_HIST_MOD_SYSCALL | UTRACE_HIST_MOD_STACKTRACE;
	if (e->op == UTRACE_HE_FIELD && (e->mods & bad))
		return hist_fail(hp, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, -EINVAL,
				 hist_errpos(hp, str));
	return 0;
}

/* create_val_fields(): the first "hitcount" is the implied one; two more. */
static int parse_vals(struct hist_parser *hp, char *str, struct utrace_hist_spec *s)
{
	unsigned i, n_hitcount = 0;

	for (i = 0; str && i < UTRACE_HIST_VALS_MAX && s->nr_vals + 1 < UTRACE_HIST_VALS_MAX; i++) {
		char *f = strsep(&str, ",");
		unsigned n = 0;
		struct utrace_hist_expr *e;

		if (!strcmp(f, "hitcount") && !n_hitcount++)
			continue;
		if (!(e = hist_parse_expr(hp, f, HIST_CTX_VAL, &n)))
			return -1;
		s->vals[s->nr_vals++] = e;
		if (check_val_mods(hp, e, f, false))
			return -1;
	}
	if (str && strcmp(str, "hitcount"))
		return hist_fail_einval(hp, "too many values");
	return 0;
}

static int parse_vars(struct hist_parser *hp, struct utrace_hist_spec *s)
{
	for (unsigned i = 0; i < hp->nr_var_defs; i++) {
		struct utrace_hist_var *v = &s->vars[s->nr_vars];
		unsigned n = 0;

		for (unsigned j = 0; j < s->nr_vars; j++)
			if (!strcmp(s->vars[j].name, hp->var_name[i]))
				return hist_fail(hp, UTRACE_HIST_ERR_DUPLICATE_VAR, -EINVAL,
						 hist_errpos(hp, hp->var_name[i]));
		v->pos = hist_col(hp, hp->var_name[i]);
		if (!(v->name = strdup(hp->var_name[i])))
			return hist_fail(hp, -1, -ENOMEM, 0);
		s->nr_vars++;
		if (!(v->expr = hist_parse_expr(hp, hp->var_expr[i], HIST_CTX_VAR, &n)))
			return -1;
		if (check_val_mods(hp, v->expr, hp->var_expr[i], true))
			return -1;
	}
	return 0;
}

/* create_key_fields(): at most 3; "stacktrace" is the kernel's stack. */
static int parse_keys(struct hist_parser *hp, char *str, struct utrace_hist_spec *s)
{
	while (str && s->nr_keys < UTRACE_HIST_KEYS_MAX) {
		char *f = strsep(&str, ",");
		struct utrace_hist_expr *e;
		unsigned n = 0;

		if (!strcmp(f, "stacktrace") || !strcmp(f, "common_stacktrace")) {
			if (!(e = calloc(1, sizeof(*e))) || !(e->name = strdup(f))) {
				free(e);
				return hist_fail(hp, -1, -ENOMEM, 0);
			}
			e->op = UTRACE_HE_FIELD;
			e->mods = UTRACE_HIST_MOD_STACKTRACE;
			e->pos = hist_col(hp, f);
		} else if (!(e = hist_parse_expr(hp, f, HIST_CTX_KEY, &n))) {
			return -1;
		}
		s->keys[s->nr_keys++] = e;
		if (hist_expr_has_ref(e))
			return hist_fail(hp, UTRACE_HIST_ERR_INVALID_REF_KEY, -EINVAL,
					 hist_errpos(hp, f));
	}
	if (str)
		return hist_fail_einval(hp, "too many keys");
	return 0;
}

/* Whether name is the kernel's hist_field_name() of a value or a key. */
static bool sort_field_exists(const struct utrace_hist_spec *s, const char *name)
{
	const struct utrace_hist_expr *f[UTRACE_HIST_VALS_MAX + UTRACE_HIST_KEYS_MAX];
	unsigned n = 0;
	char buf[512];

	for (unsigned i = 0; i < s->nr_vals; i++)
		f[n++] = s->vals[i];
	for (unsigned i = 0; i < s->nr_keys; i++)
		f[n++] = s->keys[i];
	for (unsigned i = 0; i < n; i++) {
		struct hist_sb sb = {buf, sizeof(buf), 0};

		hist_name(&sb, f[i]);
		if (sb.len < sizeof(buf) && !strcmp(buf, name))
			return true;
	}
	return false;
}

/* create_sort_keys(): 2 at most, each a key or a value, then a direction. */
static int parse_sort(struct hist_parser *hp, char *str, struct utrace_hist_spec *s)
{
	unsigned i;

	for (i = 0; str && i < UTRACE_HIST_SORT_MAX; i++) {
		char *f = strsep(&str, ","), *name;
		struct utrace_hist_sort *k = &s->sort[s->nr_sort];

		if (!*f || (i == UTRACE_HIST_SORT_MAX - 1 && str))
			return hist_fail(hp,
					 *f ? UTRACE_HIST_ERR_TOO_MANY_SORT_FIELDS
					    : UTRACE_HIST_ERR_EMPTY_SORT_FIELD,
					 -EINVAL, hist_errpos(hp, "sort="));
		k->pos = hist_col(hp, f);
		name = strsep(&f, ".");
		if (!*name)
			return hist_fail(hp, UTRACE_HIST_ERR_EMPTY_SORT_FIELD, -EINVAL,
					 hist_errpos(hp, "sort="));
		if (strcmp(name, "hitcount") && !sort_field_exists(s, name))
			return hist_fail(hp, UTRACE_HIST_ERR_INVALID_SORT_FIELD, -EINVAL,
					 hist_errpos(hp, name));
		if (f && strcmp(f, "descending") && strcmp(f, "ascending"))
			return hist_fail(hp, UTRACE_HIST_ERR_INVALID_SORT_MODIFIER, -EINVAL,
					 hist_errpos(hp, f));
		k->descending = f && !strcmp(f, "descending");
		if (!(k->name = strdup(name)))
			return hist_fail(hp, -1, -ENOMEM, 0);
		s->nr_sort++;
	}
	return 0;
}

/* create_actions(): onmax/onchange track a variable of this trigger. */
static int check_actions(struct hist_parser *hp, struct utrace_hist_spec *s)
{
	unsigned saves = 0;

	for (unsigned i = 0; i < s->nr_actions; i++) {
		struct utrace_hist_action *a = &s->actions[i];
		bool found = false;

		if (a->handler != UTRACE_HIST_ONMATCH) {
			if (a->var[0] != '$')
				return hist_fail(hp, UTRACE_HIST_ERR_ONX_NOT_VAR, -EINVAL,
						 hist_errpos(hp, a->var));
			for (unsigned j = 0; j < s->nr_vars; j++)
				found |= !strcmp(s->vars[j].name, a->var + 1);
			if (!found)
				return hist_fail(hp, UTRACE_HIST_ERR_ONX_VAR_NOT_FOUND, -EINVAL,
						 hist_errpos(hp, a->var + 1));
			/* keep the name without its '$', as hist.h says */
			memmove(a->var, a->var + 1, strlen(a->var));
		}
		if (a->kind == UTRACE_HIST_ACT_SAVE && saves++)
			return hist_fail(hp, UTRACE_HIST_ERR_TOO_MANY_SAVE_ACTIONS, -EEXIST, 0);
	}
	return 0;
}

static int nohitcount_check(struct hist_parser *hp, const struct utrace_hist_spec *s)
{
	if (s->nohitcount && !s->nr_vals)
		return hist_fail(hp, UTRACE_HIST_ERR_NEED_NOHC_VAL, -ENOENT, 0);
	return 0;
}

static int parse_body(struct hist_parser *hp, char *param, struct utrace_hist_spec *s)
{
	struct attrs a = {0};
	int ret = -1;

	for (char *p = strstr(param, ".sym-offset"); p; p = strstr(p + 11, ".sym-offset"))
		p[4] = 'X';
	if (parse_attrs(hp, param, &a, s))
		goto out;
	for (unsigned i = 0; i < a.nr_actions; i++, s->nr_actions++)
		if (parse_handler(hp, a.action[i], &s->actions[i]))
			goto out;
	if (parse_var_defs(hp, &a))
		goto out;
	if ((a.vals && parse_vals(hp, a.vals, s)) || nohitcount_check(hp, s))
		goto out;
	if (parse_vars(hp, s) || parse_keys(hp, a.keys, s))
		goto out;
	if ((a.sort && parse_sort(hp, a.sort, s)) || check_actions(hp, s))
		goto out;
	ret = 0;
out:
	s->nr_actions += ret < 0 && s->nr_actions < a.nr_actions; /* free the failed one */
	return ret;
}

void utrace_hist_spec_free(struct utrace_hist_spec *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nr_keys; i++)
		hist_expr_free(s->keys[i]);
	for (unsigned i = 0; i < s->nr_vals; i++)
		hist_expr_free(s->vals[i]);
	for (unsigned i = 0; i < s->nr_sort; i++)
		free(s->sort[i].name);
	for (unsigned i = 0; i < s->nr_vars; i++) {
		free(s->vars[i].name);
		hist_expr_free(s->vars[i].expr);
	}
	for (unsigned i = 0; i < s->nr_actions; i++) {
		struct utrace_hist_action *a = &s->actions[i];

		free(a->match_system);
		free(a->match_event);
		free(a->var);
		free(a->synth);
		for (unsigned j = 0; j < a->nr_params; j++)
			free(a->params[j]);
	}
	free(s->name);
	free(s->clock);
	free(s->filter);
	free(s);
}

/*
 * The kernel's split of "PARAM if FILTER": the first "if" with a blank on
 * both sides; "if" first or last is an error.  The filter kept is what
 * set_trigger_filter() keeps: the text after "if" and one blank.
 */
static int split_filter(struct hist_parser *hp, struct utrace_hist_spec *s)
{
	char *p = hp->buf, *end;
	size_t len = strlen(hp->buf);

	for (; (p = strstr(p, "if")); p++) {
		if (p == hp->buf)
			return hist_fail_einval(hp, "\"if\" without a trigger before it");
		if (p[-1] != ' ' && p[-1] != '\t')
			continue;
		if (p >= hp->buf + len - 3)
			return hist_fail_einval(hp, "\"if\" without a filter after it");
		if (p[2] != ' ' && p[2] != '\t')
			continue;
		break;
	}
	if (!p)
		return 0;
	p[-1] = '\0';
	for (end = p - 1; end > hp->buf && (end[-1] == ' ' || end[-1] == '\t'); end--)
		end[-1] = '\0';
	s->filter_pos = hist_col(hp, p + 3);
	s->filter = strdup(p + 3);
	return s->filter ? 0 : hist_fail(hp, -1, -ENOMEM, 0);
}

/* The error as the caller sees it: code, text, 1-based column in text. */
static int report(const struct hist_parser *hp, int *code, struct utrace_error *err)
{
	int col = 0;

	if (code)
		*code = hp->code;
	if (hp->errnum == -ENOMEM)
		return utrace_error_set(err, -ENOMEM, "Out of memory");
	if (hp->code >= 0 || hp->kpos) /* a bare -EINVAL has a column where one helps */
		col = (int)hist_kcol(hp, hp->kpos) + 1;
	if (hp->code < 0)
		utrace_error_set(err, hp->errnum, "Invalid argument: %s", hp->why ? hp->why : "");
	else
		utrace_error_set(err, hp->errnum, "%s", err_text[hp->code]);
	if (err)
		err->column = col;
	return hp->errnum;
}

int utrace_hist_parse(const char *text, struct utrace_hist_spec **out, int *code,
		      struct utrace_error *err)
{
	struct hist_parser hp = {0};
	struct utrace_hist_spec *s = calloc(1, sizeof(*s));
	const char *start = text, *name, *param;
	size_t name_len, len;
	int ret = 0;

	*out = NULL;
	while (*start == ' ' || *start == '\t' || *start == '\n')
		start++;
	hp.cmd_col = (unsigned)(start - text) + (*start == '!');
	name = text + hp.cmd_col;
	name_len = strcspn(name, ": \t");
	param = name + name_len + (name[name_len] != '\0');
	while (*param == ' ' || *param == '\t')
		param++;
	for (len = strlen(param); len && strchr(" \t\n", param[len - 1]); len--)
		;
	hp.param_col = (unsigned)(param - text);
	if (!s) {
		hist_fail(&hp, -1, -ENOMEM, 0);
	} else if (name_len != 4 || strncmp(name, "hist", 4)) {
		hist_fail_einval(&hp, "not a hist trigger");
	} else if (!len) {
		hist_fail_einval(&hp, "hist needs keys=");
	} else if (!(hp.buf = strndup(param, len)) || !(hp.cmd = malloc(len + 6))) {
		hist_fail(&hp, -1, -ENOMEM, 0);
	} else {
		snprintf((char *)hp.cmd, len + 6, "hist:%s", hp.buf);
		if (!split_filter(&hp, s))
			parse_body(&hp, hp.buf, s);
	}
	if (hp.errnum) {
		ret = report(&hp, code, err);
		utrace_hist_spec_free(s);
	} else {
		if (!s->map_bits)
			s->map_bits = UTRACE_HIST_BITS_DEFAULT;
		if (code)
			*code = UTRACE_HIST_ERR_NONE;
		*out = s;
	}
	free(hp.buf);
	free((char *)hp.cmd);
	return ret;
}
