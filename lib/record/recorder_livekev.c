/* SPDX-License-Identifier: MIT */
/*
 * recorder_livekev.c - the kernel events of a live recording (utrace
 * record --tracefs with -e SYSTEM:EVENT naming kernel events): the
 * tracefs shows them as its events/SYSTEM/EVENT, and what is written to
 * their files is done here, in the recorder, on the records read from
 * the kernel's instance (recorder_kmerge.c runs them in time order):
 *
 *   enable   the event's switch in the merge (rec_trig_kswitch): off,
 *            its records are read (its triggers run) but not saved, the
 *            kernel's soft mode; each starts on, as the -e named it (as
 *            a user event the command line records)
 *   filter   compiled for the kernel's format, run on each record
 *            merged: one it fails is not saved (rec_live_kev_keep)
 *   trigger  hist triggers, compiled for the kernel's format with the
 *            kernel id, run by rec_hist_krun as a -R's (recorder_khist.c);
 *            the other commands (the top level's) bound to the kernel id
 *            and run by the merge as a -R's (recorder_ktrig.c
 *            rec_trig_klive); stacktrace's stack is the kernel's own
 *            trigger's, which lib/session arms (none for trace_marker's
 *            print: EINVAL)
 *   set_event_pid, set_event_notrace_pid
 *            the control page's lists the traced processes read (event-
 *            fork adds a child at its HELLO), applied to each record as
 *            the kernel's pid filter does (kev_pids_keep)
 *
 * A synthetic event defined while running gets a kernel id too
 * (rec_live_ksynth_add), so the kernel events' onmatch() can fire it,
 * and its hist tables are run on those records as well.
 *
 * An event the kernel and a traced object both define (a program whose
 * static tracepoints carry the kernel's names, as sched:sched_switch)
 * is the kernel's here: the -e named the kernel's, and what the tracefs
 * shows of it (format, id) must be what the records saved are.  The
 * tracefs's per-event state (rec_live_ev) is kept by id as a user
 * event's: kernel ids are below UTRACE_EV_ID_BASE, user ids from it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/filter_prog.h"
#include "common/proto.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/hist/synth.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_trig.h"

/* A kernel event shown, or trace_marker's when the merge has it (its
 * triggers run there on the marker writes, recorder_kmarker.c). */
static const struct rec_kfmt *kev_find(const struct utrace_recorder *r, const char *sys,
				       const char *name)
{
	const struct rec_kfmt *k = rec_kfmt_shown(r, sys, name);

	if (!k && rec_is_print(sys, name) && rec_kmerge_print_id(r) >= 0)
		k = rec_kfmt_find(r, sys, name);
	return k;
}

int utrace_recorder_live_kid(const struct utrace_recorder *r, const char *sys, const char *name)
{
	const struct rec_kfmt *k = kev_find(r, sys, name);

	return k ? k->id : -ENOENT;
}

const struct utrace_event_format *utrace_recorder_live_kformat(const struct utrace_recorder *r,
							       const char *sys, const char *name)
{
	const struct rec_kfmt *k = kev_find(r, sys, name);

	return k ? k->fmt : NULL;
}

const struct utrace_event_format *utrace_recorder_live_kevent(const struct utrace_recorder *r,
							      size_t i)
{
	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (rec_kfmt_is_shown(r, k) && !i--)
			return k->fmt;
	return NULL;
}

int rec_live_kev_enable(struct utrace_recorder *r, int kid, int set)
{
	if (set >= 0)
		rec_trig_kswitch(r, kid, set);
	return rec_trig_kswitch(r, kid, -1);
}

/* The tracefs's filter of kernel event e compiled for the kernel's
 * format (rec_live_kev_keep runs it), or none. */
static int kev_filter(const struct rec_kfmt *k, struct rec_live_ev *e, struct utrace_error *err)
{
	void *code = NULL;
	uint32_t len = 0;

	if (e->filter && utrace_filter_compile(k->fmt, e->filter, &code, &len, err) < 0)
		return err->code;
	free(e->prog);
	e->prog = code;
	e->prog_len = len;
	return 0;
}

/* The tracefs's filter and triggers of kernel event e, set: a hist
 * trigger gets its table (REC_HIST_LIVE | serial) compiled for the
 * kernel's format, once; rec_hist_krun runs it from the next record
 * merged. */
int rec_live_kev_push(struct utrace_recorder *r, struct rec_live_ev *e, struct utrace_error *err)
{
	const struct rec_kfmt *k = kev_find(r, e->sys, e->name);

	if (!k)
		return utrace_error_set(err, -ENOENT, "%s:%s: no such kernel event", e->sys,
					e->name);
	/* the commands other than hist run in the merge (recorder_ktrig.c) */
	if (rec_trig_klive(r, k->id, k->fmt, e->trigs, e->nr_trigs, err) < 0 ||
	    kev_filter(k, e, err) < 0)
		return err->code;
	for (unsigned i = 0; i < e->nr_trigs; i++) {
		const struct rec_live_trig *x = &e->trigs[i];
		struct rec_hist *h;

		if (x->t->cmd != UTRACE_TRIG_HIST || rec_hist_find(r, REC_HIST_LIVE | x->serial))
			continue;
		err->code = 0;
		h = rec_hist_get(r, REC_HIST_LIVE | x->serial, 0, x->text, x->t, k->fmt, true,
				 UTRACE_EVENT_NOOBJ, err);
		if (!h)
			return err->code ? err->code
					 : utrace_error_set(err, -EINVAL, "%s:%s: not a hist trigger",
							    e->sys, e->name);
		rec_hist_set_kid(h, k->id);
	}
	return 0;
}

