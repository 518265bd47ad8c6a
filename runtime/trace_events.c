/* SPDX-License-Identifier: MIT */
/*
 * trace_events.c - static tracepoints (include/utrace/tracepoint.h) and
 * utrace_printf (the trace_marker equivalent).
 *
 * An object's __utrace_event_keys section holds one key per event it
 * defines; its __utrace_jump_table lists every call site, in any object,
 * as {code, target, key}.  At registration the runtime names its keys to
 * the recorder (EVENTS), which answers with the events to enable, their
 * ids and compiled filters (ENABLE).  An enabled key gets the id, the
 * filter and our write function, then every jump site of that key, in
 * every object, is patched from its 5-byte NOP to `jmp target` (one
 * text_poke batch, as for function sites; all of this is event_enable.c):
 *
 *   trace_foo(a, b):   nopl 0(%rax,%rax)   ->   jmp  .Lrecord
 *                      ...                      ...
 *           .Lrecord:  call __utrace_do_foo: fills the record on the stack,
 *                      calls key->write = rt_event_write
 *
 * rt_event_write copies the record of an event with no configuration
 * (without the kernel's 8 bytes of common fields, which the reader
 * rebuilds) into the thread's ring buffer as one EVENT record.  An event
 * with one (a filter, triggers, soft) goes to the configuration's own
 * writer, picked when it arrives (rt_event_conf_writer): ev_write_slow
 * for most, and for plain hist triggers a writer made for the trigger's
 * loads (EV_HIST_WRITERS), which counts a hit with no call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/filter_prog.h"
#include "common/hist_fast.h"
#include "common/hist_prog.h"
#include "common/record.h"
#include "include/utrace/tracepoint.h"
#include "runtime/rt.h"
#include "runtime/trace_events.h"

#define RT_EXPORT __attribute__((visibility("default")))

/* Every table a hist trigger of this process fills or RESOLVEs in, by the
 * recorder's id: set once (release) when its HIST or TABLE comes, read
 * (acquire) by any hit, so a hit sees a table whole or not at all. */
struct utrace_hist_map *ev_tables[UTRACE_HIST_TABLES_MAX];

struct utrace_hist_map *ev_table(void *arg, uint32_t id)
{
	(void)arg;
	return id < UTRACE_HIST_TABLES_MAX ? __atomic_load_n(&ev_tables[id], __ATOMIC_ACQUIRE)
					   : NULL;
}

/* The synthetic events of the recording (lib/hist/synth.h): keys that no
 * jump site names, fired by the EMIT of an onmatch() action. */
struct utrace_event_key ev_synth_keys[UTRACE_SYNTH_MAX];

/* trace_marker's event (events/ftrace/print): no jump site names it; its
 * triggers run on every trace_marker write (rt_marker_write). */
struct utrace_event_key ev_print_key;

static void ev_emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n);

/* The context that may write a record now, NULL if none: a nested one in
 * a signal handler that interrupted the tracer (rt_ctx).  Events are
 * recorded below a set_graph_notrace function and during unwinding too. */
static struct rt_thread *ev_thread(struct rt_thread *t)
{
	if (!(t = rt_ctx(t)))
		return NULL;
	if ((t->state & ~(RT_TS_NOTRACE | RT_TS_UNWINDING | RT_TS_SHARED)) == RT_TS_READY)
		return t;
	if (t->state & (RT_TS_BUSY | RT_TS_DEAD) || t->meta)
		return NULL;
	return rt_rb_slow_ok(t) ? t : NULL; /* creates the buffer */
}

