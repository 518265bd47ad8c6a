/* SPDX-License-Identifier: MIT */
/*
 * ring_buffer.c - the producer side of a thread's ring buffer.
 *
 * Layout and the head/tail protocol are described in common/rb_abi.h; the
 * record words in common/record.h.  The fast path (rt_rb_put1 in rt.h) is
 * a handful of instructions: compute the delta, store one word, advance
 * the write pointer, store the commit count.  Everything else comes here:
 *
 *   - the sub-buffer is full: hand it to the recorder (head++) and start
 *     the next one, or, in producer/consumer mode when the recorder has
 *     not saved it yet, wait for it (no-loss mode, the default) or drop
 *     the record and count it (like the kernel's default mode, new
 *     records are lost, old ones kept);
 *   - the delta does not fit the record: put a TIME_EXTEND first;
 *   - the thread moved to another CPU: put a CPU record first;
 *   - the thread has no buffer yet: create it (memfd, mmap, hand the fd to
 *     the recorder);
 *   - the live tracefs asked for another sub-buffer size
 *     (buffer_subbuf_size_kb, the control page's subbuf_size): at the
 *     next sub-buffer, the buffer is closed for the recorder, as at the
 *     thread's exit, and a new one of that size made (rb_resize), as the
 *     kernel's ring_buffer_subbuf_order_set replaces every CPU's pages.
 *     A buffer never changes its size under the thread writing it, and
 *     the recorder is never told of one it has mapped; a thread that
 *     writes nothing more keeps its buffer as it is.
 *
 * Nothing here may call libc on the record path (string functions clobber
 * the vector registers that hold the traced function's arguments):
 * buffer creation, which must, runs under utrace_call_preserving_fpu.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/record.h"
#include "runtime/rt.h"

__thread struct rt_thread rt_self;
__thread struct rt_thread rt_nest_ctx[RT_NEST_MAX];

static pthread_key_t rb_key;
static pthread_once_t rb_key_once = PTHREAD_ONCE_INIT;

/* The threads that have a buffer (their own context), for a detach to
 * retire every buffer at once (rt_rb_retire_all). */
static pthread_mutex_t rb_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *rb_reg_head;

static void rb_register(struct rt_thread *t)
{
	pthread_mutex_lock(&rb_reg_lock);
	t->nest = rt_nest_ctx;
	t->reg_prev = NULL;
	t->reg_next = rb_reg_head;
	if (rb_reg_head)
		rb_reg_head->reg_prev = t;
	rb_reg_head = t;
	pthread_mutex_unlock(&rb_reg_lock);
}

static void rb_unregister(struct rt_thread *t)
{
	if (!t->nest)
		return;
	pthread_mutex_lock(&rb_reg_lock);
	if (t->reg_prev)
		t->reg_prev->reg_next = t->reg_next;
	else
		rb_reg_head = t->reg_next;
	if (t->reg_next)
		t->reg_next->reg_prev = t->reg_prev;
	t->nest = t->reg_next = t->reg_prev = NULL;
	pthread_mutex_unlock(&rb_reg_lock);
}

/*
 * The frames the reader must know about are the recorded ones: not the
 * set_graph_notrace frames (hooked, never written), and none at all with
 * tracing_thresh (nothing is written at entry).
 */
static uint32_t rb_recorded_depth(const struct rt_thread *t)
{
	return rt.tsc_thresh ? 0 : t->depth - t->notrace_depth;
}

static void rb_write_context(struct rt_thread *t)
{
	uint32_t depth = rb_recorded_depth(t), n = depth < 64 ? depth : 64, k = n;
	uint32_t *wp = t->wp;

	*wp++ = urec_ext(UEXT_CONTEXT, n);
	*wp++ = depth;
	/* the innermost n recorded frames, outermost first */
	for (uint32_t i = t->depth; i-- > 0 && k;)
		if (!(t->stack[i].flags & RT_FRAME_NOTRACE))
			wp[--k] = t->stack[i].id;
	t->wp = wp + n;
	t->sb->flags |= UTRACE_SB_CONTEXT;
}

/*
 * The futex system call made directly: libc's syscall() is not known to
 * leave the vector registers alone (they may hold the traced function's
 * arguments), and its errno is the program's.  Shared (no
 * FUTEX_PRIVATE_FLAG): the word is in a memfd the recorder maps too.
 */
