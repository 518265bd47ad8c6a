/* SPDX-License-Identifier: MIT */
/*
 * bt_probe.c - `utrace bt`'s action of an in-process probe, run at the
 * hit instead of writing the probe's record (issue 27).
 *
 * The tool compiles and checks the action (common/bt_prog.h) and sends
 * it only when all it does is aggregate into maps (lib/bt/bt_inproc.c);
 * the maps are tables of common/bt_table.h in a memfd the tool reads
 * when it prints them (UTRACE_MSG_BT).  Here the program is checked
 * again (never trusted beyond that) and run on what the hit gives: the
 * argument registers, the return value, pid, tid and the thread's name.
 * A hit costs no system call and no lock: the table's per-thread stripes
 * take the adds.  The interpreter's state (8 KiB) is mapped at a thread's
 * first hit, as inproc_probes.c's return frames are (too big for the
 * static TLS of a dlopen'ed runtime, too big for a signal stack), with
 * room for one nested hit (a signal handler's); deeper ones are dropped
 * and counted.  Whatever the program asks for that is not an aggregation
 * or a read (a map read, a record) gets nothing: the tool sent no such
 * program, and a forged one cannot do harm.
 *
 * Reads of the program's memory (LOAD, STR) go through rt_self_read, a
 * process_vm_readv() system call per read: a bad pointer gives EFAULT,
 * and the read 0, as bpftrace's probe_read, whatever signal handlers and
 * masks the program has.  An action that must run in the tool (printf, a
 * map read, ...) but reads memory at addresses computed at run time
 * (`$c = $c->next`) comes as a capture program (UTRACE_BT_MSG_CAPTURE):
 * it runs here only for its reads, which go into the probe's record
 * (common/bt_prog.h's UTRACE_BT_CAP_MAGIC) for the tool's run of it to
 * read the memory as it was at the hit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bt_fast.h"
#include "common/bt_table.h"
#include "common/fetch_prog.h"
#include "common/proto.h"
#include "runtime/rt.h"

#define RT_BT_NEST 2

struct rt_bt {
	const struct utrace_bt_hdr *prog;
	uint32_t nr_maps;
	bool fast; /* the program runs as fast_run's steps (common/bt_fast.h) */
	struct utrace_bt_fast steps;
	uint64_t *memo; /* UTRACE_BT_MEMO words a map (hist_memo.h), or NULL */
	struct utrace_hist_map *maps[];
};

struct rt_bt *rt_bt_keys[UTRACE_INPROC_PROBE_MAX]; /* RT_BT_CAPTURE: a capture program */
static __thread uint32_t rt_bt_depth;
static __thread int32_t rt_bt_tid, rt_bt_tid_pid;

/* A capture run's log of its reads (in the record being written). */
struct rt_bt_log {
	uint64_t *w;
	uint32_t n, max; /* words */
	bool full;
};
static __thread struct rt_bt_log *rt_bt_log;

_Static_assert(RT_BT_NEST * sizeof(struct utrace_bt_state) <= RT_BT_STATES_BYTES,
	       "the states fit");

static inline int32_t rt_bt_self_tid(void);

/* Whether a capture run's log has room for one more read (else it is
 * full: the read is not made, and fails). */
static bool rt_bt_log_room(void)
{
	struct rt_bt_log *l = rt_bt_log;

	if (l && l->n + 2 > l->max) {
		l->full = true;
		return false;
	}
	return true;
}

/* A read made: into a capture run's log (room checked). */
static void rt_bt_logged(uint64_t addr, unsigned size, bool ok, uint64_t v)
{
	struct rt_bt_log *l = rt_bt_log;

	if (!l)
		return;
	l->w[l->n++] = addr | (uint64_t)size << 56 | (ok ? 0 : UTRACE_BT_CAP_FAULT);
	l->w[l->n++] = v;
}

/* LOAD's read: 0, or -1 (and 0 read) if it faults; logged in a capture
 * run, which stops reading once its log is full (the tool's run reads 0
 * there anyway: a loop's reads cost no more system calls than the record
 * holds). */
static int rt_bt_load(uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t v = 0;
	bool ok;

	*out = 0;
	if (size > 8 || addr > UTRACE_BT_CAP_ADDR_MAX || !rt_bt_log_room())
		return -1;
	ok = rt_self_read(rt_bt_self_tid(), addr, &v, size);
	if (!ok)
		v = 0;
	rt_bt_logged(addr, size, ok, v);
	*out = v;
	return ok ? 0 : -1;
}

