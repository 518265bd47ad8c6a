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
 * text_poke batch, as for function sites):
 *
 *   trace_foo(a, b):   nopl 0(%rax,%rax)   ->   jmp  .Lrecord
 *                      ...                      ...
 *           .Lrecord:  call __utrace_do_foo: fills the record on the stack,
 *                      calls key->write = rt_event_write
 *
 * rt_event_write runs the filter on the record, then copies it (without
 * the kernel's 8 bytes of common fields, which the reader rebuilds) into
 * the thread's ring buffer as one EVENT record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "common/filter_prog.h"
#include "common/hist_fast.h"
#include "common/hist_prog.h"
#include "common/record.h"
#include "include/utrace/tracepoint.h"
#include "runtime/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))

/* A hist trigger: its program and the table it fills (shared memory). */
struct rt_hist {
	const struct utrace_hist_hdr *prog;
	struct utrace_hist_map *map;
	struct utrace_hist_fast fast; /* the program's shape, when it has it */
};

/* What the recorder set for an enabled event: key->filter points here. */
struct rt_event_conf {
	uint32_t len;	/* bytes of the filter in prog, 0: none */
	uint32_t flags; /* enum utrace_enable_flags */
	uint32_t nr_hist;
	uint32_t needs; /* enum utrace_hist_needs of every trigger */
	uint32_t nr_trig;
	uint32_t reserved;
	struct rt_hist hist[UTRACE_EVENT_HISTS_MAX];
	struct rt_trig trig[UTRACE_EVENT_TRIGS_MAX];
	uint64_t prog[]; /* the interpreter wants its program 8-byte aligned */
};

struct rt_jump {
	uint64_t code, target, key;
};

/* Every table a hist trigger of this process fills or RESOLVEs in, by the
 * recorder's id: set once (release) when its HIST or TABLE comes, read
 * (acquire) by any hit, so a hit sees a table whole or not at all. */
static struct utrace_hist_map *ev_tables[UTRACE_HIST_TABLES_MAX];

static struct utrace_hist_map *ev_table(void *arg, uint32_t id)
{
	(void)arg;
	return id < UTRACE_HIST_TABLES_MAX ? __atomic_load_n(&ev_tables[id], __ATOMIC_ACQUIRE)
					   : NULL;
}

/* The synthetic events of the recording (lib/hist/synth.h): keys that no
 * jump site names, fired by the EMIT of an onmatch() action. */
static struct utrace_event_key ev_synth_keys[UTRACE_SYNTH_MAX];
static struct rt_object ev_synth_obj = {.index = UTRACE_SYNTH_OBJ};

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

/*
 * key->write: called by the program's __utrace_do_<event> with the record
 * on its stack (8-byte aligned: generated code keeps it in a uint64_t
 * array).  The common case is written in place with no call; anything
 * unusual (new sub-buffer, big delta, new CPU) goes through
 * ev_write_words and rt_rb_reserve.
 */
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

	rt_snapshot_request(e->common_type, e->common_pid);
}

/*
 * The event's hist triggers, before (or, soft-enabled, instead of) its
 * record.  Needs no buffer and no BUSY bit: the table is lock-free and
 * everything else lives on this stack, so a signal handler may run the
 * same triggers meanwhile.  errno is kept (the one system calls here are
 * the thread's first: its id and its name).
 */
static inline __attribute__((always_inline)) void ev_triggers(const struct utrace_event_key *key,
						  const struct rt_event_conf *conf,
						  const void *rec, uint32_t len, uint32_t *post)
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

	if (unlikely(!t->tid || !t->comm[0])) {
		int saved = errno;

		if (!t->tid)
			t->tid = gettid();
		prctl(PR_GET_NAME, t->comm);
		errno = saved;
	}
	ev_fill_common(key, rec, t->tid);
	if (conf->nr_trig)
		rt_trig_commands(conf->trig, conf->nr_trig, rec, len, post);
	if (!conf->nr_hist || !rt_tracing_on())
		return;
	st = conf->flags & UTRACE_ENABLE_STATEFUL ? rt_ev_state(key->id) : NULL;
	if (st && (__atomic_load_n(st, __ATOMIC_RELAXED) & UTRACE_EVS_HIST_PAUSED))
		return;
	if (conf->needs & (UTRACE_HIST_NEEDS_TS | UTRACE_HIST_NEEDS_CPU)) {
		uint64_t tsc = rt_clock(&c.cpu);

		c.ts_ns = (uint64_t)(((unsigned __int128)tsc * rt.tsc_ns_mult) >> 32);
	}
	for (uint32_t i = 0; i < conf->nr_hist; i++) {
		const struct rt_hist *h = &conf->hist[i];

		if (h->fast.ok)
			utrace_hist_fast_run(h->prog, &h->fast, h->map, &c);
		else
			utrace_hist_run(h->prog, h->map, &c);
	}
}

