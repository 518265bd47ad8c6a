/* SPDX-License-Identifier: MIT */
/*
 * record_synth.c - `utrace record --synthetic DEF`: the definitions parsed
 * before anything runs (the kernel's errors, with a caret), and what the
 * pre-run check of the -R triggers (record_triggers.c) needs to compile a
 * trigger that refers to another's variable ($ts0) or fires a synthetic
 * event: the trigger that defines the variable, compiled for its event's
 * format, gives the key it must share; the definitions give the count of
 * params.  The recorder finds them the same way when the events come
 * (lib/record/recorder_hist.c), for the tables it makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/record_synth.h"
#include "cmds/cmds.h"
#include "lib/hist/hist_compile.h"

int record_synth_parse(const char **defs, unsigned n, struct utrace_synth ***out)
{
	struct utrace_synth **s = calloc(n + 1, sizeof(*s));

	*out = s;
	if (!s) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		struct utrace_error err = {0};
		int code;

		if (utrace_synth_parse(defs[i], 0, &s[i], &code, &err) < 0) {
			utrace_die_msg("record", "--synthetic: %s", err.msg);
			if (err.column > 0)
				fprintf(stderr, "  %s\n  %*s^\n", defs[i], err.column - 1, "");
			return 2;
		}
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(s[k]->name, s[i]->name)) {
				utrace_die_msg("record", "--synthetic '%s': Event already exists",
					       defs[i]);
				return 2;
			}
	}
	return 0;
}

void record_synth_free(struct utrace_synth **s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		utrace_synth_free(s[i]);
	free(s);
}

static const struct utrace_event_format *find_format(const struct record_check_env *e,
						     const char *sys, const char *ev)
{
	for (size_t i = 0; i < e->nfmts; i++)
		if (!strcmp(e->fmts[i]->system, sys) && !strcmp(e->fmts[i]->name, ev))
			return e->fmts[i];
	return NULL;
}

/* The variable's trigger compiled for its event: its key and its sums. */
static int var_layout(const struct record_check_env *e, const char *text, const char *sys,
		      const char *ev, const struct utrace_hist_spec *spec, unsigned v,
		      struct utrace_hist_var_info *out)
{
	struct record_check_env nested = *e;
	const struct utrace_event_format *f = find_format(e, sys, ev);
	struct utrace_error err = {0};
	struct utrace_hist_hdr *p;
	uint32_t len;
	int code;

	(void)text;
	nested.depth++;
	if (!f || e->depth >= 4 ||
	    utrace_hist_compile_env(spec, f, record_check_env_ops(&nested), (void **)&p, &len,
				    &code, &err) < 0)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	*out = (struct utrace_hist_var_info){.sum = utrace_hist_var_sum(spec, v),
					     .bitmap = utrace_hist_var_bitmap(spec),
					     .bit = 1ull << v,
					     .key_size = p->key_size,
					     .nr_keys = p->nr_keys};
	memcpy(out->slots, p->slots, sizeof(out->slots));
	free(p);
	return 0;
}

/* $name: the one -R of a concrete -e that defines it (see hist_var() in
 * lib/record/recorder_hist.c, which this mirrors). */
static int check_var(void *arg, const char *name, const char *msys, const char *mev,
		     struct utrace_hist_var_info *out)
{
	const struct record_check_env *e = arg;
	const char *var;
	const bool qualified = strchr(name, '.') != NULL; /* sys.event.var */
	char want_sys[65] = "", want_ev[65] = "", sys[65], ev[65];
	unsigned found = 0;
	int ret = UTRACE_HIST_ERR_VAR_NOT_FOUND;

	if (!(var = utrace_hist_var_name(name, want_sys, want_ev, sizeof(want_sys))))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	for (int pass = qualified || !msys; pass < 2 && !found; pass++) {
		if (!pass) {
			snprintf(want_sys, sizeof(want_sys), "%s", msys);
			snprintf(want_ev, sizeof(want_ev), "%s", mev);
		} else if (!qualified) {
			want_sys[0] = want_ev[0] = 0;
		}
		for (unsigned i = 0; i < e->nspecs; i++) {
			if (!utrace_event_spec_exact(e->specs[i].pattern, sys, ev, sizeof(sys)) ||
			    (want_sys[0] && (strcmp(sys, want_sys) || strcmp(ev, want_ev))))
				continue;
			for (unsigned k = 0; k < e->specs[i].nr_triggers; k++) {
				struct utrace_error err;
				const struct utrace_trigger *t =
				    utrace_trigger_of(&e->specs[i], k, NULL, &err);

				if (!t)
					continue; /* its own check says why */
				for (unsigned v = 0; t->hist && v < t->hist->nr_vars; v++)
					if (!strcmp(t->hist->vars[v].name, var) && !found++)
						ret = var_layout(e, e->specs[i].triggers[k], sys, ev,
								 t->hist, v, out);
			}
		}
	}
	return found > 1 ? UTRACE_HIST_ERR_VAR_NOT_UNIQUE : ret;
}

static int check_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	const struct record_check_env *e = arg;

	for (unsigned i = 0; i < e->nsynths; i++)
		if (!strcmp(e->synths[i]->name, name)) {
			utrace_synth_info(e->synths[i], i, out);
			return 0;
		}
	return UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND;
}

const struct utrace_hist_env *record_check_env_ops(struct record_check_env *e)
{
	e->ops = (struct utrace_hist_env){check_var, check_synth, e};
	return &e->ops;
}
