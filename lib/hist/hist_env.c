/* SPDX-License-Identifier: MIT */
/*
 * hist_env.c - the one environment a hist trigger is compiled in: where
 * a $name of another trigger is defined, and which synthetic events an
 * action may fire (hist_compile.h's struct utrace_hist_env).
 *
 * The kernel finds a variable among the hist triggers of the instance
 * (find_target_event_var(), find_matching_hist_var()): that of the
 * onmatch() event first, if the action names one; else the one
 * "sys.event.var" says; else any, and two that define it are
 * VAR_NOT_UNIQUE.  The search is the same wherever a trigger is
 * compiled (the command line's check before the run, the recorder as
 * events come, the live tracefs as a trigger is written); what differs
 * is the triggers there are (the scope's each()) and what a variable
 * found is (its layout(): the defining trigger compiled for its event,
 * or its table made).
 */
#include <stdio.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/hist/hist_env.h"

/* What one search looks for, and what it found first. */
struct env_search {
	const char *var;
	char sys[65], ev[65]; /* "" for any event */
	unsigned found;
	struct utrace_hist_def def;
	char def_sys[65], def_ev[65]; /* def's: the visitor's names do not outlive it */
};

static void env_visit(void *ctx, const struct utrace_hist_def *d)
{
	struct env_search *s = ctx;
	const struct utrace_hist_spec *h = d->t ? d->t->hist : NULL;

	if (!h || d->t->remove || (s->sys[0] && (strcmp(d->sys, s->sys) || strcmp(d->ev, s->ev))))
		return;
	for (unsigned v = 0; v < h->nr_vars; v++) {
		if (strcmp(h->vars[v].name, s->var))
			continue;
		if (!s->found++) {
			s->def = *d;
			s->def.v = v;
			snprintf(s->def_sys, sizeof(s->def_sys), "%s", d->sys);
			snprintf(s->def_ev, sizeof(s->def_ev), "%s", d->ev);
			s->def.sys = s->def_sys;
			s->def.ev = s->def_ev;
		}
		return;
	}
}

static int env_var(void *arg, const char *name, const char *msys, const char *mev,
		   struct utrace_hist_var_info *out)
{
	const struct utrace_hist_scope *sc = arg;
	const bool qualified = strchr(name, '.') != NULL; /* sys.event.var */
	struct env_search s = {0};

	if (!(s.var = utrace_hist_var_name(name, s.sys, s.ev, sizeof(s.sys))))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	for (int pass = qualified || !msys; pass < 2 && !s.found; pass++) {
		if (!pass) { /* onmatch(): its event's variable first */
			snprintf(s.sys, sizeof(s.sys), "%s", msys);
			snprintf(s.ev, sizeof(s.ev), "%s", mev);
		} else if (!qualified) {
			s.sys[0] = s.ev[0] = 0;
		}
		sc->each(sc->arg, s.var, s.sys, s.ev, env_visit, &s);
	}
	if (s.found > 1)
		return UTRACE_HIST_ERR_VAR_NOT_UNIQUE;
	if (!s.found)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	return sc->layout(sc->arg, &s.def, out);
}

int utrace_synth_lookup(struct utrace_synth *const *synths, unsigned n, const char *name,
			struct utrace_hist_synth_info *out)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(synths[i]->name, name)) {
			utrace_synth_info(synths[i], i, out);
			return 0;
		}
	return UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND;
}

static int env_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	const struct utrace_hist_scope *sc = arg;

	return utrace_synth_lookup(sc->synths, sc->nr_synths, name, out);
}

const struct utrace_hist_env *utrace_hist_scope_env(struct utrace_hist_scope *sc)
{
	sc->env = (struct utrace_hist_env){sc->each ? env_var : NULL, env_synth, sc};
	return &sc->env;
}

int utrace_trigger_compile(const struct utrace_trigger *t, const struct utrace_event_format *fmt,
			   const struct utrace_hist_env *env, void **prog, uint32_t *len,
			   int *code, struct utrace_error *err)
{
	int ret;

	*prog = NULL;
	*len = 0;
	*code = UTRACE_HIST_ERR_NONE;
	if (t->hist)
		return utrace_hist_compile_env(t->hist, fmt, env, prog, len, code, err);
	if (!t->filter)
		return 0;
	ret = utrace_filter_compile(fmt, t->filter, prog, len, err);
	if (ret < 0) {
		*code = -1;
		if (err->column > (int)t->filter_skip) /* a column of the trigger's own */
			err->column += (int)t->filter_pos - (int)t->filter_skip;
		else
			err->column = 0;
	}
	return ret;
}

bool utrace_hist_prog_resolves(const void *prog)
{
	const struct utrace_hist_hdr *h = prog;
	const struct utrace_hist_insn *in = utrace_hist_insns(h);

	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (in[i].op == UTRACE_HOP_RESOLVE)
			return true;
	return false;
}