static long rb_futex(uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	register const struct timespec *r10 __asm__("r10") = ts;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_futex), "D"(word), "S"((long)op), "d"((long)val), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* How many times a full buffer's tail is re-read before sleeping: a
 * recorder in the middle of a drain frees a sub-buffer in microseconds. */
#define RB_SPIN 2000
/* One sleep of a blocked producer; tracing_on is checked between two. */
#define RB_SLEEP_MS 10

static bool rb_has_room(struct rt_thread *t, struct utrace_rb_meta *m, uint64_t *tail)
{
	/* acquire: the recorder finished copying sub-buffer tail - 1 before
	 * it published tail; only then may we reuse it. */
	*tail = __atomic_load_n(&m->tail, __ATOMIC_ACQUIRE);
	return t->head - *tail < m->nr_subbufs;
}

/*
 * No-loss mode, the buffer is full: wait for the recorder to save a
 * sub-buffer (true), or give up (false: the record is dropped as in the
 * default mode) when tracing was switched off or the recorder saved
 * nothing for UTRACE_RB_BLOCK_TIMEOUT_MS (dead or stopped: the program
 * must not hang on it).  After a time-out the thread does not wait again
 * until tail moves.  Bounded, so safe in a signal handler too.
 */
static bool rb_wait_room(struct rt_thread *t, struct utrace_rb_meta *m)
{
	const struct timespec nap = {0, RB_SLEEP_MS * 1000000L};
	uint64_t tail, t0;
	bool room = false;
	uint32_t cpu;

	if (rb_has_room(t, m, &tail))
		return true;
	if (t->stuck && tail == t->stuck_tail)
		return false;
	t->stuck = false;
	/* counted for the summary: the price of no-loss, in time */
	t0 = rt_clock(&cpu);
	__atomic_store_n(&m->waits, m->waits + 1, __ATOMIC_RELAXED);
	for (int i = 0; i < RB_SPIN && !room; i++) {
		__asm__ volatile("pause");
		room = rb_has_room(t, m, &tail);
	}
	if (room)
		goto out;
	__atomic_store_n(&m->waiting, 1, __ATOMIC_RELAXED);
	/* waiting is visible before we read tail again: pairs with the
	 * recorder's fence between its store of tail and its load of
	 * waiting, so either we see the new tail or it sees us waiting and
	 * wakes us (and the futex re-checks the word against a stale tail). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned n = 0; n < UTRACE_RB_BLOCK_TIMEOUT_MS / RB_SLEEP_MS; n++) {
		if ((room = rb_has_room(t, m, &tail)) || !rt_tracing_on())
			break;
		rb_futex(utrace_rb_tail_word(m), FUTEX_WAIT, (uint32_t)tail, &nap);
	}
	__atomic_store_n(&m->waiting, 0, __ATOMIC_RELAXED);
	if (!room && rt_tracing_on()) {
		t->stuck = true;
		t->stuck_tail = tail;
	}
out:
	__atomic_store_n(&m->wait_tsc, m->wait_tsc + (rt_clock(&cpu) - t0), __ATOMIC_RELAXED);
	return room;
}

/* Begin sub-buffer head % nr; false if the recorder still owns it. */
static bool rb_start_subbuf(struct rt_thread *t, uint64_t ts, uint32_t cpu)
{
	struct utrace_rb_meta *m = t->meta;
	struct utrace_subbuf *sb;
	bool overwrite = m->flags & UTRACE_RB_OVERWRITE;
	uint64_t tail;

	if (!overwrite && !rb_has_room(t, m, &tail) &&
	    !((m->flags & UTRACE_RB_BLOCK) && rb_wait_room(t, m)))
		return false;
	sb = (struct utrace_subbuf *)(t->subbufs + (t->head % m->nr_subbufs) * t->sb_size);
	/* commit = 0 before seq, with a release fence between: a reader that
	 * sees the new seq (acquire) reads this commit or a later one, never
	 * the one the slot's previous sub-buffer left, which would make it
	 * copy old records under the new header (the partial page a read of
	 * the trace saves, lib/record/recorder_drain.c rec_drain_partial;
	 * an extract).  A reader of the previous sub-buffer that sees this 0
	 * copies nothing. */
	__atomic_store_n(&sb->commit, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* seq next, then a release fence: an overwrite-mode reader copying
	 * this page reads seq after its copy and discards the page if it
	 * changed, so seq must change before any data does. */
	__atomic_store_n(&sb->seq, (uint32_t)t->head, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sb->time_stamp = ts;
	sb->lost_before = t->lost_pending > UINT32_MAX ? UINT32_MAX : (uint32_t)t->lost_pending;
	sb->cpu = (uint16_t)cpu;
	sb->flags = 0;
	sb->depth = rb_recorded_depth(t);
	sb->records = 0;
	t->sb_written = t->written;

	t->sb = sb;
	t->wp = (uint32_t *)(sb + 1);
	t->end = t->wp + utrace_subbuf_data(t->sb_size) / 4;
	t->last_ts = ts;
	t->cpu = cpu;
	/* The reader pairs exits with entries by nesting.  After a gap, or
	 * when it may start reading here (overwrite mode), tell it which
	 * frames are open. */
	/* ...and in a buffer's first sub-buffer: a fork child starts inside
	 * the frames it inherited from its parent. */
	if (t->stack && rb_recorded_depth(t) && (overwrite || t->lost_pending || !t->head))
		rb_write_context(t);
	t->lost_pending = 0;
	__atomic_store_n(&sb->commit, (uint32_t)((uint8_t *)t->wp - (uint8_t *)(sb + 1)),
			 __ATOMIC_RELEASE);
	return true;
}

static void rb_finish_subbuf(struct rt_thread *t)
{
	struct utrace_rb_meta *m = t->meta;

	t->sb->records = (uint32_t)(t->written - t->sb_written);
	t->head++;
	__atomic_store_n(&m->written, t->written, __ATOMIC_RELAXED);
	/* release: the records and the final commit of this sub-buffer are
	 * visible to the recorder before the head that gives it away. */
	__atomic_store_n(&m->head, t->head, __ATOMIC_RELEASE);
	t->sb = NULL;
	t->wp = NULL;
	t->end = NULL;
}

/* Gives the recorder the current sub-buffer now, however full: the live
 * channel's thread after a trace_marker, so that `cat trace` shows it at
 * once.  Only the buffer's own thread may call this (one writer). */
void rt_rb_flush(struct rt_thread *t)
{
	if (t->sb && t->meta && t->written > t->sb_written)
		rb_finish_subbuf(t);
}

static void rb_drop(struct rt_thread *t)
{
	t->lost++;
	t->lost_pending++;
	__atomic_store_n(&t->meta->lost, t->lost + t->nested, __ATOMIC_RELAXED);
}

/*
 * Whether the calling thread is the one context t was made for: checked
 * once a sub-buffer (a system call per few hundred records), so that a
 * thread sharing the TLS that the clone() wrapper did not see (a clone
 * made by a system call of its own), or a child forked without the fork
 * handlers (the fork system call made directly, vfork) never hands on
 * a buffer that is not its own.  A thread of this process marks the
 * block SHARED for its owner (rt_nest keeps it out from then on); a
 * child process, whose memory may still be the parent's (vfork), changes
 * nothing.
 */
static bool rb_mine(struct rt_thread *t)
{
	struct rt_thread *base = t->level ? &rt_self : t;

	if (likely(rt_syscall3(SYS_gettid, 0, 0, 0) == t->tid))
		return true;
	if (rt_syscall3(SYS_getpid, 0, 0, 0) == rt.pid && !(base->state & RT_TS_SHARED)) {
		base->owner = t->tid;
		__atomic_fetch_or(&base->state, RT_TS_SHARED, __ATOMIC_SEQ_CST);
	}
	return false;
}

/* The sub-buffer size the control page asks of buffers now
 * (buffer_subbuf_size_kb); a word that is no size a buffer may have
 * counts as the default. */
static uint32_t rb_subbuf_size(void)
{
	uint32_t size = __atomic_load_n(&rt.ctl->subbuf_size, __ATOMIC_RELAXED);

	return utrace_subbuf_size_ok(size) ? size : UTRACE_SUBBUF_SIZE;
}

static long rb_create(void *arg);

/* The longest text one PRINT record can hold now: in a sub-buffer of the
 * size asked.  A thread whose buffer has another size writes a record
 * into its current sub-buffer if it fits there, else into a new one,
 * which is the new buffer's (rt_rb_reserve): one of the size asked. */
uint32_t rt_rb_print_max(void)
{
	return utrace_print_max(rb_subbuf_size());
}

/*
 * Replace t's buffer, between two sub-buffers, by one of the sub-buffer
 * size asked now: the old one is closed as rb_close_one closes it at the
 * thread's exit (its counts, then CLOSED: the recorder saves what it
 * holds and lets it go), then rb_create makes the new one, which the
 * recorder gets as a new buffer of the same thread (a nested context's
 * after its base's, as at their first record).  The thread's counts
 * start over with it, as the recorder counts each buffer's.  The state
 * bits the caller runs under (BUSY above all: a signal handler must not
 * write here meanwhile) are kept.  Runs under
 * utrace_call_preserving_fpu, as buffer creation does.
 */
static long rb_resize(void *arg)
{
	struct rt_thread *t = arg;
	struct utrace_rb_meta *m = t->meta;
	uint32_t keep = t->state & ~(RT_TS_READY | RT_TS_DEAD | RT_TS_STALE);
	int saved_errno = errno;

	__atomic_store_n(&m->written, t->written, __ATOMIC_RELAXED);
	__atomic_store_n(&m->lost, t->lost + t->nested, __ATOMIC_RELAXED);
	prctl(PR_GET_NAME, m->comm);
	/* release: every record and commit is visible before CLOSED */
	__atomic_store_n(&m->state, UTRACE_RB_CLOSED, __ATOMIC_RELEASE);
	t->meta = NULL;
	t->sb = NULL;
	t->wp = t->end = NULL;
	munmap(m, utrace_rb_bytes(m->nr_subbufs, t->sb_size));
	t->written = t->sb_written = t->lost = t->lost_pending = t->nested = 0;
	errno = saved_errno;
	rb_create(t);
	t->state |= keep;
	return 0;
}

/*
 * Make room for a record of n words at time ts: a new sub-buffer if this
 * one is full (in a new buffer if another sub-buffer size was asked), a
 * CPU record if the thread moved, a TIME_EXTEND if the delta does not
 * fit the record's delta field of `bits` bits.  Returns where the record
 * goes (the caller fills it and calls rt_rb_commit) with *delta the value
 * for its delta field, or NULL if the record is dropped.
 */
uint32_t *rt_rb_reserve(struct rt_thread *t, unsigned n, unsigned bits, uint64_t ts, uint32_t cpu,
			uint32_t *delta)
{
	uint64_t d = 0;
	uint32_t *wp;

	if (unlikely(!t->meta))
		return NULL;
	/* tracing_cpumask: not written, not lost */
	if (unlikely(cpu < 64 && (__atomic_load_n(&rt.ctl->cpu_off, __ATOMIC_RELAXED) >> cpu & 1)))
		return NULL;
	if (!t->sb || t->end - t->wp < (long)n + 3) {
		if (unlikely(!rb_mine(t)))
			return NULL; /* not ours to write, nor to count in */
		if (t->sb)
			rb_finish_subbuf(t);
		if (unlikely(t->sb_size != rb_subbuf_size())) {
			utrace_call_preserving_fpu(rb_resize, t);
			if (!t->meta)
				return NULL; /* no new buffer: not traced any more */
		}
		if (n + 3 > utrace_subbuf_data(t->sb_size) / 4)
			goto drop; /* can never fit */
		if (!rb_start_subbuf(t, ts, cpu))
			goto drop;
	}
	wp = t->wp;
	if (cpu != t->cpu) {
		*wp++ = urec_ext(UEXT_CPU, cpu);
		t->cpu = cpu;
	}
	if (bits) {
		/* TSCs are synchronised here (constant_tsc, nonstop_tsc) but a
		 * read on another CPU may still be a few cycles behind: never
		 * let time go backwards within a thread. */
		if (ts > t->last_ts)
			d = ts - t->last_ts;
		else
			ts = t->last_ts;
		if (bits < 64 && d >> bits) {
			*wp++ = urec_ext(UEXT_TIME_EXTEND, (uint32_t)(d & 0xffffff));
			*wp++ = (uint32_t)(d >> 24);
			d = 0;
		}
		t->last_ts = ts;
	}
	t->wp = wp;
	*delta = (uint32_t)d;
	return wp;
drop:
	rb_drop(t);
	return NULL;
}

void rt_rb_commit(struct rt_thread *t, uint32_t *end)
{
	t->wp = end;
	t->written++;
	/* release: see rt_rb_put */
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)end - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
}

void rt_rb_write(struct rt_thread *t, const uint32_t *words, unsigned n, unsigned dpos, uint64_t ts,
		 uint32_t cpu)
{
	uint32_t delta, *wp = rt_rb_reserve(t, n, RT_DPOS_BITS(dpos), ts, cpu, &delta);

	if (!wp)
		return;
	for (unsigned i = 0; i < n; i++)
		wp[i] = words[i];
	if (RT_DPOS_BITS(dpos))
		wp[RT_DPOS_WORD(dpos)] |= delta << RT_DPOS_SHIFT(dpos);
	rt_rb_commit(t, wp + n);
}

/* ---- buffer creation and teardown ---------------------------------- */

static void rb_thread_exit(void *arg)
{
	rt_rb_thread_close(arg);
}

/*
 * exit() runs no pthread key destructor for the thread that calls it
 * (the main thread, most often), so its buffer would keep the name the
 * thread had when the buffer was made; a thread may have renamed itself
 * since (pthread_setname_np).  Its last name is read here, as
 * rb_close_one reads another thread's, for the recorder's summary and
 * the file (issue 22).  prctl does not allocate; errno is kept.
 */
__attribute__((destructor)) static void rb_exit_name(void)
{
	struct utrace_rb_meta *m = rt_self.meta;
	int saved = errno;
	uint32_t cpu;
	uint64_t tsc0 = rt_clock(&cpu);

	/* only the thread's own buffer: a child forked without the fork
	 * handlers still maps its parent's (rb_mine) */
	if (m && !(rt_self.state & RT_TS_STALE) &&
	    rt_syscall3(SYS_gettid, 0, 0, 0) == rt_self.tid) {
		prctl(PR_GET_NAME, m->comm);
		m->own[2] = tsc0; /* our exit work: its window (OWN) */
		m->own[3] = rt_clock(&cpu);
	}
	errno = saved;
}

static void rb_key_init(void)
{
	pthread_key_create(&rb_key, rb_thread_exit);
}

/* The sub-buffers of size bytes a buffer made now has: buffer_size_kb's
 * KiB (the config's until it is written), rounded up to whole
 * sub-buffers, as the kernel keeps a buffer's bytes when its sub-buffer
 * size changes.  A nested context's buffer holds what signal handlers
 * did while the tracer was busy: rarely much, so a quarter of the
 * thread's. */
static uint32_t rb_nr_subbufs(const struct rt_thread *t, uint32_t size)
{
	uint64_t kb = __atomic_load_n(&rt.ctl->buffer_kb, __ATOMIC_RELAXED);
	uint64_t nr;

	if (!kb) /* buffer_size_kb not written */
		kb = (uint64_t)rt.cfg.nr_subbufs * (UTRACE_SUBBUF_SIZE / 1024);
	nr = (kb * 1024 + size - 1) / size;
	if (t->level)
		nr /= 4;
	if (nr > UINT32_MAX)
		nr = UINT32_MAX;
	return nr < UTRACE_RB_MIN_SUBBUFS ? UTRACE_RB_MIN_SUBBUFS : (uint32_t)nr;
}

/*
 * Runs in async-signal context when t is nested (a handler's first traced
 * call): only system calls below, no allocation, and no pthread keys.
 */
static long rb_create(void *arg)
{
	struct rt_thread *t = arg;
	int saved_errno = errno;
	uint32_t nr, sb_size = rb_subbuf_size();
	uint64_t size;
	struct utrace_msg_buffer msg;
	struct utrace_rb_meta *m;
	uint32_t cpu;
	uint64_t tsc0 = rt_clock(&cpu); /* the start of our own work (OWN) */
	pid_t tid = gettid();
	int fd = -1;

	if (t->state & RT_TS_STALE) /* a past attach's: let go of it */
		rt_rb_forget_one(t);
	nr = rb_nr_subbufs(t, sb_size);
	size = utrace_rb_bytes(nr, sb_size);
	/* -T: only the listed threads */
	if (rt.ctl->tid_filter[0]) {
		bool found = false;

		for (unsigned i = 0; i < 16 && rt.ctl->tid_filter[i]; i++)
			found |= rt.ctl->tid_filter[i] == tid;
		if (!found) {
			t->state = RT_TS_DEAD;
			goto out;
		}
	}
	fd = memfd_create("utrace-buffer", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		rt_log("cannot create a trace buffer (memfd); this thread is not traced");
		t->state = RT_TS_DEAD;
		goto close_out;
	}
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		rt_log("cannot map a trace buffer; this thread is not traced");
		t->state = RT_TS_DEAD;
		goto close_out;
	}
	m->size = sizeof(*m);
	m->magic = UTRACE_RB_MAGIC;
	m->subbuf_size = sb_size;
	m->nr_subbufs = nr;
	m->flags = rt.cfg.flags & UTRACE_CFG_OVERWRITE ? UTRACE_RB_OVERWRITE
		   : rt.cfg.flags & UTRACE_CFG_BLOCK   ? UTRACE_RB_BLOCK
						       : 0;
	m->pid = rt.pid;
	m->tid = tid;
	m->nest = t->level;
	t->tid = tid;
	t->ftpid = 0; /* set_ftrace_pid asked again: a new thread, or a new recording (attach) */
	prctl(PR_GET_NAME, m->comm);

	/* live: the tracer may become function_graph at any time (live.c) */
	if ((rt.cfg.tracer == UTRACE_TRACER_FUNCTION_GRAPH || rt.cfg.flags & UTRACE_CFG_LIVE) &&
	    !t->stack) {
		void *s = mmap(NULL, (size_t)RT_STACK_FRAMES * sizeof(struct rt_frame),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (s == MAP_FAILED) {
			rt_log("cannot map a shadow stack; this thread is not traced");
			munmap(m, size);
			t->state = RT_TS_DEAD;
			goto close_out;
		}
		t->stack = s;
		t->stack_cap = RT_STACK_FRAMES;
	}

	memset(&msg, 0, sizeof(msg));
	msg.hdr.size = sizeof(msg);
	msg.hdr.type = UTRACE_MSG_BUFFER;
	msg.tid = tid;
	msg.nr_subbufs = nr;
	memcpy(msg.comm, m->comm, sizeof(msg.comm));
	if (rt_send(&msg, sizeof(msg), fd) < 0) {
		munmap(m, size);
		t->state = RT_TS_DEAD;
		rt_conn_lost_say();
		goto close_out;
	}
	t->meta = m;
	t->sb_size = sb_size;
	t->subbufs = (uint8_t *)m + UTRACE_RB_META_SIZE;
	t->head = 0;
	t->sb = NULL;
	t->wp = t->end = NULL;
	t->state = RT_TS_READY | (t->state & RT_TS_SHARED);
	if (!t->level) { /* nested contexts are closed with the thread's */
		pthread_once(&rb_key_once, rb_key_init);
		pthread_setspecific(rb_key, t);
		if (!t->nest)
			rb_register(t);
	}
close_out:
	if (fd >= 0)
		close(fd);
	if (t->state & RT_TS_READY) { /* made: its window, read at the final drain */
		t->meta->own[0] = tsc0;
		t->meta->own[1] = rt_clock(&cpu);
	}
out:
	errno = saved_errno;
	return 0;
}

/*
 * A signal handler called a traced function while the tracer of context t
 * was BUSY: the handler's records go to the next context, whose buffer and
 * shadow stack nobody is in the middle of changing.  Each context is only
 * ever entered by a handler that interrupted the one before, so it has one
 * writer at a time, like t.  Returns NULL (the call is counted lost in the
 * thread's own buffer, never dropped silently) when every level is busy, or
 * when the interrupted context has no buffer yet: then it may be in the
 * middle of creating it, and the recorder must see a thread's buffers in
 * order.
 */
struct rt_thread *rt_nest(struct rt_thread *t)
{
	struct rt_thread *base = t, *n;

	/* shared by a thread made without a TLS of its own: the other one
	 * reads nothing more and writes nothing (rt_rb_share) */
	if (rt_tls_foreign(t))
		return NULL;
	while (t->state & RT_TS_BUSY) {
		if (!t->meta || t->level >= RT_NEST_MAX || (t->state & RT_TS_DEAD))
			goto lost;
		n = &rt_nest_ctx[t->level];
		if (!n->level)
			n->level = t->level + 1;
		t = n;
	}
	return t;
lost:
	if (base->meta) {
		base->nested++;
		__atomic_store_n(&base->meta->lost, base->lost + base->nested, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The thread has no buffer yet, or is not on the fast path for another
 * reason.  Returns whether it may record now.  t is a context that is not
 * BUSY (rt_ctx). */
bool rt_rb_slow_ok(struct rt_thread *t)
{
	if (t->state & RT_TS_BUSY)
		return false;
	if (t->state & RT_TS_DEAD)
		return false;
	if (!rt.enabled || rt.sock < 0)
		return false;
	if (!t->meta || (t->state & RT_TS_STALE)) {
		t->state |= RT_TS_BUSY;
		utrace_call_preserving_fpu(rb_create, t);
		t->state &= ~RT_TS_BUSY;
	}
	return (t->state & ~(RT_TS_UNWINDING | RT_TS_SHARED)) == RT_TS_READY;
}

static void rb_close_one(struct rt_thread *t)
{
	struct utrace_rb_meta *m = t->meta;

	if (!m)
		return;
	uint32_t cpu;
	uint64_t tsc0 = rt_clock(&cpu);

	t->state |= RT_TS_DEAD;
	__atomic_store_n(&m->written, t->written, __ATOMIC_RELAXED);
	__atomic_store_n(&m->lost, t->lost + t->nested, __ATOMIC_RELAXED);
	prctl(PR_GET_NAME, m->comm);
	m->own[2] = tsc0; /* our exit work: its window (OWN); the munmaps follow */
	m->own[3] = rt_clock(&cpu);
	/* release: every record and commit above is visible before the
	 * recorder sees the buffer closed and does its final read. */
	__atomic_store_n(&m->state, UTRACE_RB_CLOSED, __ATOMIC_RELEASE);
	t->meta = NULL;
	t->sb = NULL;
	t->wp = t->end = NULL;
	munmap(m, utrace_rb_bytes(m->nr_subbufs, t->sb_size));
	if (t->stack && !t->depth && !t->stack_key) { /* (a coroutine's: fgraph_stacks.c) */
		munmap(t->stack, (size_t)t->stack_cap * sizeof(struct rt_frame));
		t->stack = NULL;
	}
}

/* The thread is leaving: its own context and the nested ones. */
void rt_rb_thread_close(struct rt_thread *t)
{
	for (struct rt_thread *n = rt_ctx_next(t); n; n = rt_ctx_next(n))
		rb_close_one(n);
	rb_close_one(t);
	rb_unregister(t);
	if (t->ipp_rets) { /* inproc_probes.c's return frames: the thread is leaving */
		munmap(t->ipp_rets, RT_IPP_RETS_BYTES);
		t->ipp_rets = NULL;
	}
	if (t->bt_states) { /* bt_probe.c's interpreter states */
		munmap(t->bt_states, RT_BT_STATES_BYTES);
		t->bt_states = NULL;
	}
}

/* In a fork child: the buffer belongs to the parent's thread (the memfd
 * mapping is shared), so let go of it without touching it.  The first
 * thing a fork child does (init.c): stores and a system call made
 * directly, nothing the program could replace.  The store of meta
 * comes first: a record written meanwhile (a signal handler) finds no
 * buffer. */
void rt_rb_forget_one(struct rt_thread *t)
{
	struct utrace_rb_meta *m = t->meta;
	uint32_t busy = t->state & RT_TS_BUSY; /* rb_create's, for one */

	t->state = (t->state | RT_TS_BUSY) & ~RT_TS_READY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->meta = NULL;
	if (m)
		rt_syscall3(SYS_munmap, (long)m, (long)utrace_rb_bytes(m->nr_subbufs, t->sb_size),
			    0);
	t->sb = NULL;
	t->wp = t->end = NULL;
	t->written = t->lost = t->lost_pending = t->nested = 0;
	t->stuck = false;
	t->state = (t->state & ~(RT_TS_READY | RT_TS_DEAD | RT_TS_STALE | RT_TS_BUSY)) | busy;
	/* the child's own id and name, read again when first needed: a
	 * soft-enabled event's common_pid must not be the parent's */
	t->tid = 0;
	t->ftpid = 0; /* set_ftrace_pid's answer was the parent's */
	t->comm[0] = 0;
}

void rt_rb_forget(struct rt_thread *t)
{
	for (struct rt_thread *n = rt_ctx_next(t); n; n = rt_ctx_next(n))
		rt_rb_forget_one(n);
	rt_rb_forget_one(t);
	t->nest = t->reg_next = t->reg_prev = NULL; /* the parent's list */
	/* the threads that shared its TLS (clone) stayed in the parent */
	__atomic_fetch_and(&t->state, ~RT_TS_SHARED, __ATOMIC_SEQ_CST);
}

/* A fork child: the other threads of the list are the parent's.  No
 * pthread_mutex_init (a symbol the program may define): a store. */
void rt_rb_registry_forget(void)
{
	static const pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;

	rb_reg_lock = unlocked;
	rb_reg_head = NULL;
}

/*
 * The calling thread is making a thread that will run on its TLS
 * (clone() with CLONE_VM and without CLONE_SETTLS, init.c): from now on
 * the block is SHARED, so that neither thread takes the fast paths (they
 * need state == READY) and rt_nest lets only the owner, this thread,
 * through; the other is not traced and writes nothing here.  Costs the
 * owner a gettid per traced call; every other thread pays nothing.
 * Returns whether the block was shared already.
 */
bool rt_rb_share(void)
{
	struct rt_thread *t = &rt_self;
	bool was = t->state & RT_TS_SHARED;

	t->owner = (int32_t)rt_syscall3(SYS_gettid, 0, 0, 0);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_fetch_or(&t->state, RT_TS_SHARED, __ATOMIC_SEQ_CST);
	return was;
}

/* A CLONE_VFORK child has exec'd or exited: the block is the owner's alone
 * again (unless it was shared before). */
void rt_rb_unshare(bool was)
{
	if (!was)
		__atomic_fetch_and(&rt_self.state, ~RT_TS_SHARED, __ATOMIC_SEQ_CST);
}

/*
 * Detach (attach.c): the recording is over, but the threads live on with
 * their buffers.  Each context's buffer is closed for the recorder as a
 * thread's at exit (its counts, then CLOSED), and its mapping replaced by
 * anonymous memory of the same size, so the shared pages are freed here
 * and a thread that was still between its check of tracing_on and its
 * store writes harmlessly.  STALE makes its next record (of a later
 * attach) take a new buffer instead.  Called with every site unpatched
 * and tracing off for some milliseconds: the owners no longer write.
 */
static void rb_retire_one(struct rt_thread *t)
{
	struct utrace_rb_meta *m = t->meta;
	uint32_t nr;
	uint64_t size;

	if (!m || (t->state & RT_TS_STALE))
		return;
	nr = m->nr_subbufs;
	size = utrace_rb_bytes(nr, t->sb_size);
	__atomic_store_n(&m->written, t->written, __ATOMIC_RELAXED);
	__atomic_store_n(&m->lost, t->lost + t->nested, __ATOMIC_RELAXED);
	__atomic_store_n(&m->state, UTRACE_RB_CLOSED, __ATOMIC_RELEASE);
	__atomic_fetch_or(&t->state, RT_TS_STALE, __ATOMIC_SEQ_CST);
	if (mmap(m, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != MAP_FAILED)
		m->nr_subbufs = nr; /* what rt_rb_forget_one unmaps */
}

void rt_rb_retire_all(void)
{
	pthread_mutex_lock(&rb_reg_lock);
	for (struct rt_thread *t = rb_reg_head; t; t = t->reg_next) {
		rb_retire_one(t);
		for (unsigned i = 0; i < RT_NEST_MAX && t->nest[i].level; i++)
			rb_retire_one(&t->nest[i]);
	}
	pthread_mutex_unlock(&rb_reg_lock);
}
