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
 *
 * The live tracefs's commands of a kernel event (recorder_livekev.c) are
 * bound the same way each time its list is written (rec_trig_klive), the
 * top level's only: a target may be a user event too (its byte on the
 * control page), a :N is the trigger's counter on the control page
 * (the file lists what is left), and in a live recording whether a
 * record is saved follows tracing_on itself (ktrig_on).  Its stacktrace
 * is the kernel's too (lib/session arms the kernel's trigger while the
 * list has one), its :N taken by each kernel_stack entry saved.
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
#include "lib/record/recorder_kmerge.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_trig.h"

#include "common/filter_prog.h"

static int ktrig_bind(struct utrace_recorder *r, const struct rec_trig *x,
		      const struct rec_kfmt *kf, struct utrace_error *err)
{
	struct rec_ktrig *b = calloc(1, sizeof(*b)), **tail = &r->trig->ktrigs;
	const struct rec_kfmt *tk = NULL;

	if (!b)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*b = (struct rec_ktrig){x, x->t, kf->id, -1, x->t->count, -1, NULL, 0, NULL};
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

/*
 * Whether tracing is on for the kernel records: kon, the -R's traceon and
 * traceoff; in a live recording the processes' tracing_on, which the
 * tracefs's file and a user event's traceoff switch too (one buffer, as
 * the kernel's), its last value before the recording stopped once it has
 * (the last rounds after the stop).  The hists run on either way there,
 * as the kernel's triggers run while its buffer is off.
 */
static bool ktrig_on(struct utrace_recorder *r)
{
	if (!r->o.live)
		return r->trig->kon;
	if (!__atomic_load_n(&r->ctl->stopped, __ATOMIC_ACQUIRE))
		r->trig->klive_on = __atomic_load_n(&r->ctl->tracing_on, __ATOMIC_ACQUIRE);
	return r->trig->klive_on;
}

bool rec_trig_kkeep(struct utrace_recorder *r, int kid)
{
	return ktrig_on(r) && !(r->trig->kstate[kid] & UTRACE_EVS_OFF);
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
	if (r->o.live) /* the tracefs may add one at any time */
		return true;
	for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
		if (x->kernel && x->t->cmd == UTRACE_TRIG_SNAPSHOT)
			return true;
	return false;
}

/* A :N of b left to take (taken), or none. */
static bool ktrig_take(struct utrace_recorder *r, struct rec_ktrig *b)
{
	int64_t *n = b->count_idx >= 0 ? &r->ctl->trig_count[b->count_idx] : &b->count;
	int64_t c = __atomic_load_n(n, __ATOMIC_ACQUIRE);

	if (c > 0) /* only the recorder takes a kernel event's */
		__atomic_store_n(n, c - 1, __ATOMIC_RELEASE);
	return c != 0;
}

bool rec_trig_kstack(struct utrace_recorder *r, int kid)
{
	for (struct rec_ktrig *b = r->trig->ktrigs; b; b = b->next)
		if (b->kid == kid && b->t->cmd == UTRACE_TRIG_STACKTRACE &&
		    (b->x || ktrig_take(r, b)))
			return true;
	return false;
}

bool rec_trig_kstack_ok(const struct utrace_recorder *r, int kid)
{
	return r->km && r->km->kstack_id >= 0 && kid != rec_kmerge_print_id(r);
}

/* The state byte of a command's target: a kernel id's, or a user
 * event's on the control page; NULL: none. */
static uint8_t *ktrig_state(struct utrace_recorder *r, int target)
{
	unsigned i = (unsigned)(target - UTRACE_EV_ID_BASE);

	if (target < 0)
		return NULL;
	if (target < UTRACE_EV_ID_BASE)
		return &r->trig->kstate[target];
	/* a user event's (the tracefs's enable_event): the processes read it */
	return i < UTRACE_EV_STATE_MAX ? &r->ctl->ev_state[i] : NULL;
}

/* As the runtime's ev_trig_would_change: a count is used up only by a
 * firing that changes something. */
static bool ktrig_changes(struct utrace_recorder *r, const struct rec_ktrig *b)
{
	uint8_t *at = ktrig_state(r, b->target);
	uint8_t st = at ? __atomic_load_n(at, __ATOMIC_ACQUIRE) : 0;

	switch (b->t->cmd) {
	case UTRACE_TRIG_TRACEON:
		return !ktrig_on(r);
	case UTRACE_TRIG_TRACEOFF:
		return ktrig_on(r);
	case UTRACE_TRIG_ENABLE_EVENT:
		return at && (st & UTRACE_EVS_OFF);
	case UTRACE_TRIG_DISABLE_EVENT:
		return at && !(st & UTRACE_EVS_OFF);
	case UTRACE_TRIG_ENABLE_HIST:
		return at && (st & UTRACE_EVS_HIST_PAUSED);
	case UTRACE_TRIG_DISABLE_HIST:
		return at && !(st & UTRACE_EVS_HIST_PAUSED);
	case UTRACE_TRIG_SNAPSHOT:
		return true;
	default: /* hist: recorder_hist.c; stacktrace: the kernel's (cmds/record_triggers.c) */
		return false;
	}
}

static void ktrig_onoff(struct utrace_recorder *r, bool on)
{
	if (r->o.live)
		r->trig->klive_on = on;
	else
		r->trig->kon = on;
	/* the top level's own too (runtime/event_trigger.c) */
	__atomic_store_n(&r->ctl->reader_on[0], on, __ATOMIC_RELEASE);
	__atomic_store_n(&r->ctl->tracing_on, on, __ATOMIC_RELEASE);
}

static void ktrig_apply(struct utrace_recorder *r, const struct rec_ktrig *b)
{
	uint8_t *st = ktrig_state(r, b->target);
	bool ev = b->t->cmd == UTRACE_TRIG_ENABLE_EVENT || b->t->cmd == UTRACE_TRIG_DISABLE_EVENT;
	uint8_t bit = ev ? UTRACE_EVS_OFF : UTRACE_EVS_HIST_PAUSED;

	switch (b->t->cmd) {
	case UTRACE_TRIG_TRACEON:
	case UTRACE_TRIG_TRACEOFF:
		ktrig_onoff(r, b->t->cmd == UTRACE_TRIG_TRACEON);
		break;
	case UTRACE_TRIG_ENABLE_EVENT:
	case UTRACE_TRIG_ENABLE_HIST:
		__atomic_and_fetch(st, (uint8_t)~bit, __ATOMIC_RELEASE);
		if (!ev && b->target < UTRACE_EV_ID_BASE)
			rec_hist_kpause(r, b->target, false);
		break;
	case UTRACE_TRIG_DISABLE_EVENT:
	case UTRACE_TRIG_DISABLE_HIST:
		__atomic_or_fetch(st, bit, __ATOMIC_RELEASE);
		if (!ev && b->target < UTRACE_EV_ID_BASE)
			rec_hist_kpause(r, b->target, true);
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
	unsigned reader = r->km ? r->km->reader : REC_HIST_ALL_READERS;

	for (struct rec_ktrig *b = r->trig->ktrigs; b; b = b->next) {
		/* a marker written to an instance's trace_marker: its own
		 * triggers only, and this runs the top level's */
		if (b->kid != kid || (reader != REC_HIST_ALL_READERS && reader) ||
		    (b->filter && !utrace_filter_run(b->filter, b->flen, rec, len)) ||
		    !ktrig_changes(r, b) || !ktrig_take(r, b))
			continue;
		ktrig_apply(r, b);
	}
}

/* ---- the live tracefs's ----------------------------------------------- */

/* The tracefs's bindings of kid dropped. */
static void klive_drop(struct utrace_recorder *r, int kid)
{
	struct rec_ktrig **p = &r->trig->ktrigs;

	while (*p) {
		struct rec_ktrig *b = *p;

		if (b->x || b->kid != kid) {
			p = &b->next;
			continue;
		}
		*p = b->next;
		free(b->filter);
		free(b);
	}
}

int rec_trig_klive(struct utrace_recorder *r, int kid, const struct utrace_event_format *fmt,
		   const struct rec_live_trig *trigs, unsigned n, struct utrace_error *err)
{
	struct rec_ktrig **tail = &r->trig->ktrigs;

	klive_drop(r, kid);
	while (*tail) /* after the -R's, in the order of the file */
		tail = &(*tail)->next;
	for (unsigned i = 0; i < n; i++) {
		const struct rec_live_trig *x = &trigs[i];
		struct rec_ktrig *b;

		if (x->reader || !rec_trig_cmd(x->t->cmd))
			continue; /* an instance's; hist: recorder_hist.c */
		if (!(b = calloc(1, sizeof(*b))))
			return utrace_error_set(err, -ENOMEM, "out of memory");
		*b = (struct rec_ktrig){.t = x->t, .kid = kid, .target = x->target, .count = -1,
					.count_idx = x->count_idx};
		*tail = b;
		tail = &b->next;
		/* stacktrace's filter is the kernel's (session_live.c arms it) */
		if (x->t->filter && x->t->cmd != UTRACE_TRIG_STACKTRACE &&
		    utrace_filter_compile(fmt, x->t->filter, &b->filter, &b->flen, err) < 0)
			return err->code;
		if (x->t->cmd == UTRACE_TRIG_SNAPSHOT && r->km)
			r->km->keep_pages = true; /* its snapshots hold the pages before */
	}
	return 0;
}
