/* SPDX-License-Identifier: MIT */
/*
 * hist_env.h - the environment hist triggers are compiled in
 * (hist_env.c): the triggers that may define a $variable and the
 * synthetic events an action may fire, as one struct utrace_hist_env.
 */
#ifndef UTRACE_LIB_HIST_ENV_H
#define UTRACE_LIB_HIST_ENV_H

#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"
#include "lib/hist/synth.h"

/* A parsed trigger t of event sys:ev (an exact name) that may define a
 * variable; spec, k: the caller's (which -e, which -R); v: the variable
 * found, when layout() is given it.  sys and ev need only last the visit
 * (the search keeps a copy); text and t must last the search. */
struct utrace_hist_def {
	const char *sys, *ev;
	const char *text;
	const struct utrace_trigger *t;
	unsigned spec, k, v;
};

struct utrace_hist_scope {
	/* every trigger of the scope, each to visit(ctx, def); NULL: a
	 * trigger compiled alone, whose $names are not found.  var, sys, ev:
	 * what is looked for (sys "" for any event), for a scope that can
	 * pick; visit checks it all the same */
	void (*each)(void *arg, const char *var, const char *sys, const char *ev,
		     void (*visit)(void *ctx, const struct utrace_hist_def *d), void *ctx);
	/* what $name refers to, now that def (the only one that defines it)
	 * is found: 0 and *out filled, or a UTRACE_HIST_ERR_* */
	int (*layout)(void *arg, const struct utrace_hist_def *def,
		      struct utrace_hist_var_info *out);
	/* what an action's EMIT may fire: synths[i] has id i */
	struct utrace_synth *const *synths;
	unsigned nr_synths;
	void *arg;
	struct utrace_hist_env env; /* utrace_hist_scope_env's */
};

/* The compiler's env over sc (which must outlive it): $name as the
 * kernel finds it (the onmatch() event's first, "sys.event.var", else
 * the only one), synthetic events by name. */
const struct utrace_hist_env *utrace_hist_scope_env(struct utrace_hist_scope *sc);

/*
 * Compiles parsed trigger t for events of format fmt in env (NULL: no
 * other trigger, no synthetic event): a hist trigger's program, another
 * command's filter program (NULL, 0 if it has none).  On error < 0 with
 * *code a UTRACE_HIST_ERR_* (-1 for an error of a filter, err->msg its
 * text) and err->column the 1-based column in the trigger's text.
 */
int utrace_trigger_compile(const struct utrace_trigger *t, const struct utrace_event_format *fmt,
			   const struct utrace_hist_env *env, void **prog, uint32_t *len,
			   int *code, struct utrace_error *err);

/* Whether hist program prog RESOLVEs another trigger's table: its
 * table ids are the compiling env's (the recorder's, not a check's). */
bool utrace_hist_prog_resolves(const void *prog);

/* Synthetic event name among synths[0..n): 0 with *out (its id: its
 * index), or UTRACE_HIST_ERR_SYNTH_EVENT_NOT_FOUND. */
int utrace_synth_lookup(struct utrace_synth *const *synths, unsigned n, const char *name,
			struct utrace_hist_synth_info *out);

#endif
