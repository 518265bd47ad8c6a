/* SPDX-License-Identifier: MIT */
/*
 * event_trigger.c - the trigger commands of an event (the kernel's
 * trace_events_trigger.c): traceon, traceoff, enable_event,
 * disable_event, enable_hist, disable_hist, snapshot and stacktrace, each
 * with its own filter and :N count, run at the event site by
 * rt_event_write (trace_events.c) before the event's record.
 *
 * What they change is the recording's shared state (common/proto.h,
 * struct utrace_control, mapped by every traced process): tracing_on, a
 * byte of state per event id, the :N counters, taken with a
 * compare-and-swap so that N firings happen across all processes
 * together.  As the kernel's *_count_trigger, a count is used up only by
 * a firing that changes something.  snapshot asks the recorder for a copy
 * of the buffers (snapshot.c); stacktrace is written after the event's
 * own record (stacktrace.c), so it is only noted in *post here.  An event
 * probe (eprobe) is a command too, hidden from the trigger file as the
 * kernel's: it writes its own event's record from this one's fields.
 * Signal-safe, allocation-free.
 */
#include "common/filter_prog.h"
#include "include/utrace/tracepoint.h"
#include "runtime/rt.h"

void (*rt_trig_eprobe)(uint32_t key, const void *prog, const void *rec);

/* :N: one firing left to take?  Shared by every process, so a CAS. */
static bool trig_take_count(int32_t idx)
{
	int64_t *n, c;

	if (idx < 0 || idx >= UTRACE_TRIG_COUNTS)
		return true;
	n = &rt.ctl->trig_count[idx];
	c = __atomic_load_n(n, __ATOMIC_RELAXED);
	do {
		if (c == 0)
			return false;
		if (c < 0)
			return true;
	} while (!__atomic_compare_exchange_n(n, &c, c - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/* Does the command change anything now?  As the kernel's *_count_trigger,
 * a count is only used up by a firing that changes the state. */
static bool trig_would_change(const struct rt_trig *tr)
{
	uint8_t *st = rt_ev_state(tr->target);

	switch (tr->cmd) {
	case UTRACE_TC_TRACEON:
		return !__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
	case UTRACE_TC_TRACEOFF:
		return __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
	case UTRACE_TC_ENABLE_EVENT:
		return st && (*st & UTRACE_EVS_OFF);
	case UTRACE_TC_DISABLE_EVENT:
		return st && !(*st & UTRACE_EVS_OFF);
	case UTRACE_TC_ENABLE_HIST:
		return st && (*st & UTRACE_EVS_HIST_PAUSED);
	case UTRACE_TC_DISABLE_HIST:
		return st && !(*st & UTRACE_EVS_HIST_PAUSED);
	case UTRACE_TC_SNAPSHOT:
	case UTRACE_TC_STACKTRACE:
	case UTRACE_TC_EPROBE:
		return true; /* every firing acts, and takes one of :N */
	}
	return false;
}

static void trig_apply(const struct rt_trig *tr, const void *rec, uint32_t *post)
{
	const struct utrace_trace_entry *common = rec;
	uint8_t *st = rt_ev_state(tr->target);

	switch (tr->cmd) {
	case UTRACE_TC_SNAPSHOT:
		rt_snapshot_request(common->common_type, common->common_pid);
		break;
	case UTRACE_TC_STACKTRACE:
		*post |= 1u << UTRACE_TC_STACKTRACE; /* after the event's record */
		break;
	case UTRACE_TC_EPROBE: {
		void (*hit)(uint32_t, const void *, const void *) =
		    __atomic_load_n(&rt_trig_eprobe, __ATOMIC_ACQUIRE);

		if (hit)
			hit((uint32_t)tr->target, tr->prog, rec);
		break;
	}
	case UTRACE_TC_TRACEON:
	case UTRACE_TC_TRACEOFF:
		__atomic_store_n(&rt.ctl->tracing_on, tr->cmd == UTRACE_TC_TRACEON,
				 __ATOMIC_RELEASE);
		break;
	case UTRACE_TC_ENABLE_EVENT:
		__atomic_fetch_and(st, (uint8_t)~UTRACE_EVS_OFF, __ATOMIC_RELEASE);
		break;
	case UTRACE_TC_DISABLE_EVENT:
		__atomic_fetch_or(st, UTRACE_EVS_OFF, __ATOMIC_RELEASE);
		break;
	case UTRACE_TC_ENABLE_HIST:
		__atomic_fetch_and(st, (uint8_t)~UTRACE_EVS_HIST_PAUSED, __ATOMIC_RELEASE);
		break;
	case UTRACE_TC_DISABLE_HIST:
		__atomic_fetch_or(st, UTRACE_EVS_HIST_PAUSED, __ATOMIC_RELEASE);
		break;
	}
}

/* The trigger commands, whether tracing is on or not (traceon must be
 * able to turn it back on), each with its own filter and count; *post
 * gets what must follow the event's record (its stack). */
void rt_trig_commands(const struct rt_trig *trig, uint32_t nr, const void *rec, uint32_t len,
		      uint32_t *post)
{
	for (uint32_t i = 0; i < nr; i++) {
		const struct rt_trig *tr = &trig[i];

		if (tr->filter_len && !utrace_filter_run(tr->filter, tr->filter_len, rec, len))
			continue;
		if ((tr->cmd >= UTRACE_TC_ENABLE_EVENT && tr->cmd <= UTRACE_TC_DISABLE_HIST &&
		     !rt_ev_state(tr->target)) ||
		    !trig_would_change(tr) || !trig_take_count(tr->count_idx))
			continue;
		trig_apply(tr, rec, post);
	}
}