static void ev_write_words(struct rt_thread *t, enum utrace_ext_type type, uint32_t second,
			   const void *data, uint32_t bytes)
{
	uint32_t n = (bytes + 3) / 4, cpu, delta, *wp;
	uint64_t ts;

	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts = rt_clock(&cpu);
	wp = rt_rb_reserve(t, 3 + n, 32, ts, cpu, &delta);
	if (wp) {
		wp[0] = urec_ext(type, n);
		wp[1] = delta;
		wp[2] = second;
		if (n)
			wp[2 + n] = 0; /* zero the tail of the last word */
		memcpy(wp + 3, data, bytes);
		rt_rb_commit(t, wp + 3 + n);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state &= ~RT_TS_BUSY;
}

/* The thread's id and name, which hist keys (common_pid, .execname)
 * read: taken once, off the fast path; errno as the program left it. */
static inline __attribute__((always_inline)) void ev_self_named(struct rt_thread *t)
{
	int saved;

	if (likely(t->tid && t->comm[0]))
		return;
	saved = errno;
	if (!t->tid)
		t->tid = gettid();
	prctl(PR_GET_NAME, t->comm);
	errno = saved;
}

/* The kernel's common fields with their values, for filters and triggers.
 * rec is the generated code's own temporary (__utrace_class_do_* in
 * define_trace.h), dead after the write: fill them in place, as the
 * kernel's trace_event_buffer_reserve does. */
static void ev_fill_common(const struct utrace_event_key *key, const void *rec, int32_t tid)
{
	struct utrace_trace_entry *common = (struct utrace_trace_entry *)(uintptr_t)rec;

	common->common_type = (unsigned short)key->id;
	common->common_flags = 0;
	common->common_preempt_count = 0;
	common->common_pid = tid;
}

/* STACK of a hist key (common_stacktrace): the hit's stack; arg is its
 * record, which lies in the frame of the generated code (stacktrace.c). */
static uint32_t ev_hist_stack(void *arg, uint64_t *pcs, uint32_t max)
{
	bool ret_addrs;

	return rt_stack_capture(&rt_self, arg, pcs, max, &ret_addrs);
}

/* SNAPSHOT of a hist handler (onmax($v).snapshot()): as the snapshot
 * trigger, for this event and thread; arg is the record, its common
 * fields already filled (ev_fill_common runs before the hists). */
static void ev_hist_snapshot(void *arg)
{
	const struct utrace_trace_entry *e = arg;

	rt_snapshot_request(e->common_type, e->common_pid, 0);
}

/*
 * The event's hist triggers, before (or, soft-enabled, instead of) its
 * record.  Needs no buffer and no BUSY bit: the table is lock-free and
 * everything else lives on this stack, so a signal handler may run the
 * same triggers meanwhile.  errno is kept (the one system calls here are
 * the thread's first: its id and its name).  The hists count while
 * tracing_on is 0, as the kernel's do (only the ring buffer is off
 * then), and stop when the recording ends.  only: the reader whose
 * triggers run (a trace_marker write's: the trace_array written), or
 * RT_TRIG_ALL (a hit: every reader's).
 */
static inline __attribute__((always_inline)) void ev_triggers(const struct utrace_event_key *key,
						  const struct rt_event_conf *conf,
						  const void *rec, uint32_t len, uint32_t *post,
						  uint32_t only)
{
	struct rt_thread *t = &rt_self;
	struct utrace_hist_ctx c = {.rec = rec,
				    .rec_len = len,
				    .comm = t->comm,
				    .table = ev_table,
				    .emit = ev_emit,
				    .arg = (void *)(uintptr_t)rec,
				    .stack = ev_hist_stack,
				    .snapshot = ev_hist_snapshot};
	uint8_t *st;
	bool paused;

	ev_self_named(t);
	ev_fill_common(key, rec, t->tid);
	if (conf->nr_trig)
		rt_trig_commands(conf->trig, conf->nr_trig, rec, len, post, only);
	if (!conf->nr_hist || !rt.enabled || __atomic_load_n(&rt.ctl->stopped, __ATOMIC_RELAXED))
		return;
	/* the top level's paused (disable_hist); an instance's hists by its own */
	st = conf->flags & UTRACE_ENABLE_STATEFUL ? rt_ev_state(key->id) : NULL;
	paused = st && (__atomic_load_n(st, __ATOMIC_RELAXED) & UTRACE_EVS_HIST_PAUSED);
	if (conf->needs & (UTRACE_HIST_NEEDS_TS | UTRACE_HIST_NEEDS_CPU)) {
		uint64_t tsc = rt_clock(&c.cpu);

		c.ts_ns = (uint64_t)(((unsigned __int128)tsc * rt.tsc_ns_mult) >> 32);
	}
	for (uint32_t i = 0; i < conf->nr_hist; i++) {
		const struct rt_hist *h = &conf->hist[i];

		if ((only != RT_TRIG_ALL && h->reader != only) ||
		    (h->reader ? rt_reader_hist_paused(h->reader, key->id) : paused))
			continue;
		if (h->fast.ok)
			utrace_hist_fast_run(h->prog, &h->fast, h->map, &c, (uint32_t)t->tid,
					     h->memo);
		else
			utrace_hist_run(h->prog, h->map, &c);
	}
}

/* A plain hist trigger's hit that utrace_hist_fast_hit left (a filter, a
 * new key, a stripe not the thread's, ...): the whole fast run. */
static __attribute__((noinline)) void ev_hist_run(const struct rt_hist *h, const void *rec,
						  uint32_t len, uint32_t tid)
{
	struct utrace_hist_ctx c;

	c.rec = rec;
	c.rec_len = len;
	utrace_hist_fast_run(h->prog, &h->fast, h->map, &c, tid, h->memo);
}

/*
 * ev_triggers for the most common configuration (conf->plain_hists: hist
 * triggers of hist_fast.h's shape only, the record written unless soft):
 * the same steps without what it cannot use, the clock, the trigger
 * commands, the state, a context; the common hit of each inline
 * (utrace_hist_fast_hit).  issue 25.
 */
static inline __attribute__((always_inline)) void ev_hists(const struct utrace_event_key *key,
							   const struct rt_event_conf *conf,
							   const void *rec, uint32_t len)
{
	struct rt_thread *t = &rt_self;

	ev_self_named(t);
	ev_fill_common(key, rec, t->tid);
	if (!rt.enabled || __atomic_load_n(&rt.ctl->stopped, __ATOMIC_RELAXED))
		return;
	for (uint32_t i = 0; i < conf->nr_hist; i++) {
		const struct rt_hist *h = &conf->hist[i];

		if (!utrace_hist_fast_hit(&h->fast, h->map, rec, len, (uint32_t)t->tid, h->memo))
			ev_hist_run(h, rec, len, (uint32_t)t->tid);
	}
}

/* Whether tid is in the 0-terminated list (the recorder's, changed at
 * any time: each entry read once). */
static bool ev_pid_in(const int32_t *p, int32_t tid)
{
	int32_t v;

	for (unsigned i = 0; i < UTRACE_EV_PIDS && (v = __atomic_load_n(&p[i], __ATOMIC_RELAXED));
	     i++)
		if (v == tid)
			return true;
	return false;
}

/* set_event_pid, set_event_notrace_pid: whether this thread's events are
 * recorded (in the first list if it has threads, not in the second). */
static bool ev_pid_ok(void)
{
	const struct utrace_control *c = rt.ctl;
	struct rt_thread *t = &rt_self;

	if (!__atomic_load_n(&c->ev_pids[0], __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&c->ev_notrace_pids[0], __ATOMIC_RELAXED))
		return true;
	if (unlikely(!t->tid))
		t->tid = gettid(); /* sets no errno */
	if (__atomic_load_n(&c->ev_pids[0], __ATOMIC_RELAXED) && !ev_pid_in(c->ev_pids, t->tid))
		return false;
	return !ev_pid_in(c->ev_notrace_pids, t->tid);
}

/* An event with triggers or whose state triggers change: whether its
 * record is written (not soft-enabled, not soft-disabled, its thread not
 * left out by set_event_pid or set_event_notrace_pid). */
static __attribute__((noinline)) bool ev_special(const struct utrace_event_key *key,
						 const struct rt_event_conf *conf, const void *rec,
						 uint32_t len, uint32_t *post)
{
	uint8_t *st;

	if (conf->nr_hist || conf->nr_trig)
		ev_triggers(key, conf, rec, len, post, RT_TRIG_ALL);
	if (conf->flags & UTRACE_ENABLE_SOFT)
		return false; /* triggers only: no record */
	if (!(conf->flags & UTRACE_ENABLE_STATEFUL))
		return true;
	st = rt_ev_state(key->id);
	return (!st || !(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UTRACE_EVS_OFF)) && ev_pid_ok();
}

/* An event one of whose triggers wants a record after its own (the
 * stacktrace trigger): its record, unless it is off, then the stack,
 * which the kernel writes even for a soft-disabled event. */
static __attribute__((noinline)) void ev_write_post(const struct utrace_event_key *key,
						    const struct rt_event_conf *f, const void *rec,
						    uint32_t len, bool on, uint32_t post)
{
	struct rt_thread *t = ev_thread(&rt_self);
	uint32_t bytes = len - (uint32_t)sizeof(struct utrace_trace_entry);

	if (!t || !rt_tracing_on())
		return;
	if (bytes > 0xffff)
		bytes = 0xffff;
	if (on && (!f->len || utrace_filter_run(f->prog, f->len, rec, len)))
		ev_write_words(t, UEXT_EVENT, (uint32_t)key->id | bytes << 16,
			       (const uint8_t *)rec + 8, bytes);
	rt_stacktrace_write(t, rec, post);
}

/* The record of an event that needs nothing else, second its third
 * header word (id | bytes << 16), which did not fit at the thread's write
 * pointer (a new sub-buffer, a big delta, another CPU): the general way,
 * which reserves (ring_buffer.c).  t is rt_self, READY. */
static __attribute__((noinline)) void ev_write_general(const void *rec, uint32_t second)
{
	ev_write_words(&rt_self, UEXT_EVENT, second, (const uint8_t *)rec + 8, second >> 16);
}

/* An event's record once its configuration f (NULL: none) said it is
 * written: the thread's context, tracing_on, the filter, then the record,
 * in place if it fits (rt_event_put) or reserved. */
static __attribute__((noinline)) void ev_write_on(const struct utrace_event_key *key,
						  const struct rt_event_conf *f, const void *rec,
						  uint32_t len)
{
	struct rt_thread *t = &rt_self;
	uint32_t bytes;

	if (unlikely(t->state != RT_TS_READY) && !(t = ev_thread(t)))
		return;
	if (unlikely(!rt_tracing_on()))
		return;
	if (f && f->len) {
		ev_fill_common(key, rec, t->tid);
		if (!utrace_filter_run(f->prog, f->len, rec, len))
			return;
	}
	if (likely(rt_event_put(t, key, rec, len)))
		return;
	bytes = len - (uint32_t)sizeof(struct utrace_trace_entry);
	if (bytes > 0xffff)
		bytes = 0xffff;
	ev_write_words(t, UEXT_EVENT, (uint32_t)key->id | bytes << 16, (const uint8_t *)rec + 8,
		       bytes);
}

/* ev_write_hists_as' every case: ev_hists, then the record unless soft. */
static __attribute__((noinline)) void ev_write_hists_all(const struct utrace_event_key *key,
							 const struct rt_event_conf *f,
							 const void *rec, uint32_t len)
{
	if (unlikely(len < sizeof(struct utrace_trace_entry)))
		return;
	ev_hists(key, f, rec, len);
	if (f->flags & UTRACE_ENABLE_SOFT)
		return;
	ev_write_on(key, f, rec, len);
}

/*
 * An event whose configuration f has hist triggers of hist_fast.h's shape
 * only (f->plain_hists): its tables, then its record unless soft.  The
 * common case, one trigger with a memo on a thread that knows its tid
 * (f->one_min says the first), a hit its memo and stripe take
 * (utrace_hist_fast_hit_as), has no call and keeps no value across one;
 * the common fields are filled only for a trigger that reads them (no
 * name: a plain trigger reads no comm).  Anything else goes to
 * ev_write_hists_all, nothing counted yet.  kkind, vkind: the loads it
 * is made for (EV_HIST_WRITERS), UTRACE_HFK_ANY for any.
 */
static inline __attribute__((always_inline)) void
ev_write_hists_as(const struct utrace_event_key *key, const struct rt_event_conf *f,
		  const void *rec, uint32_t len, uint32_t kkind, uint32_t vkind)
{
	const struct rt_hist *h = &f->hist[0];
	uint32_t tid = (uint32_t)rt_self.tid;

	if (unlikely(len < f->one_min || !tid || !rt.enabled ||
		     __atomic_load_n(&rt.ctl->stopped, __ATOMIC_RELAXED)))
		return ev_write_hists_all(key, f, rec, len);
	if (f->plain_common)
		ev_fill_common(key, rec, tid);
	if (unlikely(!utrace_hist_fast_hit_as(&h->fast, h->map, rec, tid, h->memo, kkind, vkind)))
		return ev_write_hists_all(key, f, rec, len);
	if (f->flags & UTRACE_ENABLE_SOFT)
		return;
	ev_write_on(key, f, rec, len);
}

/*
 * The writers made for the commonest triggers, one key and at most one
 * value, each a u32, s32 or 64-bit field (hist:keys=pid:vals=bytes), by
 * their loads' kinds: one table, from which rt_event_conf_writer picks.
 */
#define EV_HIST_WRITERS(X)                                                                 \
	X(U32, NONE) X(U32, U32) X(U32, S32) X(U32, 64) X(S32, NONE) X(S32, U32) X(S32, S32) \
	X(S32, 64) X(64, NONE) X(64, U32) X(64, S32) X(64, 64) X(ANY, ANY)

#define EV_HIST_WRITER(k, v)                                                               \
	static __attribute__((noinline)) void ev_write_hists_##k##_##v(                    \
		const struct utrace_event_key *key, const struct rt_event_conf *f,         \
		const void *rec, uint32_t len)                                             \
	{                                                                                  \
		ev_write_hists_as(key, f, rec, len, UTRACE_HFK_##k, UTRACE_HFK_##v);       \
	}
EV_HIST_WRITERS(EV_HIST_WRITER)
#undef EV_HIST_WRITER

static const rt_conf_write_fn ev_hist_writers[UTRACE_HFK_NR][UTRACE_HFK_NR] = {
#define EV_HIST_WRITER(k, v) [UTRACE_HFK_##k][UTRACE_HFK_##v] = ev_write_hists_##k##_##v,
	EV_HIST_WRITERS(EV_HIST_WRITER)
#undef EV_HIST_WRITER
};

/* Everything else rt_event_write's leaf does not take: another
 * configuration f (a filter, triggers, soft or stateful), a thread not
 * READY (its first record, a signal handler's nested context, notrace,
 * dead), tracing off, an odd length. */
static __attribute__((noinline)) void ev_write_slow(const struct utrace_event_key *key,
						    const struct rt_event_conf *f,
						    const void *rec, uint32_t len)
{
	uint32_t post = 0;
	bool on;

	if (unlikely(len < sizeof(struct utrace_trace_entry)))
		return;
	if (f && (f->nr_hist || f->nr_trig || f->flags)) {
		on = ev_special(key, f, rec, len, &post);
		if (unlikely(post)) {
			ev_write_post(key, f, rec, len, on, post);
			return;
		}
		if (!on)
			return;
	}
	ev_write_on(key, f, rec, len);
}

/* What rt_event_write hands configuration f to: a hist writer for plain
 * hist triggers (one made for the trigger's loads if there is one), else
 * ev_write_slow. */
rt_conf_write_fn rt_event_conf_writer(const struct rt_event_conf *f)
{
	const struct utrace_hist_fast *x = &f->hist[0].fast;
	rt_conf_write_fn w;

	if (!f->plain_hists)
		return ev_write_slow;
	if (f->one_min == UINT64_MAX)
		return ev_write_hists_ANY_ANY;
	w = ev_hist_writers[x->key_kind][x->val_kind];
	return w ? w : ev_write_hists_ANY_ANY;
}

/* The last 1 to 3 bytes of a record (n), as its last word, 0 past them:
 * nothing read past the record, a short then a byte load, not a loop. */
static inline __attribute__((always_inline)) uint32_t ev_tail(const uint8_t *p, uint32_t n)
{
	uint16_t h;

	if (n == 1)
		return p[0];
	__builtin_memcpy(&h, p, 2);
	return n == 2 ? h : (uint32_t)h | (uint32_t)p[2] << 16;
}

/* rt_clock with rseq's cpu_id as it is, -1 when the thread has none yet
 * (rt_clock makes that 0, which the leaf leaves to the general way): one
 * register fewer on the leaf. */
static inline __attribute__((always_inline)) uint64_t ev_clock_raw(uint32_t *cpu)
{
	uint32_t lo, hi, c = 0;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	if (likely(rt_rseq_cpu))
		__asm__ volatile("movl %%fs:(%1), %0" : "=r"(c) : "r"(rt_rseq_cpu));
	*cpu = c;
	return (uint64_t)hi << 32 | lo;
}

/*
 * key->write: called by the program's __utrace_do_<event> with the record
 * on its stack.  The common hit, an event with no configuration on a
 * READY thread with tracing on and room in its sub-buffer, is written
 * here with no call and no frame of callee-saved registers (issue 25: the
 * general way's frame pushed six on every hit): the clock read first, so
 * that the checks run in its shadow (measured: a record's time, against
 * reading it after BUSY), then rt_event_open's checks and rt_event_close's
 * steps around the copy.  Anything else is a tail call, nothing written
 * and t not BUSY: a configuration to its own writer (f->write), a
 * thread not READY, tracing off or an odd length to ev_write_slow, a
 * clock older than the thread's last record (a signal handler wrote
 * between the read and BUSY: delta >> 32), a big delta, another CPU or
 * no room to ev_write_general.
 */
void rt_event_write(struct utrace_event_key *key, const void *rec, uint32_t len)
{
	struct rt_thread *t = &rt_self;
	/* acquire: a configuration the live channel swaps in is whole */
	const struct rt_event_conf *f = __atomic_load_n(&key->filter, __ATOMIC_ACQUIRE);
	const uint8_t *src = (const uint8_t *)rec + 8, *e;
	uint32_t bytes = len - (uint32_t)sizeof(struct utrace_trace_entry), second, cpu, *wp, *end;
	uint64_t ts, delta;

	if (unlikely(f))
		return f->write(key, f, rec, len);
	ts = ev_clock_raw(&cpu);
	if (unlikely(t->state != RT_TS_READY || bytes > 0xffff || !rt_tracing_on()))
		return ev_write_slow(key, NULL, rec, len);
	/* from here on what the record needs is rec, second and t */
	second = (uint32_t)key->id | bytes << 16;
	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	delta = ts - t->last_ts;
	wp = t->wp;
	end = wp + 3 + ((second >> 16) + 3) / 4;
	if (unlikely(cpu != t->cpu || (delta >> 32) || end > t->end)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->state &= ~RT_TS_BUSY;
		return ev_write_general(rec, second);
	}
	t->last_ts = ts;
	wp[1] = (uint32_t)delta;
	wp[0] = urec_ext(UEXT_EVENT, ((second >> 16) + 3) / 4);
	wp[2] = second;
	wp += 3;
	/* the copy's addresses from rec and wp only: a loop index that the
	 * compiler took from the register delta >> 32 was in (0) made every
	 * load wait for the clock (5 ns a record, measured).  4-byte words,
	 * the width the generated code stores an int field with: 8-byte
	 * loads over two such stores measured no faster */
	for (e = src + ((second >> 16) & ~3u); src < e; src += 4, wp++)
		__builtin_memcpy(wp, src, 4);
	if (second & 3 << 16) /* the last word's bytes past the record are 0 */
		*wp = ev_tail(src, (second >> 16) & 3);
	t->wp = end;
	t->written++;
	/* release: see rt_rb_put */
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)end - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state &= ~RT_TS_BUSY;
}

