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
 * for that object's format of the event (once per format: every process
 * that maps the same file gets the same program).
 *
 * Kernel events' commands run in the recorder, on the records in time
 * order: recorder_ktrig.c.
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

int rec_trig_new(struct utrace_recorder *r)
{
	r->trig = calloc(1, sizeof(*r->trig));
	return r->trig ? 0 : -ENOMEM;
}

int rec_trig_count_new(struct utrace_recorder *r)
{
	if (r->trig->nr_counts == UTRACE_TRIG_COUNTS)
		return -1;
	return (int)r->trig->nr_counts++;
}

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

uint32_t rec_trig_cmd(uint32_t cmd)
{
	return cmd < sizeof(cmd_of) / sizeof(cmd_of[0]) ? cmd_of[cmd] : 0;
}

bool rec_trig_has_target(const struct utrace_trigger *t)
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
static int trig_add(struct utrace_recorder *r, unsigned i, unsigned k,
		    const struct utrace_trigger *t, struct utrace_error *err)
{
	struct rec_trig *x = calloc(1, sizeof(*x));

	if (!x)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*x = (struct rec_trig){false, i, k, t, -1, -1, r->trig->trigs, NULL};
	if (t->count >= 0) {
		if ((x->count_idx = rec_trig_count_new(r)) < 0) {
			free(x);
			return utrace_error_set(err, -E2BIG, "more than %u triggers with a count",
						UTRACE_TRIG_COUNTS);
		}
		r->ctl->trig_count[x->count_idx] = t->count;
	}
	if (rec_trig_has_target(t)) {
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
	r->trig->trigs = x;
	return 0;
}

/* The -e's trigger was not parsed by the check that must parse each one
 * (utrace_trigger_of, cmds/record_triggers.c). */
static int trig_unparsed(const char *text, struct utrace_error *err)
{
	return utrace_error_set(err, -EINVAL, "-R '%s': not parsed", text);
}

/* A trigger command of a kernel -e, bound later to its events. */
static int trig_kinit(struct utrace_recorder *r, struct utrace_error *err)
{
	for (unsigned i = 0; i < r->o.nkspecs; i++)
		for (unsigned k = 0; k < r->o.kspecs[i].nr_triggers; k++) {
			const struct utrace_trigger *t = utrace_trigger_parsed(&r->o.kspecs[i], k);
			struct rec_trig *x;

			if (!t)
				return trig_unparsed(r->o.kspecs[i].triggers[k], err);
			if (t->cmd == UTRACE_TRIG_HIST || t->remove ||
			    t->cmd >= sizeof(cmd_of) / sizeof(cmd_of[0]) || !cmd_of[t->cmd])
				continue;
			if (!(x = calloc(1, sizeof(*x))))
				return utrace_error_set(err, -ENOMEM, "out of memory");
			*x = (struct rec_trig){true, i, k, t, -1, -1, r->trig->trigs, NULL};
			r->trig->trigs = x;
		}
	return 0;
}

int rec_trig_init(struct utrace_recorder *r, struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;

	if (trig_kinit(r, err) < 0)
		return err->code;

	for (unsigned i = 0; s && i < utrace_event_select_count(s); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

		for (unsigned k = 0; k < sp->nr_triggers; k++) {
			const struct utrace_trigger *t = utrace_trigger_parsed(sp, k);

			if (!t)
				return trig_unparsed(sp->triggers[k], err);
			if (t->cmd == UTRACE_TRIG_HIST || t->remove || t->cmd >= sizeof(cmd_of) /
									  sizeof(cmd_of[0]) ||
			    !cmd_of[t->cmd])
				continue; /* hist: recorder_hist.c; the rest: refused */
			if (trig_add(r, i, k, t, err) < 0)
				return err->code;
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
	for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
		if (!x->kernel && rec_trig_has_target(x->t) && !strcmp(x->t->target_system, system) &&
		    !strcmp(x->t->target_event, name))
			return UTRACE_ENABLE_STATEFUL;
	return 0;
}

bool rec_trig_targets(const struct utrace_recorder *r, int id)
{
	for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
		if (!x->kernel && rec_trig_has_target(x->t) && x->target == id)
			return true;
	return false;
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

/* x's filter for fmt: the one compiled already, else the one the -R
 * check compiled for this file (sp's), else compiled now; kept with x. */
static int trig_filter(struct rec_trig *x, const struct utrace_event_spec *sp, const char *path,
		       const struct utrace_event_format *fmt, void **filter, uint32_t *flen,
		       struct utrace_error *err)
{
	struct rec_trig_prog *p;
	const void *kept;

	for (p = x->progs; p && p->fmt != fmt; p = p->next)
		;
	if (!p) {
		if (!(p = calloc(1, sizeof(*p))))
			return utrace_error_set(err, -ENOMEM, "out of memory");
		kept = utrace_trigger_kept(sp, x->trig, path, fmt->system, fmt->name, &p->flen);
		if (kept && (p->filter = malloc(p->flen))) {
			memcpy(p->filter, kept, p->flen);
		} else if (utrace_filter_compile(fmt, x->t->filter, &p->filter, &p->flen, err) < 0) {
			free(p);
			return err->code;
		}
		p->fmt = fmt;
		p->next = x->progs;
		x->progs = p;
	}
	*filter = p->filter;
	*flen = p->flen;
	return 0;
}

int rec_trig_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;
	const struct utrace_event_format *fmt = utrace_event_select_format(s, path, system, name);
	unsigned sent = 0;

	for (struct rec_trig *x = r->trig->trigs; fmt && x; x = x->next) {
		const struct utrace_event_spec *sp =
		    x->kernel ? NULL : utrace_event_select_spec(s, x->spec);
		void *filter = NULL;
		uint32_t flen = 0;
		int ret;

		if (x->kernel || !utrace_event_spec_matches(sp->pattern, system, name) ||
		    sent == UTRACE_EVENT_TRIGS_MAX)
			continue;
		if (x->t->filter) {
			struct utrace_error e;

			if (trig_filter(x, sp, path, fmt, &filter, &flen, &e) < 0) {
				if (r->o.notice)
					r->o.notice(r->o.notice_arg, c->pid, e.msg);
				continue;
			}
		}
		ret = trig_send(c, obj, key, x, filter, flen);
		if (ret < 0)
			return utrace_error_set(err, ret, "sending a trigger failed");
		sent++;
	}
	return 0;
}

/* A stacktrace trigger names frames of any object: every symbol table. */
bool rec_trig_wants_stacks(const struct utrace_recorder *r)
{
	for (const struct rec_trig *x = r->trig->trigs; x; x = x->next)
		if (x->t->cmd == UTRACE_TRIG_STACKTRACE)
			return true;
	return false;
}

void rec_trig_free(struct utrace_recorder *r)
{
	if (!r->trig)
		return;
	while (r->trig->ktrigs) {
		struct rec_ktrig *b = r->trig->ktrigs;

		r->trig->ktrigs = b->next;
		free(b->filter);
		free(b);
	}
	while (r->trig->trigs) {
		struct rec_trig *x = r->trig->trigs;

		r->trig->trigs = x->next;
		while (x->progs) {
			struct rec_trig_prog *p = x->progs;

			x->progs = p->next;
			free(p->filter);
			free(p);
		}
		free(x);
	}
	free(r->trig->kstate);
	free(r->trig);
	r->trig = NULL;
}
