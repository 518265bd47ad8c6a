/* SPDX-License-Identifier: MIT */
/*
 * session_synth.c - `utrace record --synthetic DEF`: the definitions parsed
 * before anything runs (the kernel's errors, with a caret), and what the
 * pre-run check of the -R triggers (session_triggers.c) needs to compile a
 * trigger that refers to another's variable ($ts0) or fires a synthetic
 * event: the trigger that defines the variable, compiled for its event's
 * format, gives the key it must share; the definitions give the count of
 * params.  The search is lib/hist/hist_env.c's, the recorder's too when
 * the events come (lib/record/recorder_hist.c), for the tables it makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session/session_synth.h"
#include "lib/hist/hist_env.h"

int record_synth_parse(const char **defs, unsigned n, struct utrace_synth ***out,
		       struct session_fail *f)
{
	struct utrace_synth **s = calloc(n + 1, sizeof(*s));

	*out = s;
	if (!s)
		return session_failf(f, 1, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		struct utrace_error err = {0};
		int code;

		if (utrace_synth_parse(defs[i], 0, &s[i], &code, &err) < 0) {
			session_failf(f, 2, "--synthetic: %s", err.msg);
			session_fail_caret(f, defs[i], err.column);
			return 2;
		}
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(s[k]->name, s[i]->name))
				return session_failf(f, 2, "--synthetic '%s': Event already exists",
						     defs[i]);
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
static int var_layout(void *arg, const struct utrace_hist_def *d, struct utrace_hist_var_info *out)
{
	const struct record_check_env *e = arg;
	struct record_check_env nested = *e;
	const struct utrace_event_format *f = find_format(e, d->sys, d->ev);
	const struct utrace_hist_spec *spec = d->t->hist;
	struct utrace_error err = {0};
	struct utrace_hist_hdr *p;
	uint32_t len;
	int code;

	nested.depth++;
	if (!f || e->depth >= 4 ||
	    utrace_trigger_compile(d->t, f, record_check_env_ops(&nested), (void **)&p, &len,
				   &code, &err) < 0)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	*out = (struct utrace_hist_var_info){.sum = utrace_hist_var_sum(spec, d->v),
					     .bitmap = utrace_hist_var_bitmap(spec),
					     .bit = 1ull << d->v,
					     .key_size = p->key_size,
					     .nr_keys = p->nr_keys,
					     .str = utrace_hist_var_is_str(p, utrace_hist_var_sum(spec,
											     d->v)),
					     .stack = utrace_hist_var_is_stack(
						 p, utrace_hist_var_sum(spec, d->v))};
	memcpy(out->slots, p->slots, sizeof(out->slots));
	free(p);
	return 0;
}

/* The -R of every concrete -e, each parsed as it is met (a trigger that
 * does not parse is left to its own check to say why). */
static void check_each(void *arg, const char *var, const char *want_sys, const char *want_ev,
		       void (*visit)(void *ctx, const struct utrace_hist_def *d), void *ctx)
{
	const struct record_check_env *e = arg;
	char sys[65], ev[65];

	(void)var, (void)want_sys, (void)want_ev; /* visit picks */
	for (unsigned i = 0; i < e->nspecs; i++) {
		if (!utrace_event_spec_exact(e->specs[i].pattern, sys, ev, sizeof(sys)))
			continue;
		for (unsigned k = 0; k < e->specs[i].nr_triggers; k++) {
			struct utrace_error err;
			const struct utrace_trigger *t = utrace_trigger_of(&e->specs[i], k, NULL, &err);

			if (t)
				visit(ctx, &(struct utrace_hist_def){sys, ev, e->specs[i].triggers[k],
								     t, i, k, 0});
		}
	}
}

const struct utrace_hist_env *record_check_env_ops(struct record_check_env *e)
{
	e->scope = (struct utrace_hist_scope){
	    .each = check_each, .layout = var_layout, .synths = e->synths,
	    .nr_synths = e->nsynths, .arg = e};
	return utrace_hist_scope_env(&e->scope);
}
