/* SPDX-License-Identifier: MIT */
/*
 * recorder_trig.c - the trigger commands of a recording: traceon,
 * traceoff, snapshot, stacktrace, enable_event, disable_event, enable_hist, disable_hist, each
 * with an optional :N count and `if FILTER` (Documentation/trace/events.rst).
 *
 * What they change is the recording's shared state (common/proto.h,
 * struct utrace_control): tracing_on, one byte of state per event id, and
 * the :N counters, which every traced process maps writable, so that a
 * trigger fired in one process takes effect in all of them at once, as
 * in the kernel's one instance.  At the start, each trigger gets its
 * counter, and the target of every enable_event starts soft-disabled (the
 * kernel's soft mode: enabled, its records dropped until the trigger
 * fires).  Each object that defines an event with commands gets them as
 * TRIGGER messages before the event's ENABLE, with the filter compiled
 * for that object's format of the event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"

struct rec_trig {
	unsigned spec, trig;	  /* which -e, which of its -R */
	struct utrace_trigger *t; /* parsed */
	int count_idx;		  /* in utrace_control.trig_count, -1: unlimited */
	int target;		  /* enable_/disable_: the target's id */
	struct rec_trig *next;
};

static const uint32_t cmd_of[] = {
    [UTRACE_TRIG_TRACEON] = UTRACE_TC_TRACEON,
    [UTRACE_TRIG_TRACEOFF] = UTRACE_TC_TRACEOFF,
    [UTRACE_TRIG_SNAPSHOT] = UTRACE_TC_SNAPSHOT,
    [UTRACE_TRIG_STACKTRACE] = UTRACE_TC_STACKTRACE,
    [UTRACE_TRIG_ENABLE_EVENT] = UTRACE_TC_ENABLE_EVENT,
    [UTRACE_TRIG_DISABLE_EVENT] = UTRACE_TC_DISABLE_EVENT,
    [UTRACE_TRIG_ENABLE_HIST] = UTRACE_TC_ENABLE_HIST,
    [UTRACE_TRIG_DISABLE_HIST] = UTRACE_TC_DISABLE_HIST,
};

static bool has_target(const struct utrace_trigger *t)
{
	return t->cmd >= UTRACE_TRIG_ENABLE_EVENT && t->cmd <= UTRACE_TRIG_DISABLE_HIST;
}

static uint8_t *state_of(struct utrace_recorder *r, int id)
{
	unsigned i = (unsigned)(id - UTRACE_EV_ID_BASE);

	return id >= UTRACE_EV_ID_BASE && i < UTRACE_EV_STATE_MAX ? &r->ctl->ev_state[i] : NULL;
}

static bool user_enabled(const struct utrace_event_select *s, const char *system,
			 const char *name)
{
	for (unsigned i = 0; i < utrace_event_select_count(s); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

		if (!sp->target_only && !sp->exclude &&
		    utrace_event_spec_matches(sp->pattern, system, name))
			return true;
	}
	return false;
}

/* One trigger command of spec i: its counter, its target's id and state. */
static int trig_add(struct utrace_recorder *r, unsigned i, unsigned k, struct utrace_trigger *t,
		    struct utrace_error *err)
{
	struct rec_trig *x = calloc(1, sizeof(*x));

	if (!x)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*x = (struct rec_trig){i, k, t, -1, -1, r->trigs};
	if (t->count >= 0) {
		if (r->nr_counts == UTRACE_TRIG_COUNTS) {
			free(x);
			return utrace_error_set(err, -E2BIG, "more than %u triggers with a count",
						UTRACE_TRIG_COUNTS);
		}
		x->count_idx = (int)r->nr_counts++;
		r->ctl->trig_count[x->count_idx] = t->count;
	}
	if (has_target(t)) {
		uint8_t *st;

		x->target = utrace_event_select_id(r->o.events, t->target_system, t->target_event);
		if (!(st = state_of(r, x->target))) {
			free(x);
			return utrace_error_set(err, -E2BIG, "too many events for triggers");
		}
		/* A target no -e enables starts off: the kernel's soft mode,
		 * enabled for the trigger, its records dropped until it fires.
		 * One an -e enables is left as it is. */
		if (t->cmd == UTRACE_TRIG_ENABLE_EVENT &&
		    !user_enabled(r->o.events, t->target_system, t->target_event))
			*st |= UTRACE_EVS_OFF;
	}
	r->trigs = x;
	return 0;
}