/* STR's read in one system call: the words utrace_bt_load_str would read
 * one by one (as many as max characters from addr and one byte more
 * take), one iovec a
 * page (a read ends at the first piece that faults, and a word never
 * crosses a page: the words before an unmapped page are read, as one by
 * one; an iovec a word would cost the kernel a page lookup each, 4 times
 * the time); then taken as it takes them, each word logged as its LOAD
 * would be, up to the NUL's. */
static int rt_bt_load_str(uint64_t addr, unsigned max, char *dst)
{
	enum { NW = (UTRACE_BT_STRLEN + 14) / 8 };
	uint64_t w[NW], base = addr & ~7ull, page_end = (base | 4095) + 1;
	unsigned nw = (unsigned)(((addr & 7) + max + 1 + 7) / 8), got, n = 0;
	uint64_t len1 = 8 * nw < page_end - base ? 8 * nw : page_end - base;
	struct rt_iov local[2] = {{w, len1}, {(uint8_t *)w + len1, 8 * nw - len1}};
	struct rt_iov remote[2] = {{(void *)(uintptr_t)base, len1},
				   {(void *)(uintptr_t)page_end, 8 * nw - len1}};
	long r;

	dst[0] = 0;
	if (addr > UTRACE_BT_CAP_ADDR_MAX - 8 * NW || max >= UTRACE_BT_STRLEN || !nw)
		return -1;
	r = rt_self_readv(rt_bt_self_tid(), local, remote, len1 < 8 * nw ? 2 : 1);
	got = r > 0 ? (unsigned)(r / 8) : 0;
	for (unsigned i = 0; i < nw; i++) {
		if (!rt_bt_log_room())
			break;
		rt_bt_logged(base + 8 * i, 8, i < got, i < got ? w[i] : 0);
		if (i >= got)
			break;
		for (unsigned k = i ? 0 : (unsigned)(addr & 7); k < 8; k++) {
			char ch = (char)(w[i] >> (8 * k));

			if (!ch || n == max) {
				dst[n] = 0;
				return 0;
			}
			dst[n++] = ch;
		}
	}
	dst[0] = 0; /* a word it needs could not be read: "", as bpftrace's */
	return -1;
}

static int rt_bt_no_get(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	(void)arg, (void)map, (void)key;
	__builtin_memset(v, 0, sizeof(*v));
	return -1;
}

static void rt_bt_no_emit(void *arg, const void *rec, uint32_t len)
{
	(void)arg, (void)rec, (void)len;
}

static void rt_bt_no_update(void *arg, unsigned map, const uint8_t *key, int agg,
			    const struct utrace_bt_mval *v)
{
	(void)arg, (void)map, (void)key, (void)agg, (void)v;
}

static void rt_bt_update(void *arg, unsigned map, const uint8_t *key, int agg,
			 const struct utrace_bt_mval *v)
{
	const struct rt_bt *b = arg;
	const struct utrace_bt_mapdesc *d;

	if (map >= b->nr_maps)
		return;
	d = &utrace_bt_maps(b->prog)[map];
	if (agg > 0 && (uint32_t)agg == d->agg && utrace_bt_table_agg_ok(d))
		utrace_bt_table_update(b->maps[map], d, key, v->i, (uint32_t)rt_bt_tid);
}

/* The tables of the memfd, one per map in order, each checked whole. */
static bool rt_bt_tables(struct rt_bt *b, uint8_t *base, uint64_t size)
{
	uint64_t off = 0;

	for (uint32_t i = 0; i < b->nr_maps; i++) {
		struct utrace_hist_map *m = (struct utrace_hist_map *)(base + off);
		const struct utrace_bt_mapdesc *d = &utrace_bt_maps(b->prog)[i];

		if (off + UTRACE_HIST_MAP_HDR > size || m->magic != UTRACE_HIST_MAP_MAGIC ||
		    m->bits < 1 || m->bits > UTRACE_BT_TABLE_BITS_MAX ||
		    m->key_size != utrace_bt_table_key_size(d) ||
		    m->nr_sums != UTRACE_BT_TABLE_SUMS)
			return false;
		off += utrace_hist_map_bytes(m->bits, m->key_size, m->nr_sums);
		if (off > size)
			return false;
		b->maps[i] = m;
	}
	return true;
}