/* set_event_pid: whether this thread's events are recorded (the list is
 * the recorder's, changed at any time: each entry read once). */
static bool ev_pid_ok(void)
{
	const int32_t *p = rt.ctl->ev_pids;
	struct rt_thread *t = &rt_self;
	int32_t v;

	if (!__atomic_load_n(&p[0], __ATOMIC_RELAXED))
		return true;
	if (unlikely(!t->tid))
		t->tid = gettid(); /* sets no errno */
	for (unsigned i = 0; i < UTRACE_EV_PIDS && (v = __atomic_load_n(&p[i], __ATOMIC_RELAXED));
	     i++)
		if (v == t->tid)
			return true;
	return false;
}

/* An event with triggers or whose state triggers change: whether its
 * record is written (not soft-enabled, not soft-disabled, its thread not
 * left out by set_event_pid). */
static __attribute__((noinline)) bool ev_special(const struct utrace_event_key *key,
						 const struct rt_event_conf *conf, const void *rec,
						 uint32_t len, uint32_t *post)
{
	uint8_t *st;

	if (conf->nr_hist || conf->nr_trig)
		ev_triggers(key, conf, rec, len, post);
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
						    uint32_t len, bool on)
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
	rt_stacktrace_write(t, rec);
}

static void rt_event_write(struct utrace_event_key *key, const void *rec, uint32_t len)
{
	struct rt_thread *t = &rt_self;
	/* acquire: a configuration the live channel swaps in is whole */
	const struct rt_event_conf *f = __atomic_load_n(&key->filter, __ATOMIC_ACQUIRE);
	const uint32_t *src = (const uint32_t *)((const uint8_t *)rec + 8);
	uint32_t bytes, n, cpu, *wp, post = 0;
	uint64_t ts, delta;

	if (unlikely(len < sizeof(struct utrace_trace_entry)))
		return;
	if (unlikely(f && (f->nr_hist || f->nr_trig || f->flags))) {
		bool on = ev_special(key, f, rec, len, &post);

		if (unlikely(post)) {
			ev_write_post(key, f, rec, len, on);
			return;
		}
		if (!on)
			return;
	}
	if (unlikely(t->state != RT_TS_READY) && !(t = ev_thread(t)))
		return;
	if (unlikely(!rt_tracing_on()))
		return;
	if (f && f->len) {
		ev_fill_common(key, rec, t->tid);
		if (!utrace_filter_run(f->prog, f->len, rec, len))
			return;
	}
	bytes = len - (uint32_t)sizeof(struct utrace_trace_entry);
	n = (bytes + 3) / 4;
	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts = rt_clock(&cpu);
	wp = t->wp;
	delta = ts - t->last_ts;
	if (likely(!(delta >> 32) && (unsigned long)(t->end - wp) >= n + 3 && cpu == t->cpu &&
		   bytes <= 0xffff)) {
		uint32_t i;

		wp[0] = urec_ext(UEXT_EVENT, n);
		wp[1] = (uint32_t)delta;
		wp[2] = (uint32_t)key->id | bytes << 16;
		for (i = 0; i < bytes / 4; i++)
			wp[3 + i] = src[i];
		if (bytes & 3) {
			uint32_t last = 0;

			for (uint32_t k = 0; k < (bytes & 3); k++)
				last |= (uint32_t)((const uint8_t *)(src + i))[k] << (8 * k);
			wp[3 + i] = last;
		}
		t->wp = wp + 3 + n;
		t->last_ts = ts;
		t->written++;
		/* release: see rt_rb_put */
		__atomic_store_n(&t->sb->commit,
				 (uint32_t)((uint8_t *)(wp + 3 + n) - (uint8_t *)(t->sb + 1)),
				 __ATOMIC_RELEASE);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->state &= ~RT_TS_BUSY;
		return;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state &= ~RT_TS_BUSY;
	if (bytes > 0xffff)
		bytes = 0xffff;
	ev_write_words(t, UEXT_EVENT, (uint32_t)key->id | bytes << 16, src, bytes);
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

/* ---- utrace_printf (include/utrace/utrace.h) -------------------------- */

RT_EXPORT int __utrace_marker_on;

RT_EXPORT void __utrace_marker_write(const char *text, unsigned len)
{
	struct rt_thread *t = &rt_self;

	if (!(t = ev_thread(t)) || !rt_tracing_on())
		return;
	if (len > 4096)
		len = 4096;
	ev_write_words(t, UEXT_PRINT, len, text, len);
}

/* ---- registration ------------------------------------------------------ */

static int ev_send_names(struct rt_object *obj, struct utrace_event_key *keys, uint32_t nr)
{
	size_t size = sizeof(struct utrace_msg_events) +
		      UTRACE_EVENTS_PER_MSG * sizeof(struct utrace_msg_event_name);
	struct utrace_msg_events *m = calloc(1, size);
	int ret = 0;

	if (!m)
		return -1;
	for (uint32_t first = 0; first < nr && ret >= 0; first += UTRACE_EVENTS_PER_MSG) {
		uint32_t cnt =
		    nr - first < UTRACE_EVENTS_PER_MSG ? nr - first : UTRACE_EVENTS_PER_MSG;

		m->hdr.type = UTRACE_MSG_EVENTS;
		m->hdr.size = (uint32_t)(sizeof(*m) + cnt * sizeof(m->ev[0]));
		m->obj = obj->index;
		m->first = first;
		m->count = cnt;
		m->total = nr;
		for (uint32_t i = 0; i < cnt; i++) {
			const struct utrace_event_key *k = &keys[first + i];
			const struct utrace_fmt_event *fe = k->fmt;

			memset(&m->ev[i], 0, sizeof(m->ev[i]));
			m->ev[i].key = first + i;
			if (k->size != sizeof(*k) || !fe || fe->kind != UTRACE_FMT_EVENT)
				continue; /* an ABI we do not know: never enabled */
			memcpy(m->ev[i].system, fe->system, sizeof(m->ev[i].system) - 1);
			memcpy(m->ev[i].name, fe->name, sizeof(m->ev[i].name) - 1);
		}
		ret = rt_send(m, m->hdr.size, -1);
	}
	free(m);
	return ret;
}

/* A hist trigger for the next ENABLE: its program, checked whole once
 * here (each run checks only what it runs), and its table mapped. */
static int ev_recv_hist(const struct utrace_msg_hist *m, int fd, struct rt_hist *h)
{
	const struct utrace_hist_hdr *hdr;
	struct utrace_hist_map *map;
	void *prog;

	if (fd < 0 || m->hdr.size < sizeof(*m) + m->prog_len)
		return -1;
	prog = aligned_alloc(8, (m->prog_len + 7) & ~7u);
	if (!prog)
		return -1;
	memcpy(prog, m->prog, m->prog_len);
	hdr = utrace_hist_hdr_ok(prog, m->prog_len);
	if (!hdr || (hdr->filter_len && utrace_filter_check(utrace_hist_filter(hdr),
							     hdr->filter_len) < 0) ||
	    m->map_size != utrace_hist_map_bytes(hdr->map_bits, hdr->key_size, hdr->nr_sums))
		goto bad;
	map = mmap(NULL, m->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto bad;
	if (map->magic != UTRACE_HIST_MAP_MAGIC || map->bits != hdr->map_bits ||
	    map->key_size != hdr->key_size || map->nr_sums != hdr->nr_sums) {
		munmap(map, m->map_size);
		goto bad;
	}
	h->prog = hdr;
	h->map = map;
	utrace_hist_fast_of(hdr, &h->fast);
	if (m->table && m->table < UTRACE_HIST_TABLES_MAX && !ev_table(NULL, m->table))
		/* release: the map is whole before a RESOLVE can find it */
		__atomic_store_n(&ev_tables[m->table], map, __ATOMIC_RELEASE);
	return 0;
bad:
	rt_log("a hist trigger from the recorder is malformed; it stays off");
	free(prog);
	return 1;
}

/* Another trigger's table that a following program RESOLVEs in: mapped
 * once, checked whole as a HIST's table is. */
static void ev_recv_table(const struct utrace_msg_table *m, int fd)
{
	struct utrace_hist_map *map;

	if (fd < 0 || !m->table || m->table >= UTRACE_HIST_TABLES_MAX || ev_table(NULL, m->table) ||
	    m->map_size < UTRACE_HIST_MAP_HDR || m->map_size > (1ull << 40))
		return;
	map = mmap(NULL, m->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return;
	if (map->magic != UTRACE_HIST_MAP_MAGIC || map->bits > 20 || (map->key_size & 7) ||
	    map->key_size > UTRACE_HIST_KEY_MAX || !map->nr_sums ||
	    map->nr_sums > UTRACE_HIST_SUMS_MAX ||
	    m->map_size != utrace_hist_map_bytes(map->bits, map->key_size, map->nr_sums)) {
		rt_log("a hist table from the recorder is malformed; it is not used");
		munmap(map, m->map_size);
		return;
	}
	/* release: the map is whole before a RESOLVE can find it */
	__atomic_store_n(&ev_tables[m->table], map, __ATOMIC_RELEASE);
}

/* A trigger command for the next ENABLE, its filter checked whole. */
static int ev_recv_trig(const struct utrace_msg_trigger *m, struct rt_trig *tr)
{
	uint64_t *filter = NULL;

	if (m->hdr.size < sizeof(*m) + m->filter_len || !m->cmd || m->cmd > UTRACE_TC_STACKTRACE)
		return -1;
	if (m->filter_len) {
		filter = malloc((m->filter_len + 7) & ~7u);
		if (!filter)
			return -1;
		memcpy(filter, m->filter, m->filter_len);
		if (utrace_filter_check(filter, m->filter_len) < 0) {
			rt_log("a trigger's filter from the recorder is malformed; it stays off");
			free(filter);
			return 1;
		}
	}
	*tr = (struct rt_trig){m->cmd, m->target, m->count_idx, m->filter_len, filter};
	return 0;
}

struct ev_pending { /* what the next ENABLE turns on with its event */
	struct rt_hist hist[UTRACE_EVENT_HISTS_MAX];
	uint32_t nr_hist;
	struct rt_trig trig[UTRACE_EVENT_TRIGS_MAX];
	uint32_t nr_trig;
};

/* The event's filter and triggers, as the runtime keeps them. */
static struct rt_event_conf *ev_conf(const struct utrace_msg_enable *m, const struct ev_pending *p)
{
	const struct rt_hist *h = p->hist;
	uint32_t nr_hist = p->nr_hist;
	struct rt_event_conf *f;

	if (!m->filter_len && !nr_hist && !p->nr_trig && !m->flags)
		return NULL;
	f = calloc(1, sizeof(*f) + ((m->filter_len + 7) & ~7u));
	if (!f)
		return NULL;
	f->len = m->filter_len;
	f->flags = m->flags & ~(uint32_t)UTRACE_ENABLE_RECONF; /* how it came, not what it is */
	f->nr_hist = nr_hist;
	memcpy(f->hist, h, nr_hist * sizeof(*h));
	f->nr_trig = p->nr_trig;
	memcpy(f->trig, p->trig, p->nr_trig * sizeof(p->trig[0]));
	for (uint32_t i = 0; i < nr_hist; i++)
		f->needs |= h[i].prog->needs;
	memcpy(f->prog, m->filter, m->filter_len);
	if (f->len && utrace_filter_check(f->prog, f->len) < 0) {
		rt_log("an event filter from the recorder is malformed; the event stays off");
		free(f);
		return NULL;
	}
	return f;
}

static int ev_recv_enables(struct rt_object *obj, struct utrace_event_key *keys, uint32_t nr)
{
	struct utrace_msg_enable *m = malloc(UTRACE_MSG_MAX);
	struct ev_pending p = {.nr_hist = 0};
	int ret = -1, fd;

	if (!m)
		return -1;
	for (;;) {
		struct utrace_event_key *k;
		struct rt_event_conf *f;
		int n = rt_recv(m, UTRACE_MSG_MAX, &fd);

		if (n >= (int)sizeof(struct utrace_msg_hist) && m->hdr.type == UTRACE_MSG_HIST &&
		    m->obj == obj->index && p.nr_hist < UTRACE_EVENT_HISTS_MAX) {
			int r = ev_recv_hist((const void *)m, fd, &p.hist[p.nr_hist]);

			if (fd >= 0)
				close(fd);
			if (r < 0)
				break;
			p.nr_hist += !r;
			continue;
		}
		if (n >= (int)sizeof(struct utrace_msg_table) && m->hdr.type == UTRACE_MSG_TABLE) {
			ev_recv_table((const void *)m, fd);
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (n >= (int)sizeof(struct utrace_msg_trigger) && m->hdr.type == UTRACE_MSG_TRIGGER &&
		    m->obj == obj->index && p.nr_trig < UTRACE_EVENT_TRIGS_MAX) {
			int r = ev_recv_trig((const void *)m, &p.trig[p.nr_trig]);

			if (fd >= 0)
				close(fd);
			if (r < 0)
				break;
			p.nr_trig += !r;
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (n < (int)sizeof(*m) || m->hdr.type != UTRACE_MSG_ENABLE || m->obj != obj->index)
			break;
		if (m->key == UTRACE_ENABLE_DONE) {
			ret = 0;
			break;
		}
		if (m->key >= nr || m->hdr.size < sizeof(*m) + m->filter_len)
			break;
		k = &keys[m->key];
		f = ev_conf(m, &p);
		p.nr_hist = p.nr_trig = 0;
		if (!f && (m->filter_len || m->flags))
			continue; /* malformed: said, the event stays off */
		k->id = m->id;
		k->filter = f;
		k->write = rt_event_write;
		/* release: id, filter and write are set before the key reads
		 * as enabled (the jump sites are patched after this too) */
		__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
	}
	free(m);
	return ret;
}

/* Patch every jump site whose key is enabled and that is still a NOP. */
static int ev_patch_all(void)
{
	size_t n = 0, cap = 0;
	struct rt_poke *pokes = NULL;
	int ret;

	for (struct rt_object *o = rt.objects; o; o = o->next) {
		const struct rt_jump *j = o->jumps;

		for (uint32_t i = 0; i < o->nr_jumps; i++) {
			const struct utrace_event_key *k = (const void *)(uintptr_t)j[i].key;
			uint8_t *code = (uint8_t *)(uintptr_t)j[i].code;

			if (!k || !code || j[i].code < o->lo || j[i].code + 5 > o->hi ||
			    !insn_is_nop5(code) || !__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
				continue;
			if (n == cap) {
				struct rt_poke *p =
				    realloc(pokes, (cap = cap ? 2 * cap : 64) * sizeof(*p));

				if (!p) {
					free(pokes);
					return -1;
				}
				pokes = p;
			}
			pokes[n].addr = code;
			insn_rel32(pokes[n].bytes, INSN_JMP, j[i].code, j[i].target);
			n++;
		}
	}
	ret = rt_text_poke_batch(pokes, n);
	free(pokes);
	return ret;
}

/* The in-process probes' events (runtime/inproc_probes.c): keys of a
 * pseudo-object as the synthetic events', written by a probe's hit. */
static struct utrace_event_key ev_kprobe_keys[UTRACE_KPROBE_MAX];
static struct rt_object ev_kprobe_obj = {.index = UTRACE_KPROBE_OBJ};

void rt_kprobe_event_write(uint32_t key, void *rec, uint32_t len)
{
	struct utrace_event_key *k = &ev_kprobe_keys[key % UTRACE_KPROBE_MAX];

	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		rt_event_write(k, rec, len);
}

int rt_event_live_enable(const struct utrace_msg_enable *m, uint32_t size)
{
	static const struct ev_pending none;
	struct utrace_event_key *k;
	struct rt_event_conf *f;

	if (size < sizeof(*m) + m->filter_len)
		return -1;
	if (m->obj == UTRACE_KPROBE_OBJ && m->key < UTRACE_KPROBE_MAX)
		k = &ev_kprobe_keys[m->key];
	else if (m->obj == UTRACE_SYNTH_OBJ && m->key < UTRACE_SYNTH_MAX)
		k = &ev_synth_keys[m->key];
	else
		return -1;
	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		return -1; /* a key is never given twice */
	f = ev_conf(m, &none);
	if (!f && (m->filter_len || m->flags))
		return -1;
	k->id = m->id;
	k->filter = f;
	k->write = rt_event_write;
	/* release: as ev_recv_enables, id and filter before enabled */
	__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---- live changes (runtime/live.c) ------------------------------------ */

/* The keys of object obj (or of a pseudo-object); the caller holds the
 * objects (rt_objects_lock). */
static struct utrace_event_key *ev_keys_of(uint32_t obj, uint32_t *nr)
{
	if (obj == UTRACE_SYNTH_OBJ) {
		*nr = UTRACE_SYNTH_MAX;
		return ev_synth_keys;
	}
	if (obj == UTRACE_KPROBE_OBJ) {
		*nr = UTRACE_KPROBE_MAX;
		return ev_kprobe_keys;
	}
	for (struct rt_object *o = rt.objects; o; o = o->next)
		if (o->index == obj) {
			*nr = o->nr_keys;
			return o->keys;
		}
	return NULL;
}

/* What the next ENABLE of the live channel turns on: only the live
 * thread touches it. */
static struct ev_pending ev_live_pending;

/*
 * A key's new filter and triggers while the program runs (the tracefs's
 * filter and trigger files): HISTs, TABLEs and TRIGGERs as at
 * registration, then the ENABLE, which swaps the key's configuration in
 * one store.  The old one is not freed: a thread may be running it (a
 * hit loads the pointer once), and changes are few (written by hand).
 * A key that was off is turned on and its jump sites patched.
 */
int rt_events_live(const struct utrace_msg *msg, long n, int fd)
{
	struct ev_pending *p = &ev_live_pending;
	const struct utrace_msg_enable *m = (const void *)msg;
	struct utrace_event_key *keys, *k;
	struct rt_event_conf *f;
	uint32_t nr = 0;
	int ret = 0;

	if (msg->type == UTRACE_MSG_HIST && n >= (long)sizeof(struct utrace_msg_hist))
		return p->nr_hist < UTRACE_EVENT_HISTS_MAX &&
			       !ev_recv_hist((const void *)msg, fd, &p->hist[p->nr_hist])
			   ? (p->nr_hist++, 0)
			   : -EPROTO;
	if (msg->type == UTRACE_MSG_TABLE && n >= (long)sizeof(struct utrace_msg_table)) {
		ev_recv_table((const void *)msg, fd);
		return 0;
	}
	if (msg->type == UTRACE_MSG_TRIGGER && n >= (long)sizeof(struct utrace_msg_trigger))
		return p->nr_trig < UTRACE_EVENT_TRIGS_MAX &&
			       !ev_recv_trig((const void *)msg, &p->trig[p->nr_trig])
			   ? (p->nr_trig++, 0)
			   : -EPROTO;
	if (msg->type != UTRACE_MSG_ENABLE || n < (long)sizeof(*m) ||
	    m->hdr.size < sizeof(*m) + m->filter_len)
		return -EPROTO;
	f = ev_conf(m, p);
	p->nr_hist = p->nr_trig = 0;
	if (!f && (m->filter_len || m->flags))
		return -EPROTO; /* malformed: said */
	keys = ev_keys_of(m->obj, &nr);
	if (!keys || m->key >= nr)
		return -EPROTO;
	k = &keys[m->key];
	if (__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&k->filter, f, __ATOMIC_RELEASE);
	} else {
		k->id = m->id;
		k->filter = f;
		k->write = rt_event_write;
		__atomic_store_n(&k->enabled, 1, __ATOMIC_RELEASE);
		ret = m->obj == UTRACE_SYNTH_OBJ || m->obj == UTRACE_KPROBE_OBJ ? 0 : ev_patch_all();
	}
	return ret < 0 ? -EIO : 0;
}

/* After CONFIG and the synthetic events: the probes' enables. */
int rt_kprobe_events_register(void)
{
	if (!rt.cfg.nr_kprobes)
		return 0;
	return ev_recv_enables(&ev_kprobe_obj, ev_kprobe_keys, UTRACE_KPROBE_MAX);
}

/* After CONFIG: the synthetic events the recorder enables, with their
 * filters and triggers, as for an object (common/proto.h). */
int rt_synth_register(void)
{
	if (!rt.cfg.nr_synth)
		return 0;
	return ev_recv_enables(&ev_synth_obj, ev_synth_keys, UTRACE_SYNTH_MAX);
}

/* Objects added by this scan: name their events, enable what the
 * recorder selects, then patch jump sites in every object. */
int rt_events_register(struct rt_object *added)
{
	bool any = false;

	for (struct rt_object *o = added; o; o = o->next) {
		if (!o->nr_keys)
			continue;
		if (ev_send_names(o, o->keys, o->nr_keys) < 0 ||
		    ev_recv_enables(o, o->keys, o->nr_keys) < 0)
			return -1;
		any = true;
	}
	for (struct rt_object *o = added; o && !any; o = o->next)
		any = o->nr_jumps;
	return any ? ev_patch_all() : 0;
}
