/* SPDX-License-Identifier: MIT */
/*
 * recorder_livetrig.c - the triggers of the events of a live recording
 * (lib/tracefs's events/.../trigger, hist): each event's one list, every
 * reader's (the top level's, an instance's) triggers in it, set as the
 * tracefs writes a reader's whole list, kept here with their counters and
 * hist tables, and pushed to the processes as the event's configuration
 * (recorder_liveev.c); their counts, soft mode and tables read back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_trig.h"

/* A new trigger: parsed and checked by lib/tracefs as it was written (held
 * here too), its counter and target (of a kernel event's, kev: an event
 * the tracefs shows, kernel or user). */
static int live_trig_new(struct utrace_recorder *r, struct rec_live_trig *x, unsigned reader,
			 const char *text, const struct utrace_trigger *t, bool kev)
{
	*x = (struct rec_live_trig){.count_idx = -1, .target = -1, .reader = reader};
	if (!(x->text = strdup(text)))
		return -ENOMEM;
	if (!(x->t = utrace_trigger_get(t)))
		return -EINVAL;
	x->serial = ++r->lev->live_serial;
	if (rec_trig_has_target(x->t) && kev) {
		/* a kernel event's, run by the recorder: a kernel or a user target */
		x->target = rec_live_id(r, x->t->target_system, x->t->target_event);
		if (x->target < 0 ||
		    (x->target >= UTRACE_EV_ID_BASE && !rec_live_ev_state(r, x->target)))
			return -E2BIG;
	} else if (rec_trig_has_target(x->t)) {
		x->target =
		    utrace_event_select_id(r->o.events, x->t->target_system, x->t->target_event);
		if (!rec_live_ev_state(r, x->target))
			return -E2BIG;
	}
	if (x->t->cmd != UTRACE_TRIG_HIST && x->t->count >= 0) {
		if ((x->count_idx = rec_trig_count_new(r)) < 0)
			return -E2BIG;
		r->ctl->trig_count[x->count_idx] = x->t->count;
	}
	return 0;
}

static void live_trig_drop(struct utrace_recorder *r, struct rec_live_trig *x)
{
	rec_hist_drop(r, REC_HIST_LIVE | x->serial);
	utrace_trigger_free(x->t);
	free(x->text);
}

/* Old trigger k of reader's of e that texts[i] names again, e->nr_trigs
 * if none. */
static unsigned live_trig_find(const struct rec_live_ev *e, const bool *kept, unsigned reader,
			       const char *text)
{
	unsigned k;

	for (k = 0; k < e->nr_trigs && (kept[k] || e->trigs[k].reader != reader ||
					strcmp(e->trigs[k].text, text));
	     k++)
		;
	return k;
}

/* What an instance's trigger may be: those runtime/event_trigger.c runs
 * on its own state (enable_hist and disable_hist its hists' bit of the
 * event), snapshot (taken as its: the request says whose), and hist (a
 * table of its own, filled as the top level's). */
static bool live_reader_cmd(unsigned cmd)
{
	return cmd == UTRACE_TRIG_TRACEON || cmd == UTRACE_TRIG_TRACEOFF ||
	       cmd == UTRACE_TRIG_STACKTRACE || cmd == UTRACE_TRIG_ENABLE_EVENT ||
	       cmd == UTRACE_TRIG_DISABLE_EVENT || cmd == UTRACE_TRIG_SNAPSHOT ||
	       cmd == UTRACE_TRIG_HIST || cmd == UTRACE_TRIG_ENABLE_HIST ||
	       cmd == UTRACE_TRIG_DISABLE_HIST;
}

/* The other readers' triggers of e, first in next (kept): *j of them. */
static void live_trigs_others(const struct rec_live_ev *e, unsigned reader,
			      struct rec_live_trig *next, bool *kept, unsigned *j)
{
	for (unsigned k = 0; k < e->nr_trigs; k++)
		if (e->trigs[k].reader != reader) {
			kept[k] = true;
			next[(*j)++] = e->trigs[k];
		}
}