int rt_bt_recv(const struct utrace_msg_bt *m, uint32_t size, int fd)
{
	bool capture = m->flags & UTRACE_BT_MSG_CAPTURE;
	struct rt_bt *b = NULL;
	void *prog = NULL, *base = MAP_FAILED;
	const struct utrace_bt_hdr *h;

	if (m->key < UTRACE_INPROC_PROBE_MAX && __atomic_load_n(&rt_bt_keys[m->key], __ATOMIC_ACQUIRE))
		return 0; /* a fork child's again: it has its parent's, the same tables */
	if ((fd < 0 && !capture) || size < sizeof(*m) + m->prog_len ||
	    m->key >= UTRACE_INPROC_PROBE_MAX || (!m->tables_size && !capture) ||
	    m->tables_size > (1ull << 36))
		goto bad;
	prog = aligned_alloc(8, (m->prog_len + 7) & ~7u);
	if (!prog)
		goto bad;
	memcpy(prog, m->prog, m->prog_len);
	h = prog;
	if (utrace_bt_check(prog, m->prog_len) < 0 ||
	    !(b = calloc(1, sizeof(*b) + h->nr_maps * sizeof(b->maps[0]))))
		goto bad;
	b->prog = h;
	b->nr_maps = h->nr_maps;
	b->fast = !capture && utrace_bt_fast_of(h, &b->steps) == 0;
	b->memo = calloc(h->nr_maps ? h->nr_maps : 1, UTRACE_BT_MEMO * sizeof(uint64_t));
	if (!capture) {
		base = mmap(NULL, m->tables_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED || !rt_bt_tables(b, base, m->tables_size))
			goto bad;
		if (b->fast)
			utrace_bt_fast_bind(h, &b->steps, b->maps, b->memo);
	}
	/* release: the program and its tables are whole before a hit sees them */
	__atomic_store_n(&rt_bt_keys[m->key],
			 (struct rt_bt *)((uintptr_t)b | (capture ? RT_BT_CAPTURE : 0)),
			 __ATOMIC_RELEASE);
	return 0;
bad:
	rt_log("a bt program from the recorder is malformed; its probe records its hits");
	if (base != MAP_FAILED)
		munmap(base, m->tables_size);
	if (b)
		free(b->memo);
	free(b);
	free(prog);
	return 1;
}

/* This thread's interpreter state at nesting level d, mapped at its
 * first hit (NULL: no memory, the hit is dropped). */
static struct utrace_bt_state *rt_bt_state(uint32_t d)
{
	struct rt_thread *t = &rt_self;

