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
 *
 * A trigger of an instance of the live tracefs (its reader, 1 ..
 * UTRACE_READERS - 1) runs here too, on that instance's state: its
 * tracing_on word, its bit of the event, both on the control page; a
 * firing that changes one turns on what the processes had off for it
 * (tracing_on, the event's state: the union every reader's records come
 * from) and logs itself with its time, from which the recorder ends or
 * starts the instance's windows (lib/session/session_inst_trig.c).  Its
 * stacktrace is the same stack record, marked with its reader; its
 * snapshot the same request, which names its reader (the recorder keeps
 * it as that instance's).  Its hist triggers are hist triggers as the
 * top level's (trace_events.c ev_triggers), each with its own table,
 * paused by the instance's disable_hist (its bit of the event in
 * reader_hist_off) where the top level's are by the event's state.
 *
 * The top level's traceon and traceoff act on its own tracing_on
 * (reader_on[0]) and on the processes' only while no instance keeps
 * tracing on (trig_top_on): the instances go on, as the kernel's past a
 * top-level traceoff.
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

/* Reader r's bit of event id in words (its enable, its hists paused),
 * NULL past the page. */
static uint8_t *trig_reader_bit(uint8_t (*words)[UTRACE_EV_STATE_MAX / 8], uint32_t r, int32_t id,
				uint8_t *bit)
{
	uint32_t i = (uint32_t)(id - UTRACE_EV_ID_BASE);

	if (i >= UTRACE_EV_STATE_MAX)
		return NULL;
	*bit = (uint8_t)(1u << (i % 8));
	return &words[r][i / 8];
}

static uint8_t *trig_reader_ev(uint32_t r, int32_t id, uint8_t *bit)
{
	return trig_reader_bit(rt.ctl->reader_ev, r, id, bit);
}

bool rt_reader_hist_paused(uint32_t r, int32_t id)
{
	uint8_t bit = 0, *b = trig_reader_bit(rt.ctl->reader_hist_off, r, id, &bit);

	return b && (__atomic_load_n(b, __ATOMIC_RELAXED) & bit);
}

/* An instance's enable_hist, disable_hist: its hists of the target
 * paused or not; whether that changed (no window moves: nothing to log) */