int utrace_recorder_live_triggers(struct utrace_recorder *r, unsigned reader, const char *system,
				  const char *name, const char *const *texts,
				  struct utrace_trigger *const *trigs, unsigned n,
				  struct utrace_error *err)
{
	int id = rec_live_id(r, system, name);
	struct rec_live_ev *e = id >= 0 ? rec_live_ev_of(r, id, system, name) : NULL;
	struct rec_live_trig *next = e ? calloc(e->nr_trigs + n + 1, sizeof(*next)) : NULL;
	bool *kept = e ? calloc(e->nr_trigs + 1, sizeof(bool)) : NULL, *fresh = calloc(n + 1, 1);
	int ret = e && next && kept && fresh ? 0 : -ENOMEM;
	bool kev = id >= 0 && id < UTRACE_EV_ID_BASE; /* run by the recorder */
	bool kep = id >= 0 && rec_kep_bound(r, id); /* its records the recorder's */
	unsigned j = 0;

	if (n && kep && ret >= 0)
		ret = -EOPNOTSUPP;

	/* a kernel event's stack is the kernel's (its stacktrace trigger,
	 * which the session arms): none for trace_marker's writes */
	for (unsigned i = 0; i < n && ret >= 0 && kev; i++)
		if (trigs[i]->cmd == UTRACE_TRIG_STACKTRACE && !rec_trig_kstack_ok(r, id))
			ret = -EOPNOTSUPP;

	for (unsigned i = 0; i < n && ret >= 0 && reader; i++)
		if (reader >= UTRACE_READERS || !live_reader_cmd(trigs[i]->cmd) ||
		    (kev && trigs[i]->cmd != UTRACE_TRIG_HIST)) /* a kernel event's: hists */
			ret = -EOPNOTSUPP;
	if (ret >= 0)
		live_trigs_others(e, reader, next, kept, &j);
	/* a trigger kept keeps its table and counter */
	for (unsigned i = 0; i < n && ret >= 0; i++) {
		unsigned k = live_trig_find(e, kept, reader, texts[i]);

		if (k < e->nr_trigs) {
			kept[k] = true;
			next[j + i] = e->trigs[k];
		} else {
			fresh[i] = true;
			ret = live_trig_new(r, &next[j + i], reader, texts[i], trigs[i], kev);
		}
	}
	/* a table whose variables another trigger reads stays (EBUSY) */
	for (unsigned k = 0; ret >= 0 && k < e->nr_trigs; k++)
		if (!kept[k] && rec_hist_referenced(r, REC_HIST_LIVE | e->trigs[k].serial))
			ret = -EBUSY;
	for (unsigned i = 0; i < n && next; i++) /* failed: the new ones go, else the old */
		if (ret < 0 && fresh && fresh[i])
			live_trig_drop(r, &next[j + i]);
	for (unsigned k = 0; ret >= 0 && k < e->nr_trigs; k++)
		if (!kept[k])
			live_trig_drop(r, &e->trigs[k]);
	free(kept);
	free(fresh);
	if (ret == -EOPNOTSUPP) {
		free(next);
		return utrace_error_set(err, -EINVAL, "%s:%s: not a trigger %s", system, name,
					kep	 ? "an event probe on a kernel event has"
					: reader ? "an instance has"
						 : "a kernel event has here");
	}
	if (ret < 0) {
		free(next);
		return utrace_error_set(err, id < 0 ? id : ret, "%s:%s: trigger not set: %s",
					system, name, strerror(-ret));
	}
	free(e->trigs);
	e->trigs = next;
	e->nr_trigs = j + n;
	return rec_live_ev_push(r, e, system, name, err);
}

int utrace_recorder_live_hist_var(struct utrace_recorder *r, unsigned reader, const char *system,
				  const char *name, const char *var, const char *msys,
				  const char *mev, struct utrace_hist_var_info *out)
{
	int id = rec_live_id(r, system, name);

	if (id < 0)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	return rec_hist_var(r, reader, id < UTRACE_EV_ID_BASE ? NULL : rec_ev_path(r, id), var,
			    msys, mev, out);
}

