/* SPDX-License-Identifier: MIT */
/*
 * recorder_khist.c - the triggers of kernel events, set up before the
 * traced command runs.  This kernel has no hist triggers
 * (CONFIG_HIST_TRIGGERS), so the recorder runs them itself on the records
 * it reads from tracefs (recorder_kmerge.c), exactly as the runtime runs a
 * user event's:
 *
 *   utrace_ktrace_formats()  each enabled event's format    rec_hist_kformat: kept
 *   utrace_recorder_kready() every format known             rec_kready:
 *       the --synthetic events get kernel ids after the kernel's ones and
 *       an EVENT_FORMAT each, so the records the recorder fires for them
 *       sit with the kernel's on one timeline;
 *       each kernel -e's triggers compiled for each format it names (a
 *       $var is found among the kernel -e's, so the format of the event
 *       that defines it must be known: hence the wait for the last);
 *       each synthetic event's -R compiled for its format, on the table
 *       the traced processes share (the same one, if they fire it too);
 *       which records are saved: an event of a -v -e (triggers only) or
 *       an enable_event target no -e names starts soft-disabled; the
 *       kernel's kernel_stack entries (a stacktrace trigger the kernel
 *       runs, cmds/record_triggers.c) go with the event before them;
 *       in a live recording, trace_marker's event (ftrace:print) a
 *       kernel id after those, so that the top level's marker writes
 *       are records of the merge and their triggers meet the kernel
 *       events' variables (rec_kmerge_marker);
 *       the trigger commands bound (recorder_trig.c), the merge made.
 *
 * A user event's trigger that refers to a kernel event's variable (or
 * the other way round) is not supported: the two run in different
 * processes, on tables the other never sees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/synth.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_trig.h"

int rec_hist_kformat(struct utrace_recorder *r, const char *system, const char *name, int id,
		     const char *text, struct utrace_error *err)
{
	struct utrace_event_format *fmt = NULL;

	(void)name;
	if (id < 0 || (unsigned)id >= REC_KIDS)
		return 0;
	if (utrace_event_format_parse(system, text, &fmt, err) < 0)
		return err->code;
	return rec_kfmt_add(r, id, -1, fmt, err);
}

/* Whether the kernel records go through the merge: some kernel -e has
 * triggers, or is -v (read for nothing else), or is a target only. */
static bool kready_needed(const struct utrace_recorder *r)
{
	if (r->o.live && r->o.nkspecs) /* the tracefs's triggers (recorder_livekev.c) */
		return true;
	for (unsigned i = 0; i < r->o.nkspecs; i++)
		if (r->o.kspecs[i].nr_triggers || r->o.kspecs[i].exclude ||
		    r->o.kspecs[i].target_only)
			return true;
	return false;
}

/* The --synthetic events: kernel ids after the highest of the kernel's,
 * their formats with those ids written before any page. */
static int kready_synths(struct utrace_recorder *r, struct utrace_error *err)
{
	int next = 0, ret;

	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (k->id >= next)
			next = k->id + 1;
	for (unsigned i = 0; i < r->o.nr_synths; i++, next++) {
		if ((unsigned)next >= REC_KIDS)
			return utrace_error_set(err, -E2BIG, "no kernel id left for synthetic:%s",
						r->o.synths[i]->name);
		if ((ret = rec_ksynth_format(r, i, next, err)) < 0)
			return ret;
	}
	return 0;
}

/* Trigger k of spec i (kernel, or user for a synthetic event) compiled
 * for kf's format; a bad one stops the recording before it starts. */
static int kready_one(struct utrace_recorder *r, unsigned i, bool kernel, unsigned k,
		      const struct rec_kfmt *kf, const struct utrace_event_format *fmt,
		      struct utrace_error *err)
{
	const struct utrace_event_spec *sp =
	    kernel ? &r->o.kspecs[i] : utrace_event_select_spec(r->o.events, i);
	struct rec_hist *h =
	    rec_hist_get(r, i | (kernel ? REC_HIST_KERNEL : 0), k, sp->triggers[k],
			 utrace_trigger_parsed(sp, k), fmt, kernel, UTRACE_EVENT_NOOBJ, err);
	char msg[sizeof(err->msg)];