static bool trig_reader_hist(const struct rt_trig *tr, bool apply)
{
	uint8_t bit = 0, *b = trig_reader_bit(rt.ctl->reader_hist_off, tr->reader, tr->target, &bit);
	bool pause = tr->cmd == UTRACE_TC_DISABLE_HIST;

	if (!b)
		return false;
	if (!apply)
		return !(__atomic_load_n(b, __ATOMIC_RELAXED) & bit) == pause;
	if (pause)
		__atomic_fetch_or(b, bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(b, (uint8_t)~bit, __ATOMIC_RELEASE);
	return true;
}

/* An instance's command: does it change the instance's state? */
static bool trig_reader_would_change(const struct rt_trig *tr)
{
	uint8_t bit = 0, *b = trig_reader_ev(tr->reader, tr->target, &bit);

	switch (tr->cmd) {
	case UTRACE_TC_TRACEON:
		return !__atomic_load_n(&rt.ctl->reader_on[tr->reader], __ATOMIC_RELAXED);
	case UTRACE_TC_TRACEOFF:
		return __atomic_load_n(&rt.ctl->reader_on[tr->reader], __ATOMIC_RELAXED);
	case UTRACE_TC_ENABLE_EVENT:
		return b && !(__atomic_load_n(b, __ATOMIC_RELAXED) & bit);
	case UTRACE_TC_DISABLE_EVENT:
		return b && (__atomic_load_n(b, __ATOMIC_RELAXED) & bit);
	case UTRACE_TC_ENABLE_HIST:
	case UTRACE_TC_DISABLE_HIST:
		return trig_reader_hist(tr, false);
	case UTRACE_TC_STACKTRACE:
	case UTRACE_TC_SNAPSHOT:
		return true;
	}
	return false; /* the recorder sends no other */
}

/* An instance's firing that changed its state, for the recorder. */
static void trig_reader_log(const struct rt_trig *tr, uint32_t was_on)
{
	uint64_t n = __atomic_fetch_add(&rt.ctl->reader_next, 1, __ATOMIC_ACQ_REL);
	struct utrace_reader_fire f = {.reader = tr->reader, .cmd = tr->cmd,
				       .target = tr->target, .was_on = was_on};
	uint32_t cpu;

	f.tsc = rt_clock(&cpu);
	utrace_ctl_reader_log_put(rt.ctl, n, &f);
}

static void trig_reader_apply(const struct rt_trig *tr, const void *rec, uint32_t *post)
{
	const struct utrace_trace_entry *common = rec;
	uint32_t *on = &rt.ctl->reader_on[tr->reader], was;
	uint8_t bit = 0, *b = trig_reader_ev(tr->reader, tr->target, &bit), *st;

	switch (tr->cmd) {
	case UTRACE_TC_STACKTRACE:
		*post |= 1u << (RT_POST_READERS + tr->reader);
		return;
	case UTRACE_TC_SNAPSHOT: /* the instance's: the request says whose */
		rt_snapshot_request(common->common_type, common->common_pid, tr->reader);
		return;
	case UTRACE_TC_ENABLE_HIST:
	case UTRACE_TC_DISABLE_HIST:
		trig_reader_hist(tr, true);
		return;
	case UTRACE_TC_TRACEON:
		if (__atomic_exchange_n(on, 1, __ATOMIC_ACQ_REL))
			return;
		was = __atomic_exchange_n(&rt.ctl->tracing_on, 1, __ATOMIC_ACQ_REL);
		break;
	case UTRACE_TC_TRACEOFF:
		if (!__atomic_exchange_n(on, 0, __ATOMIC_ACQ_REL))
			return;
		was = 1;
		break;
	case UTRACE_TC_ENABLE_EVENT:
		st = rt_ev_state(tr->target);
		if (__atomic_fetch_or(b, bit, __ATOMIC_ACQ_REL) & bit || !st)
			return;
		was = !(__atomic_fetch_and(st, (uint8_t)~UTRACE_EVS_OFF, __ATOMIC_ACQ_REL) &
			UTRACE_EVS_OFF);
		break;
	case UTRACE_TC_DISABLE_EVENT:
		if (!(__atomic_fetch_and(b, (uint8_t)~bit, __ATOMIC_ACQ_REL) & bit))
			return;
		was = 1;
		break;
	default:
		return;
	}
	trig_reader_log(tr, was);
}

/* Does the command change anything now?  As the kernel's *_count_trigger,
 * a count is only used up by a firing that changes the state. */
static bool trig_would_change(const struct rt_trig *tr)
{
	uint8_t *st = rt_ev_state(tr->target);

	switch (tr->cmd) {
	case UTRACE_TC_TRACEON: /* the top level's own, or the processes' */
		return !__atomic_load_n(&rt.ctl->reader_on[0], __ATOMIC_RELAXED) ||
		       !__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
	case UTRACE_TC_TRACEOFF:
		return __atomic_load_n(&rt.ctl->reader_on[0], __ATOMIC_RELAXED) &&
		       __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
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

static bool trig_insts_on(void)
{
	for (uint32_t r = 1; r < UTRACE_READERS; r++)
		if (__atomic_load_n(&rt.ctl->reader_on[r], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/*
 * The top level's traceon/traceoff: its own tracing_on (reader_on[0]),
 * and the processes' with it, but for an instance that has tracing on:
 * then the processes go on writing and the firing is logged as the top
 * level's (reader 0), from which the recorder starts (or ends) the top
 * level's mask, as the kernel's instances go on when the top level's
 * buffer stops (lib/session/session_inst_trig.c).
 */
static void trig_top_on(const struct rt_trig *tr, bool on)
{
	uint32_t top = __atomic_exchange_n(&rt.ctl->reader_on[0], on, __ATOMIC_ACQ_REL), was;

	if (on) {
		was = __atomic_exchange_n(&rt.ctl->tracing_on, 1, __ATOMIC_ACQ_REL);
		if (was && !top) /* an instance kept it on */
			trig_reader_log(tr, was);
		return;
	}
	if (!trig_insts_on())
		__atomic_store_n(&rt.ctl->tracing_on, 0, __ATOMIC_RELEASE);
	else
		trig_reader_log(tr, 1);
}

static void trig_apply(const struct rt_trig *tr, const void *rec, uint32_t *post)
{
	const struct utrace_trace_entry *common = rec;
	uint8_t *st = rt_ev_state(tr->target);

	switch (tr->cmd) {
	case UTRACE_TC_SNAPSHOT:
		rt_snapshot_request(common->common_type, common->common_pid, 0);
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
		trig_top_on(tr, tr->cmd == UTRACE_TC_TRACEON);
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
		      uint32_t *post, uint32_t only)
{
	for (uint32_t i = 0; i < nr; i++) {
		const struct rt_trig *tr = &trig[i];

		if (only != RT_TRIG_ALL && tr->reader != only)
			continue;
		if (tr->filter_len && !utrace_filter_run(tr->filter, tr->filter_len, rec, len))
			continue;
		if (tr->cmd >= UTRACE_TC_ENABLE_EVENT && tr->cmd <= UTRACE_TC_DISABLE_HIST &&
		    !rt_ev_state(tr->target))
			continue;
		if (tr->reader) {
			if (trig_reader_would_change(tr) && trig_take_count(tr->count_idx))
				trig_reader_apply(tr, rec, post);
			continue;
		}
		if (!trig_would_change(tr) || !trig_take_count(tr->count_idx))
			continue;
		trig_apply(tr, rec, post);
	}
}