int utrace_recorder_live_synth(struct utrace_recorder *r, const char *synth,
			       struct utrace_hist_synth_info *out)
{
	return rec_synth_lookup(r, synth, out);
}

int utrace_recorder_live_trigger_ctl(struct utrace_recorder *r, unsigned reader,
				     const char *system, const char *name, const char *text,
				     int what, long *count, bool *paused)
{
	int id = rec_live_id(r, system, name);
	const struct rec_live_ev *e = id >= 0 ? rec_live_ev_of(r, id, NULL, NULL) : NULL;
	const struct rec_live_trig *x = NULL;

	for (unsigned i = 0; e && i < e->nr_trigs && !x; i++)
		if (e->trigs[i].reader == reader && !strcmp(e->trigs[i].text, text))
			x = &e->trigs[i];
	if (!x)
		return -ENOENT;
	/* :N as the processes have used it up (runtime/event_trigger.c) */
	*count = x->count_idx >= 0
		     ? (long)__atomic_load_n(&r->ctl->trig_count[x->count_idx], __ATOMIC_ACQUIRE)
		     : -1;
	*paused = false;
	if (x->t->cmd != UTRACE_TRIG_HIST)
		return 0;
	return rec_hist_ctl(r, REC_HIST_LIVE | x->serial, what, paused);
}

/* Whether a trigger command of t's kind names id as its target. */
static bool live_targets(const struct utrace_trigger *t, int target, int id)
{
	return t->cmd >= UTRACE_TRIG_ENABLE_EVENT && t->cmd <= UTRACE_TRIG_DISABLE_HIST &&
	       target == id;
}

bool utrace_recorder_live_soft(struct utrace_recorder *r, unsigned reader, const char *system,
			       const char *name)
{
	int id = rec_live_id(r, system, name);

	const struct rec_live_ev *own = id >= 0 ? rec_live_ev_of(r, id, NULL, NULL) : NULL;
	unsigned nh = 0, nt = 0;

	if (id < 0)
		return false;
	/* a trigger of its own (trace_event_trigger_enable_disable); the
	 * command line's are the top level's */
	if (!reader)
		rec_live_spec_counts(r, system, name, &nh, &nt);
	for (unsigned i = 0; own && i < own->nr_trigs; i++)
		nt += own->trigs[i].reader == reader;
	if (nh + nt)
		return true;
	/* or the target of another's enable_/disable_ (event_enable_register_trigger) */
	for (const struct rec_live_ev *e = r->lev->live_evs; e; e = e->next)
		for (unsigned i = 0; i < e->nr_trigs; i++)
			if (e->trigs[i].reader == reader &&
			    live_targets(e->trigs[i].t, e->trigs[i].target, id))
				return true;
	return !reader && rec_trig_targets(r, id); /* the command line's -R */
}

int utrace_recorder_live_hists(struct utrace_recorder *r, unsigned reader, const char *system,
			       const char *name,
			       int (*cb)(void *arg, const char *text,
					 const struct utrace_hist_table *t),
			       void *arg, struct utrace_error *err)
{
	int id = rec_live_id(r, system, name);
	const struct rec_live_ev *e = id >= 0 ? rec_live_ev_of(r, id, NULL, NULL) : NULL;
	int ret = 0;

	for (unsigned i = 0; e && i < e->nr_trigs && ret >= 0; i++) {
		const struct rec_hist *h = rec_hist_find(r, REC_HIST_LIVE | e->trigs[i].serial);
		struct utrace_hist_table t = {0};
		uint8_t *elts;

		/* another reader's, or no object had the event yet: no table */
		if (e->trigs[i].reader != reader || !h)
			continue;
		if (rec_hist_table(r, h, &t, &elts) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		ret = cb(arg, e->trigs[i].text, &t);
		free(elts);
	}
	return ret < 0 ? utrace_error_set(err, ret, "%s:%s: hist not shown", system, name) : 0;
}
