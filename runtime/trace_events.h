/* SPDX-License-Identifier: MIT */
/*
 * trace_events.h - what trace_events.c (an event's hit: filter, triggers,
 * record) shares with event_enable.c (which events are on and how: the
 * recorder's ENABLE, HIST, TABLE and TRIGGER at registration and live):
 * the configuration a key's filter pointer holds, the hist tables by id
 * and the synthetic events' keys; inproc_probes.c reads the probes' keys
 * and configurations for its plain hit.
 */
#ifndef UTRACE_RUNTIME_TRACE_EVENTS_H
#define UTRACE_RUNTIME_TRACE_EVENTS_H

#include "common/hist_fast.h"
#include "common/hist_prog.h"
#include "common/record.h"
#include "include/utrace/tracepoint.h"
#include "runtime/rt.h"

/* A hist trigger: its program and the table it fills (shared memory). */
struct rt_hist {
	const struct utrace_hist_hdr *prog;
	struct utrace_hist_map *map;
	struct utrace_hist_fast fast; /* the program's shape, when it has it */
	uint64_t *memo;		      /* UTRACE_HIST_MEMO words (hist_memo.h), or NULL */
	uint32_t reader;	      /* whose: 0 the top level, else an instance's */
};

struct rt_event_conf;
/* rt_event_write's way for an event with a configuration (rt_event_conf_writer) */
typedef void (*rt_conf_write_fn)(const struct utrace_event_key *key,
				 const struct rt_event_conf *f, const void *rec, uint32_t len);

/* What the recorder set for an enabled event: key->filter points here. */
struct rt_event_conf {
	rt_conf_write_fn write; /* rt_event_conf_writer's, for rt_event_write */
	uint32_t len;	/* bytes of the filter in prog, 0: none */
	uint32_t flags; /* enum utrace_enable_flags */
	uint32_t nr_hist;
	uint32_t needs; /* enum utrace_hist_needs of every trigger */
	uint32_t nr_trig;
	/* only hist triggers of hist_fast.h's shape that need neither clock
	 * nor CPU, no trigger command, no state: trace_events.c's ev_hists */
	uint32_t plain_hists;
	uint32_t plain_common; /* plain_hists: one reads a common field */
	/* plain_hists with one trigger that has a memo: the bytes a record
	 * needs for its common hit (its header, every load), else
	 * UINT64_MAX: ev_write_hists_as' shape in one compare */
	uint64_t one_min;
	struct rt_hist hist[UTRACE_EVENT_HISTS_MAX];
	struct rt_trig trig[UTRACE_EVENT_TRIGS_MAX];
	uint64_t prog[]; /* the interpreter wants its program 8-byte aligned */
};

/* trace_events.c: the tables by the recorder's id (set with release),
 * the synthetic events' keys, and the write function of an enabled key */
extern struct utrace_hist_map *ev_tables[UTRACE_HIST_TABLES_MAX] RT_HIDDEN;
extern struct utrace_event_key ev_synth_keys[UTRACE_SYNTH_MAX] RT_HIDDEN;
extern struct utrace_event_key ev_print_key RT_HIDDEN; /* UTRACE_PRINT_OBJ's key 0 */
/* event_enable.c: the in-process probes' keys (inproc_probes.c's plain hit) */
extern struct utrace_event_key ev_inproc_probe_keys[UTRACE_INPROC_PROBE_MAX] RT_HIDDEN;
struct utrace_hist_map *ev_table(void *arg, uint32_t id) RT_HIDDEN;
void rt_event_write(struct utrace_event_key *key, const void *rec, uint32_t len) RT_HIDDEN;
rt_conf_write_fn rt_event_conf_writer(const struct rt_event_conf *f) RT_HIDDEN;

/*
 * Room for the record of an event that needs nothing else (no filter,
 * trigger or state: its conf checked by the caller, tracing on), len bytes
 * with its common fields, at the write pointer of t, a context ready to
 * write (ev_thread's test): t made BUSY, the clock read into *ts, the
 * record's three header words written, and the word its body starts at
 * returned (its bytes past len in the last word are the caller's to zero).
 * NULL, having written nothing: the clock's delta, the room left, the CPU
 * or the length want rt_event_write's general way (ev_write_words).
 * rt_event_close then publishes it.  A caller that fills the body in place
 * (inproc_probes.c's plain hit fetches its arguments there) does it between
 * the two; rt_event_put copies a record built elsewhere.
 */
static inline __attribute__((always_inline)) uint32_t *
rt_event_open(struct rt_thread *t, const struct utrace_event_key *key, uint32_t len, uint64_t *ts)
{
	uint32_t bytes = len - (uint32_t)sizeof(struct utrace_trace_entry);
	uint32_t n = (bytes + 3) / 4, cpu, *wp;
	uint64_t delta;

	if (unlikely(len < sizeof(struct utrace_trace_entry)))
		return NULL;
	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*ts = rt_clock(&cpu);
	wp = t->wp;
	delta = *ts - t->last_ts;
	if (unlikely((delta >> 32) || (unsigned long)(t->end - wp) < n + 3 || cpu != t->cpu ||
		     bytes > 0xffff)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->state &= ~RT_TS_BUSY;
		return NULL;
	}
	wp[0] = urec_ext(UEXT_EVENT, n);
	wp[1] = (uint32_t)delta;
	wp[2] = (uint32_t)key->id | bytes << 16;
	return wp + 3;
}

/* The record rt_event_open made room for at body (len bytes, clock ts)
 * committed, t no longer BUSY. */
static inline __attribute__((always_inline)) void rt_event_close(struct rt_thread *t, uint32_t *body,
								 uint32_t len, uint64_t ts)
{
	uint32_t *end = body + (len - (uint32_t)sizeof(struct utrace_trace_entry) + 3) / 4;

	t->wp = end;
	t->last_ts = ts;
	t->written++;
	/* release: see rt_rb_put */
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)end - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state &= ~RT_TS_BUSY;
}

/*
 * rt_event_open and rt_event_close around a copy of rec (len bytes with
 * its common fields, which are not stored): true, or false having written
 * nothing.  rt_event_write's own fast way; inproc_probes.c's plain hit
 * calls it in place, with no second look at what it checked already.
 */
static inline __attribute__((always_inline)) bool
rt_event_put(struct rt_thread *t, const struct utrace_event_key *key, const void *rec, uint32_t len)
{
	const uint8_t *src = (const uint8_t *)rec + 8;
	uint32_t bytes = len - (uint32_t)sizeof(struct utrace_trace_entry), i;
	uint64_t ts;
	uint32_t *wp = rt_event_open(t, key, len, &ts);

	if (unlikely(!wp))
		return false;
	for (i = 0; i < bytes / 4; i++)
		__builtin_memcpy(&wp[i], src + 4 * i, 4);
	if (bytes & 3) { /* the last word's bytes past the record are 0 */
		uint32_t last = 0;

		for (uint32_t k = 0; k < (bytes & 3); k++)
			last |= (uint32_t)src[4 * i + k] << (8 * k);
		wp[i] = last;
	}
	rt_event_close(t, wp, len, ts);
	return true;
}
/* a trace_marker write (the live thread's) to reader's trace_marker: its
 * triggers (reader's only), its record */
void rt_marker_write(const char *text, unsigned len, uint32_t reader) RT_HIDDEN;

#endif