/*
 * EMIT: the synthetic event's record, the common fields then one u64 slot
 * per number param (the kernel's synth_event layout; a narrower field
 * reads the slot's low bytes), 256 bytes per char[N] and the char[]
 * strings after (the words the program built), written as any event's: its filter, its triggers,
 * its record.  A synthetic event's own trigger may emit again: the depth
 * is bounded per thread (a signal handler that interrupts one only adds
 * to it), so a loop of actions ends.
 */
static __thread uint32_t ev_emit_depth;

static void ev_emit(void *arg, uint32_t synth, const uint64_t *params, uint32_t n)
{
	uint64_t rec[1 + UTRACE_HIST_PARAM_WORDS];
	struct utrace_event_key *k;

	(void)arg;
	if (synth >= UTRACE_SYNTH_MAX || n > UTRACE_HIST_PARAM_WORDS || ev_emit_depth >= 4)
		return;
	k = &ev_synth_keys[synth];
	if (!__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		return; /* no -e names it: nothing to record or run */
	rec[0] = 0;
	memcpy(rec + 1, params, n * sizeof(uint64_t));
	ev_emit_depth++;
	rt_event_write(k, rec, (uint32_t)(8 + 8 * n));
	ev_emit_depth--;
}

/* A crash signal's record (crash.c): written whether tracing is on or
 * not, as the death of a thread is always worth the file's keeping. */
void rt_signal_write(uint32_t sig, const struct urec_signal *rec)
{
	struct rt_thread *t = &rt_self;

	if (!rt.enabled || !(t = ev_thread(t)))
		return;
	ev_write_words(t, UEXT_SIGNAL, sig, rec, sizeof(*rec));
}

/* ---- utrace_printf (include/utrace/utrace.h) -------------------------- */

RT_EXPORT int __utrace_marker_on;

RT_EXPORT void __utrace_marker_write(const char *text, unsigned len)
{
	struct rt_thread *t = &rt_self;

	if (!(t = ev_thread(t)) || !rt_tracing_on())
		return;
	if (len > rt_rb_print_max())
		len = rt_rb_print_max();
	ev_write_words(t, UEXT_PRINT, len, text, len);
}

/*
 * A trace_marker write, in the live thread (live.c): its print record,
 * then, as the kernel's tracing_mark_write, the print event's triggers on
 * its entry (the common fields, ip, buf with its NUL; the kernel's
 * TRACE_MARKER_MAX_SIZE of text at most, as a trigger sees it), then the
 * post triggers' records (stacktrace).  The record goes first so that a
 * snapshot it fires holds it, as the kernel's does (its snapshot swaps
 * the buffer the entry is reserved in).  None of it while tracing is off
 * (the kernel's write fails then).  The entry is static: only the live
 * thread writes markers this way.
 */
#define EV_MARKER_TRIG_MAX 4096
static uint64_t ev_print_rec[(16 + EV_MARKER_TRIG_MAX + 1 + 7) / 8];

void rt_marker_write(const char *text, unsigned len, uint32_t reader)
{
	const struct rt_event_conf *f = NULL;
	struct rt_thread *t;
	uint32_t post = 0, n = len < EV_MARKER_TRIG_MAX ? len : EV_MARKER_TRIG_MAX;
	char *buf = (char *)ev_print_rec + 16;

	if (__atomic_load_n(&ev_print_key.enabled, __ATOMIC_ACQUIRE))
		f = __atomic_load_n(&ev_print_key.filter, __ATOMIC_ACQUIRE);
	__utrace_marker_write(text, len);
	if (!f || !(f->nr_hist || f->nr_trig) || !rt_tracing_on())
		return;
	ev_print_rec[0] = 0;
	ev_print_rec[1] = (uint64_t)(uintptr_t)rt_marker_write; /* the kernel's _THIS_IP_ */
	memcpy(buf, text, n);
	buf[n] = 0;
	ev_triggers(&ev_print_key, f, ev_print_rec, 16 + n + 1, &post, reader);
	if (post && (t = ev_thread(&rt_self)) && rt_tracing_on())
		rt_stacktrace_write(t, ev_print_rec, post);
}
