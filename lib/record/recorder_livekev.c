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
 *            kernel's soft mode; every one starts off, as the kernel's
 *   trigger  hist triggers, compiled for the kernel's format with the
 *            kernel id, run by rec_hist_krun as a -R's (recorder_khist.c);
 *            the other commands are not run on kernel events yet (EINVAL)
 *
 * An event the kernel and a traced object both define (a program whose
 * static tracepoints carry the kernel's names, as sched:sched_switch)
 * is the kernel's here: the -e named the kernel's, and what the tracefs
 * shows of it (format, id) must be what the records saved are.  The
 * tracefs's per-event state (rec_live_ev) is kept by id as a user
 * event's: kernel ids are below UTRACE_EV_ID_BASE, user ids from it.
 */
#include <errno.h>
#include <string.h>

#include "common/proto.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_trig.h"

/* A kernel event the tracefs shows: a kernel format of a kernel -e (not
 * a synthetic event's, not the kernel's internal ftrace entries). */
static bool kev_shown(const struct utrace_recorder *r, const struct rec_kfmt *k)
{
	return r->o.live && r->km && k->synth < 0 && k->id < UTRACE_EV_ID_BASE &&
	       strcmp(k->fmt->system, "ftrace");
}

static const struct rec_kfmt *kev_find(const struct utrace_recorder *r, const char *sys,
				       const char *name)
{
	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (kev_shown(r, k) && !strcmp(k->fmt->system, sys) && !strcmp(k->fmt->name, name))
			return k;
	return NULL;
}

int utrace_recorder_live_kid(const struct utrace_recorder *r, const char *sys, const char *name)
{
	const struct rec_kfmt *k = kev_find(r, sys, name);

	return k ? k->id : -ENOENT;
}

const struct utrace_event_format *utrace_recorder_live_kevent(const struct utrace_recorder *r,
							      size_t i)
{
	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (kev_shown(r, k) && !i--)
			return k->fmt;
	return NULL;
}

int rec_live_kev_enable(struct utrace_recorder *r, int kid, int set)
{
	if (set >= 0)
		rec_trig_kswitch(r, kid, set);
	return rec_trig_kswitch(r, kid, -1);
}

/* The tracefs's triggers of kernel event e, set: a hist trigger gets its
 * table (REC_HIST_LIVE | serial) compiled for the kernel's format, once;
 * rec_hist_krun runs it from the next record merged. */
int rec_live_kev_push(struct utrace_recorder *r, const struct rec_live_ev *e,
		      struct utrace_error *err)
{
	const struct rec_kfmt *k = kev_find(r, e->sys, e->name);

	if (!k)
		return utrace_error_set(err, -ENOENT, "%s:%s: no such kernel event", e->sys,
					e->name);
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