int rec_trig_init(struct utrace_recorder *r, struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;

	for (unsigned i = 0; s && i < utrace_event_select_count(s); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

		for (unsigned k = 0; k < sp->nr_triggers; k++) {
			struct utrace_trigger *t = NULL;
			int code;

			if (utrace_trigger_parse(sp->triggers[k], &t, &code, err) < 0)
				return err->code;
			if (t->cmd == UTRACE_TRIG_HIST || t->remove || t->cmd >= sizeof(cmd_of) /
									  sizeof(cmd_of[0]) ||
			    !cmd_of[t->cmd]) {
				utrace_trigger_free(t); /* hist: recorder_hist.c; the rest: refused */
				continue;
			}
			if (trig_add(r, i, k, t, err) < 0) {
				utrace_trigger_free(t);
				return err->code;
			}
		}
	}
	return 0;
}

/* STATEFUL for an event whose state a trigger may change, or has set
 * (hist:...:pause, set when its hists were made, just before this). */
uint32_t rec_trig_flags(struct utrace_recorder *r, const char *system, const char *name)
{
	int id = utrace_event_select_id(r->o.events, system, name);
	uint8_t *st = state_of(r, id);

	if (st && *st)
		return UTRACE_ENABLE_STATEFUL;
	for (const struct rec_trig *x = r->trigs; x; x = x->next)
		if (has_target(x->t) && !strcmp(x->t->target_system, system) &&
		    !strcmp(x->t->target_event, name))
			return UTRACE_ENABLE_STATEFUL;
	return 0;
}

static int trig_send(struct rec_conn *c, uint32_t obj, uint32_t key, const struct rec_trig *x,
		     const void *filter, uint32_t flen)
{
	struct utrace_msg_trigger m = {
	    .hdr.type = UTRACE_MSG_TRIGGER,
	    .obj = obj,
	    .key = key,
	    .cmd = cmd_of[x->t->cmd],
	    .target = x->target,
	    .count_idx = x->count_idx,
	    .filter_len = flen,
	};

	return rec_conn_send_with(c, &m, sizeof(m), filter, flen, -1);
}

int rec_trig_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;
	const struct utrace_event_format *fmt = utrace_event_select_format(s, path, system, name);
	unsigned sent = 0;

	for (const struct rec_trig *x = r->trigs; fmt && x; x = x->next) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, x->spec);
		void *filter = NULL;
		uint32_t flen = 0;
		int ret;

		if (!utrace_event_spec_matches(sp->pattern, system, name) ||
		    sent == UTRACE_EVENT_TRIGS_MAX)
			continue;
		if (x->t->filter) {
			struct utrace_error e;

			if (utrace_filter_compile(fmt, x->t->filter, &filter, &flen, &e) < 0) {
				if (r->o.notice)
					r->o.notice(r->o.notice_arg, c->pid, e.msg);
				continue;
			}
		}
		ret = trig_send(c, obj, key, x, filter, flen);
		free(filter);
		if (ret < 0)
			return utrace_error_set(err, ret, "sending a trigger failed");
		sent++;
	}
	return 0;
}

/* A stacktrace trigger names frames of any object: every symbol table. */
bool rec_trig_wants_stacks(const struct utrace_recorder *r)
{
	for (const struct rec_trig *x = r->trigs; x; x = x->next)
		if (x->t->cmd == UTRACE_TRIG_STACKTRACE)
			return true;
	return false;
}

void rec_trig_free(struct utrace_recorder *r)
{
	while (r->trigs) {
		struct rec_trig *x = r->trigs;

		r->trigs = x->next;
		utrace_trigger_free(x->t);
		free(x);
	}
}