	if (h) {
		rec_hist_set_kid(h, kf->id);
		return 0;
	}
	if (!err->code)
		return 0; /* not a hist trigger */
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return utrace_error_set(err, err->code < 0 ? err->code : -EINVAL, "-R '%s' on %s:%s: %s",
				sp->triggers[k], fmt->system, fmt->name, msg);
}

/* Saved if an -e before -v names it and none after -v does (as a user
 * event: utrace_event_select_soft), not if only an enable_event target. */
static bool kready_kept(const struct utrace_event_spec *sp, unsigned n, const char *sys,
			const char *name)
{
	bool kept = false;

	for (unsigned i = 0; i < n; i++) {
		if (!utrace_event_spec_matches(sp[i].pattern, sys, name))
			continue;
		if (sp[i].exclude)
			return false;
		kept |= !sp[i].target_only;
	}
	return kept;
}

static int kready_fmt(struct utrace_recorder *r, const struct rec_kfmt *kf,
		      struct utrace_error *err)
{
	const struct utrace_event_format *fmt = kf->fmt;
	struct utrace_event_select *s = r->o.events;
	bool kept;

	if (kf->synth < 0 && !strcmp(fmt->system, "ftrace") && !strcmp(fmt->name, "kernel_stack")) {
		/* the kernel's stacktrace trigger's: kept with their event
		 * (recorder_kmerge.c), read by the hists keyed on them */
		kept = true;
	} else if (kf->synth < 0) {
		kept = kready_kept(r->o.kspecs, r->o.nkspecs, fmt->system, fmt->name);
		for (unsigned i = 0; i < r->o.nkspecs; i++)
			for (unsigned k = 0; utrace_event_spec_matches(r->o.kspecs[i].pattern,
								       fmt->system, fmt->name) &&
					     k < r->o.kspecs[i].nr_triggers;
			     k++)
				if (kready_one(r, i, true, k, kf, fmt, err) < 0)
					return err->code;
	} else {
		/* the synthetic event's -R: compiled for the format the traced
		 * processes have, on the table they share */
		const struct utrace_event_format *uf =
		    s ? utrace_event_select_format(s, UTRACE_EVENT_NOOBJ, fmt->system, fmt->name)
		      : NULL;

		kept = uf && !utrace_event_select_soft(s, fmt->system, fmt->name);
		for (unsigned i = 0; uf && i < utrace_event_select_count(s); i++) {
			const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

			if (!utrace_event_spec_matches(sp->pattern, fmt->system, fmt->name))
				continue;
			for (unsigned k = 0; k < sp->nr_triggers; k++)
				if (kready_one(r, i, false, k, kf, uf, err) < 0)
					return err->code;
		}
	}
	rec_trig_kset(r, kf->id, kept ? 0 : UTRACE_EVS_OFF);
	return 0;
}

/* A live recording's trace_marker (ftrace:print): a kernel id after the
 * others, its records saved (recorder_kmerge.c rec_kmerge_marker). */
static int kready_print(struct utrace_recorder *r, struct utrace_error *err)
{
	int next = 0;

	for (const struct rec_kfmt *k = rec_kfmt_first(r); k; k = k->next)
		if (k->id >= next)
			next = k->id + 1;
	if (next >= UTRACE_EV_ID_BASE)
		return utrace_error_set(err, -E2BIG, "no kernel id left for ftrace:print");
	if (rec_kprint_format(r, next, err) < 0)
		return err->code;
	rec_trig_kset(r, next, 0);
	return 0;
}

int rec_kready(struct utrace_recorder *r, struct utrace_error *err)
{
	err->code = 0;
	if (!kready_needed(r))
		return 0;
	if (rec_trig_kstart(r) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (kready_synths(r, err) < 0)
		return err->code;
	for (const struct rec_kfmt *kf = rec_kfmt_first(r); kf; kf = kf->next)
		if (kready_fmt(r, kf, err) < 0)
			return err->code;
	if (r->o.live && kready_print(r, err) < 0)
		return err->code;
	if (rec_trig_kready(r, err) < 0)
		return err->code;
	return rec_kmerge_new(r, err);
}