/* ---- set_event_pid ------------------------------------------------------ */

static bool kev_pid_in(const int32_t *list, int32_t pid)
{
	for (unsigned i = 0; i < UTRACE_EV_PIDS; i++) {
		int32_t p = __atomic_load_n(&list[i], __ATOMIC_RELAXED);

		if (!p)
			return false;
		if (p == pid)
			return true;
	}
	return false;
}

/* The kernel's trace_ignore_this_task: not in a set set_event_pid, or in
 * set_event_notrace_pid. */
static bool kev_ignored(const struct utrace_recorder *r, int32_t pid)
{
	const int32_t *pids = r->ctl->ev_pids, *no = r->ctl->ev_notrace_pids;

	if (__atomic_load_n(&pids[0], __ATOMIC_ACQUIRE) && !kev_pid_in(pids, pid))
		return true;
	return kev_pid_in(no, pid);
}

/* The int field name of rec, if the format has one: its value in *v. */
static bool kev_int(const struct utrace_event_format *f, const char *name, const uint8_t *rec,
		    uint32_t len, int32_t *v)
{
	const struct utrace_event_field *fd = utrace_event_field_find(f, name);

	if (!fd || fd->size != 4 || fd->offset + 4 > len)
		return false;
	memcpy(v, rec + fd->offset, 4);
	return true;
}

/*
 * As the kernel's pid filter: a record of a task it ignores is dropped,
 * but sched_switch is kept when either task is not ignored, and the
 * wakeups when the task woken is not (its sched_switch and sched_wakeup*
 * probes, which clear ignore_pid for them).
 */
static bool kev_pids_keep(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len)
{
	const struct rec_kfmt *k;
	int32_t pid, other;

	if (!__atomic_load_n(&r->ctl->ev_pids[0], __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&r->ctl->ev_notrace_pids[0], __ATOMIC_ACQUIRE))
		return true;
	memcpy(&pid, rec + 4, 4); /* common_pid */
	if (!kev_ignored(r, pid))
		return true;
	for (k = rec_kfmt_first(r); k && k->id != kid; k = k->next)
		;
	if (!k || strcmp(k->fmt->system, "sched"))
		return false;
	if (!strcmp(k->fmt->name, "sched_switch"))
		return (kev_int(k->fmt, "prev_pid", rec, len, &other) && !kev_ignored(r, other)) ||
		       (kev_int(k->fmt, "next_pid", rec, len, &other) && !kev_ignored(r, other));
	if (!strncmp(k->fmt->name, "sched_wak", 9))
		return kev_int(k->fmt, "pid", rec, len, &other) && !kev_ignored(r, other);
	return false;
}

bool rec_live_kev_keep(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len)
{
	const struct rec_live_ev *e;

	/* a trace_marker write is no trace event: neither an event filter
	 * nor the pid lists apply to it, as in the kernel */
	if (!r->o.live || len < 8 || kid == rec_kmerge_print_id(r))
		return true;
	e = rec_live_ev_of(r, kid, NULL, NULL);
	if (e && e->prog && !utrace_filter_run(e->prog, e->prog_len, rec, len))
		return false;
	return kev_pids_keep(r, kid, rec, len);
}

/* ---- synthetic events defined while running --------------------------- */

/*
 * Synthetic event n (recorder_live.c utrace_recorder_synth_add) in a
 * recording whose merge runs: a kernel id of its own after the highest
 * one and a format with it (as recorder_khist.c gives a --synthetic
 * event), so that an onmatch() of a kernel event's trigger fires it in
 * the merge (km_emit) among the kernel's records; saved while its
 * enable is on.
 */
int rec_live_ksynth_add(struct utrace_recorder *r, unsigned n, struct utrace_error *err)
{
	int next = 0, ret;

	if (!r->km)
		return 0;
	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (k->id >= next)
			next = k->id + 1;
	if (next >= UTRACE_EV_ID_BASE)
		return utrace_error_set(err, -E2BIG, "no kernel id left for synthetic:%s",
					r->o.synths[n]->name);
	if ((ret = rec_ksynth_format(r, n, next, err)) < 0)
		return ret;
	rec_trig_kset(r, next, UTRACE_EVS_OFF); /* off until its enable says 1 */
	return 0;
}

/* The kernel id of synthetic event n, -1 if it has none. */
static int ksynth_kid(const struct utrace_recorder *r, unsigned n)
{
	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (k->synth == (int)n)
			return k->id;
	return -1;
}

void rec_live_ksynth_enable(struct utrace_recorder *r, unsigned n, int on)
{
	int kid = ksynth_kid(r, n);

	if (kid >= 0)
		rec_trig_kswitch(r, kid, on);
}

/* The tracefs's hist triggers of synthetic event n, set (e): their
 * tables, which the traced processes fill, are run by the merge too on
 * the records the kernel events' onmatch() fire. */
void rec_live_ksynth_hists(struct utrace_recorder *r, unsigned n, const struct rec_live_ev *e)
{
	int kid = ksynth_kid(r, n);

	for (unsigned i = 0; kid >= 0 && i < e->nr_trigs; i++) {
		const struct rec_live_trig *x = &e->trigs[i];
		struct utrace_error err = {0};
		struct rec_hist *h;

		if (x->t->cmd != UTRACE_TRIG_HIST)
			continue;
		h = rec_hist_get(r, REC_HIST_LIVE | x->serial, 0, x->text, x->t, r->o.synths[n]->fmt,
				 false, UTRACE_EVENT_NOOBJ, &err);
		if (h)
			rec_hist_set_kid(h, kid);
	}
}
