/* SPDX-License-Identifier: MIT */
/*
 * recorder_reader.c - the state of the live tracefs's instances that
 * their own triggers read and change in the processes (the readers of
 * common/proto.h's utrace_control: reader_on, reader_ev, reader_log,
 * reader_hist_off).
 *
 * An instance is a selection over the one set of per-thread records
 * (lib/session/session_inst.c); its triggers run where the top level's
 * do, at the event site in the traced thread (runtime/event_trigger.c),
 * each marked with its reader, on that reader's words of the control
 * page, which the session sets here as the instance's files are written.
 * What a firing changed comes back as a log of (when, whose, what): the
 * session reads it (utrace_recorder_reader_fired) before any of its
 * files is read or written, and moves the instance's windows to the
 * firing's time, converted here as the records' TSC is.
 */
#include <errno.h>
#include <string.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_snap.h"

void utrace_recorder_reader_on(struct utrace_recorder *r, unsigned reader, bool on)
{
	if (reader < UTRACE_READERS) /* 0: the top level's own */
		__atomic_store_n(&r->ctl->reader_on[reader], on, __ATOMIC_RELEASE);
}

void utrace_recorder_reader_event(struct utrace_recorder *r, unsigned reader, int id, bool on)
{
	uint32_t i = (uint32_t)(id - UTRACE_EV_ID_BASE);
	uint8_t bit = (uint8_t)(1u << (i % 8)), *b;

	if (!reader || reader >= UTRACE_READERS || id < UTRACE_EV_ID_BASE ||
	    i >= UTRACE_EV_STATE_MAX)
		return;
	b = &r->ctl->reader_ev[reader][i / 8];
	if (on)
		__atomic_fetch_or(b, bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(b, (uint8_t)~bit, __ATOMIC_RELEASE);
}

/* A TSC of the threads' clock in CLOCK_MONOTONIC ns, by the recording's
 * calibration (the file's clock, with which the records are read). */
static uint64_t reader_tsc_ns(const struct utrace_recorder *r, uint64_t tsc)
{
	const struct utrace_dat_clock *c = &r->clock;
	uint64_t dtsc = c->tsc1 - c->tsc0, dns = c->ns1 - c->ns0;

	if (c->tsc1 <= c->tsc0 || c->ns1 <= c->ns0)
		return c->ns0 + (tsc - c->tsc0);
	if (tsc >= c->tsc0)
		return c->ns0 + (uint64_t)((unsigned __int128)(tsc - c->tsc0) * dns / dtsc);
	return c->ns0 - (uint64_t)((unsigned __int128)(c->tsc0 - tsc) * dns / dtsc);
}

unsigned utrace_recorder_reader_fired(struct utrace_recorder *r, uint64_t *done,
				      struct utrace_reader_fired *out, unsigned max)
{
	uint64_t next = __atomic_load_n(&r->ctl->reader_next, __ATOMIC_ACQUIRE);
	unsigned n = 0;

	if (next - *done > UTRACE_READER_LOG)
		*done = next - UTRACE_READER_LOG; /* overwritten: the newest are kept */
	for (; *done < next && n < max; (*done)++) {
		struct utrace_reader_fire f;
		int got = utrace_ctl_reader_log_get(r->ctl, *done, &f);

		if (got == 0)
			break; /* not published yet: next time */
		if (got < 0)
			continue; /* overwritten while read: lost as an older one */
		out[n++] = (struct utrace_reader_fired){f.reader, f.cmd, f.target, f.was_on,
							reader_tsc_ns(r, f.tsc)};
	}
	return n;
}

void utrace_recorder_reader_drop(struct utrace_recorder *r, unsigned reader)
{
	struct utrace_error err = {0};

	if (!reader || reader >= UTRACE_READERS)
		return;
	for (struct rec_live_ev *e = r->lev ? r->lev->live_evs : NULL; e; e = e->next)
		for (unsigned i = 0; i < e->nr_trigs; i++)
			if (e->trigs[i].reader == reader) {
				utrace_recorder_live_triggers(r, reader, e->sys, e->name, NULL,
							      NULL, 0, &err);
				break;
			}
	__atomic_store_n(&r->ctl->reader_on[reader], 0, __ATOMIC_RELEASE);
	memset(r->ctl->reader_ev[reader], 0, sizeof(r->ctl->reader_ev[reader]));
	memset(r->ctl->reader_hist_off[reader], 0, sizeof(r->ctl->reader_hist_off[reader]));
	rec_snap_reader_drop(r, reader);
}
