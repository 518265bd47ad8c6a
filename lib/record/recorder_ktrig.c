/* SPDX-License-Identifier: MIT */
/*
 * recorder_ktrig.c - the trigger commands of kernel events, run in the
 * recorder on the kernel's records in time order (recorder_kmerge.c):
 * each bound, once the formats are known, to every kernel event its -e
 * names (its filter compiled for that format, a count of its own, as the
 * kernel's one trigger per event file), its target a kernel event.
 * Their state is the recorder's: kon (traceon/traceoff, copied to
 * tracing_on so that the traced programs' own records stop and start
 * too, a little later) and kstate by kernel id; a hist's pause is its
 * table's.  A snapshot is the recorder's too (this kernel has none),
 * taken once the event that fired it is saved (recorder_kmerge.c);
 * stacktrace is the kernel's own (cmds/record_triggers.c), bound here
 * only so its events' kernel_stack entries are saved with them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_trig.h"

#include "common/filter_prog.h"

static int ktrig_bind(struct utrace_recorder *r, const struct rec_trig *x,
		      const struct rec_kfmt *kf, struct utrace_error *err)
{
	struct rec_ktrig *b = calloc(1, sizeof(*b)), **tail = &r->trig->ktrigs;
	const struct rec_kfmt *tk = NULL;

	if (!b)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*b = (struct rec_ktrig){x, kf->id, -1, x->t->count, NULL, 0, NULL};
	while (*tail) /* in the order of the -R, as they run */
		tail = &(*tail)->next;
	*tail = b;
	if (rec_trig_has_target(x->t)) {
		if (!(tk = rec_kfmt_find(r, x->t->target_system, x->t->target_event)))
			return utrace_error_set(err, -ENOENT, "-R '%s': no kernel event %s:%s",
						r->o.kspecs[x->spec].triggers[x->trig],
						x->t->target_system, x->t->target_event);
		b->target = tk->id;
	}
	/* stacktrace's filter is the kernel's to run (cmds/record_triggers.c) */
	if (x->t->filter && x->t->cmd != UTRACE_TRIG_STACKTRACE &&
	    utrace_filter_compile(kf->fmt, x->t->filter, &b->filter, &b->flen, err) < 0)
		return utrace_error_set(err, err->code, "-R '%s' on %s:%s: %s",
					r->o.kspecs[x->spec].triggers[x->trig], kf->fmt->system,
					kf->fmt->name, err->msg);
	return 0;
}

int rec_trig_kready(struct utrace_recorder *r, struct utrace_error *err)
{
	for (const struct rec_kfmt *kf = rec_kfmt_first(r); kf; kf = kf->next) {
		if (kf->synth >= 0)
			continue;
		if (rec_hist_kpaused(r, kf->id)) /* hist:...:pause */
			r->trig->kstate[kf->id] |= UTRACE_EVS_HIST_PAUSED;
		for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
			if (x->kernel &&
			    utrace_event_spec_matches(r->o.kspecs[x->spec].pattern, kf->fmt->system,
						      kf->fmt->name) &&
			    ktrig_bind(r, x, kf, err) < 0)
				return err->code;
	}
	return 0;
}

int rec_trig_kstart(struct utrace_recorder *r)
{
	if (!(r->trig->kstate = calloc(REC_KIDS, 1)))
		return -ENOMEM;
	r->trig->kon = true;
	r->trig->ksnap_kid = -1;
	return 0;
}

void rec_trig_kset(struct utrace_recorder *r, int kid, uint8_t state)
{
	r->trig->kstate[kid] = state;
}

int rec_trig_kswitch(struct utrace_recorder *r, int kid, int on)
{
	if (on > 0)
		r->trig->kstate[kid] &= (uint8_t)~UTRACE_EVS_OFF;
	else if (on == 0)
		r->trig->kstate[kid] |= UTRACE_EVS_OFF;
	return !(r->trig->kstate[kid] & UTRACE_EVS_OFF);
}

bool rec_trig_kon(const struct utrace_recorder *r)
{
	return r->trig->kon;
}

bool rec_trig_kkeep(const struct utrace_recorder *r, int kid)
{
	return r->trig->kon && !(r->trig->kstate[kid] & UTRACE_EVS_OFF);
}