	if (!t->bt_states) {
		int saved = errno;
		void *none = NULL, *p = mmap(NULL, RT_BT_STATES_BYTES, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		/* a signal handler's hit may map first: its mapping stays */
		if (p != MAP_FAILED &&
		    !__atomic_compare_exchange_n(&t->bt_states, &none, p, false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			munmap(p, RT_BT_STATES_BYTES);
		errno = saved;
		if (!t->bt_states)
			return NULL;
	}
	return (struct utrace_bt_state *)t->bt_states + d;
}

/* The thread's id: once a thread, again in a fork child (the raw system
 * call sets no errno: the straight path touches errno nowhere). */
static inline int32_t rt_bt_self_tid(void)
{
	if (unlikely(rt_bt_tid_pid != rt.pid || !rt_bt_tid)) {
		rt_bt_tid = (int32_t)rt_syscall3(SYS_gettid, 0, 0, 0);
		rt_bt_tid_pid = rt.pid;
	}
	return rt_bt_tid;
}

static void rt_bt_hit_of(struct utrace_bt_hit *hit, const struct utrace_fetch_regs *regs,
			 const uint64_t *entry, bool is_return)
{
	static const uint8_t arg_regs[6] = {UTRACE_FR_DI, UTRACE_FR_SI, UTRACE_FR_DX,
					    UTRACE_FR_CX, UTRACE_FR_R8, UTRACE_FR_R9};

	for (unsigned i = 0; i < 6; i++)
		hit->args[i] = (int64_t)(entry ? entry[i] : regs->r[arg_regs[i]]);
	for (unsigned i = 0; i < UTRACE_BB_MAX; i++)
		hit->builtin[i] = 0;
	hit->builtin[UTRACE_BB_RETVAL] = is_return ? (int64_t)regs->r[UTRACE_FR_AX] : 0;
	hit->builtin[UTRACE_BB_PID] = rt.pid;
	hit->builtin[UTRACE_BB_TID] = rt_bt_self_tid();
	__builtin_memcpy(hit->comm, rt_self.comm, sizeof(hit->comm));
}

/* A hit of a program the interpreter runs (not fast): on this thread's
 * state, errno kept.  Out of line: its context (zeroed, a `rep stos` that
 * was a fifth of a straight hit) and its hit would otherwise be made on
 * every straight hit's stack too. */
static __attribute__((noinline)) bool rt_bt_hit_interp(struct rt_bt *b,
						       const struct utrace_fetch_regs *regs,
						       const uint64_t *entry, bool is_return)
{
	struct utrace_bt_ctx ctx = {.arg = b, .load = rt_bt_load, .map_get = rt_bt_no_get,
				    .map_update = rt_bt_update, .emit = rt_bt_no_emit,
				    .load_str = rt_bt_load_str};
	struct utrace_bt_hit hit;
	struct utrace_bt_state *st;
	uint32_t d;
	int saved;

	saved = errno;
	d = rt_bt_depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (d < RT_BT_NEST && (st = rt_bt_state(d))) {
		struct rt_bt_log *outer = rt_bt_log; /* (a capture run's, interrupted) */

		rt_bt_log = NULL;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_bt_hit_of(&hit, regs, entry, is_return);
		utrace_bt_exec(b->prog, &hit, &ctx, st);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_bt_log = outer;
	} else if (b->nr_maps) {
		__atomic_fetch_add(&b->maps[0]->drops, 1, __ATOMIC_RELAXED);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_bt_depth--;
	errno = saved;
	return true;
}

/* A straight program's hit: no state, no interpreter, no errno, the
 * tables updated straight (bt_fast.h). */
static inline __attribute__((always_inline)) void rt_bt_fast_hit(struct rt_bt *b,
								 const uint64_t *r,
								 const uint64_t *entry,
								 bool is_return)
{
	struct utrace_bt_fhit x = {r, entry, is_return ? (int64_t)r[UTRACE_FR_AX] : 0, rt.pid,
				   rt_bt_self_tid()};

	utrace_bt_fast_run(&b->steps, &x, (uint32_t)x.tid);
}

static inline struct rt_bt *rt_bt_of(uint32_t key)
{
	return __atomic_load_n(&rt_bt_keys[key % UTRACE_INPROC_PROBE_MAX], __ATOMIC_ACQUIRE);
}

bool rt_bt_hit(uint32_t key, const struct utrace_fetch_regs *regs, const uint64_t *entry,
	       bool is_return)
{
	struct rt_bt *b = rt_bt_of(key);

	if (unlikely(!b || ((uintptr_t)b & RT_BT_CAPTURE)))
		return false; /* none, or a capture program: the hit records */
	if (likely(b->fast)) {
		rt_bt_fast_hit(b, regs->r, entry, is_return);
		return true;
	}
	return rt_bt_hit_interp(b, regs, entry, is_return);
}

int rt_bt_hit_lean(uint32_t key, const uint64_t *r)
{
	struct rt_bt *b = rt_bt_of(key);

	if (unlikely(!b || ((uintptr_t)b & RT_BT_CAPTURE)))
		return RT_BT_LEAN_NONE;
	if (unlikely(!b->fast))
		return RT_BT_LEAN_FRAME;
	rt_bt_fast_hit(b, r, NULL, false);
	return RT_BT_LEAN_TAKEN;
}

uint32_t rt_bt_capture(uint32_t key, const struct utrace_fetch_regs *regs, const uint64_t *entry,
		       bool is_return, uint64_t *rec, uint32_t len, uint32_t cap)
{
	uintptr_t tagged = (uintptr_t)__atomic_load_n(&rt_bt_keys[key % UTRACE_INPROC_PROBE_MAX],
						       __ATOMIC_ACQUIRE);
	struct rt_bt *b = tagged & RT_BT_CAPTURE ? (struct rt_bt *)(tagged & ~RT_BT_CAPTURE) : NULL;
	struct utrace_bt_ctx ctx = {.arg = b, .load = rt_bt_load, .map_get = rt_bt_no_get,
				    .map_update = rt_bt_no_update, .emit = rt_bt_no_emit,
				    .load_str = rt_bt_load_str};
	uint32_t at = (len + 7) & ~7u, d;
	struct rt_bt_log log = {0}, *outer;
	struct utrace_bt_hit hit;
	struct utrace_bt_state *st;
	int saved;

	if (!b || at + 8 > cap)
		return len;
	for (uint32_t i = len; i < at; i++)
		((uint8_t *)rec)[i] = 0;
	log.w = rec + at / 8;
	log.max = ((cap - at - 8) / 8) & ~1u;
	saved = errno;
	d = rt_bt_depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (d < RT_BT_NEST && (st = rt_bt_state(d))) {
		outer = rt_bt_log;
		rt_bt_log = &log;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_bt_hit_of(&hit, regs, entry, is_return);
		utrace_bt_exec(b->prog, &hit, &ctx, st);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_bt_log = outer;
	} else {
		log.full = true; /* nothing read: the tool's run reads 0 and says so */
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_bt_depth--;
	errno = saved;
	log.w[log.n] = (uint64_t)UTRACE_BT_CAP_MAGIC << 32 | (log.full ? UTRACE_BT_CAP_FULL : 0) |
		       log.n / 2;
	return at + 8 * (log.n + 1);
}