int rec_trig_ksnap_take(struct utrace_recorder *r)
{
	int kid = r->trig->ksnap_kid;

	r->trig->ksnap_kid = -1;
	return kid;
}

void rec_trig_ksnap_hist(struct utrace_recorder *r)
{
	if (r->trig->ksnap_kid == -1)
		r->trig->ksnap_kid = -2;
}

bool rec_trig_ksnap(const struct utrace_recorder *r)
{
	for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
		if (x->kernel && x->t->cmd == UTRACE_TRIG_SNAPSHOT)
			return true;
	return false;
}

bool rec_trig_kstack(const struct utrace_recorder *r, int kid)
{
	for (const struct rec_ktrig *b = r->trig->ktrigs; b; b = b->next)
		if (b->kid == kid && b->x->t->cmd == UTRACE_TRIG_STACKTRACE)
			return true;
	return false;
}

/* As the runtime's ev_trig_would_change: a count is used up only by a
 * firing that changes something. */
static bool ktrig_changes(const struct utrace_recorder *r, const struct rec_ktrig *b)
{
	uint8_t st = b->target >= 0 ? r->trig->kstate[b->target] : 0;

	switch (b->x->t->cmd) {
	case UTRACE_TRIG_TRACEON:
		return !r->trig->kon;
	case UTRACE_TRIG_TRACEOFF:
		return r->trig->kon;
	case UTRACE_TRIG_ENABLE_EVENT:
		return st & UTRACE_EVS_OFF;
	case UTRACE_TRIG_DISABLE_EVENT:
		return !(st & UTRACE_EVS_OFF);
	case UTRACE_TRIG_ENABLE_HIST:
		return st & UTRACE_EVS_HIST_PAUSED;
	case UTRACE_TRIG_DISABLE_HIST:
		return !(st & UTRACE_EVS_HIST_PAUSED);
	case UTRACE_TRIG_SNAPSHOT:
		return true;
	default: /* hist: recorder_hist.c; stacktrace: the kernel's (cmds/record_triggers.c) */
		return false;
	}
}

static void ktrig_apply(struct utrace_recorder *r, const struct rec_ktrig *b)
{
	uint8_t *st = b->target >= 0 ? &r->trig->kstate[b->target] : NULL;

	switch (b->x->t->cmd) {
	case UTRACE_TRIG_TRACEON:
	case UTRACE_TRIG_TRACEOFF:
		r->trig->kon = b->x->t->cmd == UTRACE_TRIG_TRACEON;
		/* the top level's own too (runtime/event_trigger.c) */
		__atomic_store_n(&r->ctl->reader_on[0], r->trig->kon, __ATOMIC_RELEASE);
		__atomic_store_n(&r->ctl->tracing_on, r->trig->kon, __ATOMIC_RELEASE);
		break;
	case UTRACE_TRIG_ENABLE_EVENT:
		*st &= (uint8_t)~UTRACE_EVS_OFF;
		break;
	case UTRACE_TRIG_DISABLE_EVENT:
		*st |= UTRACE_EVS_OFF;
		break;
	case UTRACE_TRIG_ENABLE_HIST:
	case UTRACE_TRIG_DISABLE_HIST:
		if (b->x->t->cmd == UTRACE_TRIG_ENABLE_HIST)
			*st &= (uint8_t)~UTRACE_EVS_HIST_PAUSED;
		else
			*st |= UTRACE_EVS_HIST_PAUSED;
		rec_hist_kpause(r, b->target, b->x->t->cmd == UTRACE_TRIG_DISABLE_HIST);
		break;
	case UTRACE_TRIG_SNAPSHOT: /* taken once the event is saved (recorder_kmerge.c) */
		r->trig->ksnap_kid = b->kid;
		break;
	default:
		break;
	}
}

/* The commands bound to kernel id kid, whether tracing is on or not
 * (traceon must be able to turn it back on), each with its filter and
 * its count. */
void rec_trig_krun(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len)
{
	for (struct rec_ktrig *b = r->trig->ktrigs; b; b = b->next) {
		if (b->kid != kid ||
		    (b->filter && !utrace_filter_run(b->filter, b->flen, rec, len)) ||
		    !ktrig_changes(r, b) || !b->count)
			continue;
		if (b->count > 0)
			b->count--;
		ktrig_apply(r, b);
	}
}
