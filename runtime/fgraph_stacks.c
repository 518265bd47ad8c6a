/* SPDX-License-Identifier: MIT */
/*
 * fgraph_stacks.c - one function_graph shadow stack per program stack.
 *
 * The kernel keeps one return stack per task.  A coroutine (makecontext +
 * swapcontext, or a hand-written stack switch) is a task of its own inside
 * a thread: its frames stay open while other coroutines run on the same
 * thread, so one shadow stack per thread would interleave them, and the
 * first return out of order would pop the others' frames as dead (and
 * their returns would then find no real return address).  So each program
 * stack gets its own shadow stack:
 *
 *   - the thread's own stack (fs_own, per thread: its bounds are the
 *     mapping that holds it, read from /proc/self/maps when first needed);
 *   - each stack given to makecontext (a region, process-wide: a coroutine
 *     may be resumed by another thread), with the bounds of its uc_stack.
 *
 * rt_self.stack/depth/stack_cap/graph_roots/notrace_depth are the loaded
 * shadow stack: the fast paths of fgraph.c are unchanged.  A switch saves
 * them into the descriptor of the stack being left and loads those of the
 * stack entered.  ucontext.c switches before swapcontext and setcontext;
 * a switch nobody told us of (an assembly switch into a makecontext stack,
 * the return of a coroutine's function to its uc_link, made inside libc)
 * is found by fgraph.c: an entry whose return slot lies outside the
 * loaded stack's bounds (t->stk_lo, t->stk_nspan: one compare in the
 * fast path), or a return whose slot is on no frame of the loaded stack.
 *
 * The reader pairs each EXIT with the innermost open ENTRY of the
 * thread's buffer, so every switch is written as a SWITCH record (the
 * keys of both stacks, and the frames open on the one entered, for a
 * reader that starts after the stack's own entries): the reader keeps one
 * call stack per key (lib/tracefile/dat_decode.c).
 *
 * A stack that is neither (a sigaltstack handler, an assembly switch to a
 * stack of its own) keeps the loaded shadow stack: its frames return
 * before the ones below them (a signal handler) or fgraph.c finds them out
 * of order and, unable to follow, stops tracing the thread
 * (rt_fstack_lost): the frames hooked so far still return through their
 * real addresses.
 *
 * Return probes (inproc_probes.c) keep their frames the same way, whatever the
 * tracer: a region holds its stack's return-probe frames too, so regions
 * are registered without a shadow stack when function_graph cannot run.
 *
 * Regions are added by makecontext under a lock and never removed (a
 * makecontext on the same stack starts its shadow stack afresh: the frames
 * of a coroutine that was never resumed are dropped, not inherited); the
 * tracing path reads them without the lock (release/acquire on the
 * count).  Finding a region is a walk over all of them: a program with
 * thousands of coroutines pays for it at each switch.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "common/record.h"
#include "runtime/rt.h"

struct fs_stack {
	uint64_t lo, hi; /* the program stack it is for: [lo, hi); hi 0: not known yet */
	struct rt_frame *frames;
	uint32_t depth, cap, roots, notrace;
	uint32_t key; /* the reader's name for it: 0 the thread's own stack */
	/* a makecontext stack's return-probe frames (inproc_probes.c), kept with
	 * the stack, not the thread: a coroutine may return on another one */
	void *ipp_rets;
	uint32_t ipp_depth;
};

#define FS_MAX_REGIONS (1u << 16)
#define FS_CHUNK (64ull << 20) /* frames are carved from NORESERVE chunks this big */
#define FS_IDS_MAX 64	       /* frames named in a SWITCH record, as in CONTEXT */

static struct fs_stack *fs_regions; /* FS_MAX_REGIONS, mapped at the first makecontext */
static uint32_t fs_nr;		    /* published with release: entries below it are whole */
static uint32_t fs_next_key = 1;
static int fs_lock_word;
static uint8_t *fs_chunk;
static uint64_t fs_chunk_left;

static __thread struct fs_stack fs_own;	 /* the thread's own stack, while not loaded */
static __thread struct fs_stack *fs_cur; /* the one loaded; NULL: fs_own */

static void fs_lock(void)
{
	while (__atomic_exchange_n(&fs_lock_word, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void fs_unlock(void)
{
	__atomic_store_n(&fs_lock_word, 0, __ATOMIC_RELEASE);
}

static struct fs_stack *fs_loaded(void)
{
	return fs_cur ? fs_cur : &fs_own;
}

/* ---- the thread's own stack: its mapping ---------------------------- */

/* One line of /proc/self/maps: whether it holds sp (0: whether it is the
 * main thread's stack); [lo, hi) then. */
static bool fs_maps_line(const char *l, const char *end, uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	uint64_t a = rt_parse_hex(&l), b;
	bool stack = end - l >= 7 && !__builtin_memcmp(end - 7, "[stack]", 7);

	if (*l++ != '-')
		return false;
	b = rt_parse_hex(&l);
	if (sp ? sp < a || sp >= b : !stack)
		return false;
	*lo = a;
	*hi = b;
	/* the main thread's stack grows down to its rlimit */
	if (stack) {
		struct rlimit r;

		if (!rt_syscall3(SYS_getrlimit, RLIMIT_STACK, (long)&r, 0) && r.rlim_cur < b - 4096)
			*lo = b - r.rlim_cur < a ? b - r.rlim_cur : a;
		else
			*lo = 4096;
	}
	return true;
}

/* The mapping that holds sp, read without allocating (raw system calls,
 * a buffer on the stack): 0 when it cannot be read. */
static int fs_mapping_of(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	char buf[2048];
	size_t have = 0;
	int fd = (int)rt_syscall3(SYS_open, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC, 0),
	    found = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		long n = rt_syscall3(SYS_read, fd, (long)(buf + have), (long)(sizeof(buf) - have));
		char *l = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = __builtin_memchr(l, '\n', (size_t)(buf + have - l)))) {
			if (fs_maps_line(l, nl, sp, lo, hi)) {
				found = 1;
				goto out;
			}
			l = nl + 1;
		}
		have = (size_t)(buf + have - l);
		__builtin_memmove(buf, l, have);
		if (have == sizeof(buf))
			have = 0; /* a line longer than the buffer: not one we need */
	}
out:
	rt_syscall3(SYS_close, fd, 0, 0);
	return found;
}

/*
 * The bounds of the thread's own stack, found once: the main thread's is
 * the [stack] mapping, another thread's the mapping that holds its thread
 * descriptor (glibc puts it at the top of the thread's stack, a stack the
 * program gave pthread_create included).
 */
static void fs_own_bounds(void)
{
	uint64_t self;

	if (fs_own.hi)
		return;
	__asm__("movq %%fs:0x10, %0" : "=r"(self));
	if (rt_syscall3(SYS_gettid, 0, 0, 0) == rt_syscall3(SYS_getpid, 0, 0, 0))
		self = 0; /* fs_maps_line: the line named [stack] */
	if (!fs_mapping_of(self, &fs_own.lo, &fs_own.hi)) {
		fs_own.lo = 0; /* unknown: the whole address space */
		fs_own.hi = UINT64_MAX;
	}
}

void rt_fstack_own(uint64_t *lo, uint64_t *hi)
{
	fs_own_bounds();
	*lo = fs_own.lo;
	*hi = fs_own.hi;
}

/* ---- loading and saving --------------------------------------------- */

static void fs_save(const struct rt_thread *t, struct fs_stack *s)
{
	s->frames = t->stack;
	s->depth = t->depth;
	s->cap = t->stack_cap;
	s->roots = t->graph_roots;
	s->notrace = t->notrace_depth;
}

static void fs_load(struct rt_thread *t, struct fs_stack *s)
{
	t->stack = s->frames;
	t->depth = s->depth;
	t->stack_cap = s->cap;
	t->graph_roots = s->roots;
	t->notrace_depth = s->notrace;
	if (s->notrace)
		t->state |= RT_TS_NOTRACE;
	else
		t->state &= ~RT_TS_NOTRACE;
	t->stack_key = s->key;
	t->stk_lo = s->lo;
	t->stk_nspan = s->hi > s->lo ? ~(s->hi - s->lo) : 0;
	fs_cur = s == &fs_own ? NULL : s;
}

/* Frames for a region's shadow stack: address space only, from a chunk. */
static struct rt_frame *fs_frames(uint32_t cap)
{
	uint64_t bytes = ((uint64_t)cap * sizeof(struct rt_frame) + 4095) & ~4095ull;
	struct rt_frame *f;

	if (bytes > fs_chunk_left) {
		void *c = mmap(NULL, FS_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (c == MAP_FAILED)
			return NULL;
		fs_chunk = c;
		fs_chunk_left = FS_CHUNK;
	}
	f = (struct rt_frame *)fs_chunk;
	fs_chunk += bytes;
	fs_chunk_left -= bytes;
	return f;
}

/* The region that holds addr, NULL if none. */
static struct fs_stack *fs_region_of(uint64_t addr)
{
	uint32_t n = __atomic_load_n(&fs_nr, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++)
		if (addr - fs_regions[i].lo < fs_regions[i].hi - fs_regions[i].lo)
			return &fs_regions[i];
	return NULL;
}

/* The frames a region's shadow stack needs: none unless function_graph
 * can be the tracer (as ring_buffer.c maps a thread's). */
static uint32_t fs_cap(uint64_t size)
{
	uint32_t cap = size / 8 < RT_STACK_FRAMES ? (uint32_t)(size / 8) : RT_STACK_FRAMES;

	if (!rt_self.stack && rt.cfg.tracer != UTRACE_TRACER_FUNCTION_GRAPH &&
	    !(rt.cfg.flags & UTRACE_CFG_LIVE))
		return 0;
	return cap < 256 ? 256 : cap; /* every frame needs 8 bytes of stack, but a tail call none */
}

/*
 * makecontext(ucp, ...) with the stack [lo, hi): that stack's shadow
 * stack and return-probe frames start empty.  A region over the same
 * memory is reused (its frames belonged to a coroutine that will never
 * run again); one that overlaps it in part is retired.  Registered
 * whatever the tracer: return probes keep their frames by region.
 */
void rt_fstack_register(uint64_t lo, uint64_t hi)
{
	uint32_t cap = fs_cap(hi - lo);
	struct fs_stack *s = NULL;
	int saved_errno = errno;

	if (hi <= lo)
		return;
	if (!fs_cur)
		fs_own_bounds();
	fs_lock();
	if (!fs_regions) {
		void *m = mmap(NULL, FS_MAX_REGIONS * sizeof(*fs_regions), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		fs_regions = m == MAP_FAILED ? NULL : m;
	}
	for (uint32_t i = 0; fs_regions && i < fs_nr; i++) {
		struct fs_stack *r = &fs_regions[i];

		if (r->lo == lo && r->hi == hi && r->cap >= cap)
			s = r;
		else if (r->lo < hi && lo < r->hi) /* retired: emptied in one store */
			__atomic_store_n(&r->hi, r->lo, __ATOMIC_RELAXED);
	}
	if (!s && fs_regions && fs_nr < FS_MAX_REGIONS) {
		struct rt_frame *f = cap ? fs_frames(cap) : NULL;

		if (f || !cap) {
			s = &fs_regions[fs_nr];
			s->frames = f;
			s->cap = cap;
			s->lo = lo;
			s->hi = hi;
			s->ipp_rets = NULL;
			__atomic_store_n(&fs_nr, fs_nr + 1, __ATOMIC_RELEASE);
		}
	}
	if (s && s != fs_cur) { /* (the loaded one: makecontext on the running stack) */
		s->depth = s->roots = s->notrace = s->ipp_depth = 0;
		if (!++fs_next_key)
			fs_next_key = 1;
		s->key = fs_next_key;
	}
	fs_unlock();
	errno = saved_errno;
}

/* ---- switching ------------------------------------------------------ */

/* The SWITCH record: written while the stack left is still loaded (a
 * sub-buffer it starts describes that one), naming the frames of to. */
static void fs_record_switch(struct rt_thread *t, const struct fs_stack *to)
{
	uint32_t w[5 + FS_IDS_MAX], n = 0, depth, cpu;
	uint64_t ts;

	if (rt.tsc_thresh || (t->state & ~(RT_TS_BUSY | RT_TS_UNWINDING)) != RT_TS_READY ||
	    !rt_tracing_on())
		return;
	depth = to->depth - to->notrace;
	for (uint32_t i = to->depth; i-- > 0 && n < FS_IDS_MAX;)
		if (!(to->frames[i].flags & RT_FRAME_NOTRACE))
			n++;
	w[0] = urec_ext(UEXT_SWITCH, n);
	w[1] = 0;
	w[2] = t->stack_key;
	w[3] = to->key;
	w[4] = depth;
	/* the innermost n recorded frames, outermost first */
	for (uint32_t i = to->depth, k = n; i-- > 0 && k;)
		if (!(to->frames[i].flags & RT_FRAME_NOTRACE))
			w[5 + --k] = to->frames[i].id;
	ts = rt_clock(&cpu);
	rt_rb_put(t, w, 5 + n, RT_DPOS_WORD32(1), ts, cpu);
}

/* BUSY around it: a signal handler meanwhile gets a nested context. */
static void fs_switch(struct rt_thread *t, struct fs_stack *to)
{
	struct fs_stack *from = fs_loaded();
	uint32_t busy = t->state & RT_TS_BUSY;

	if (to == from || !to->frames)
		return; /* (none: a region made before function_graph could trace) */
	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fs_record_switch(t, to);
	fs_save(t, from);
	fs_load(t, to);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state = (t->state & ~RT_TS_BUSY) | busy;
}

/* The shadow stack for the program stack that holds sp: a region, the
 * thread's own, or NULL (neither: keep the loaded one). */
static struct fs_stack *fs_stack_of(uint64_t sp)
{
	struct fs_stack *r = fs_region_of(sp);

	if (r)
		return r;
	return sp - fs_own.lo < fs_own.hi - fs_own.lo ? &fs_own : NULL;
}

/* Only the thread's own context (not a signal handler's nested one), with
 * a shadow stack.  Also once the thread is no longer traced: its hooked
 * frames must still be found.  (The caller knows that nobody is in the
 * middle of changing it.) */
static bool fs_usable(const struct rt_thread *t)
{
	return t == &rt_self && t->stack;
}

/*
 * ucontext.c: the thread is about to run on the stack that holds sp.
 * Returns false when that is the stack it is on (a setcontext back into a
 * frame of its own: frames below sp die, as with longjmp).
 */
bool rt_fstack_switch_to(struct rt_thread *t, uint64_t sp)
{
	struct fs_stack *to;

	if (!fs_usable(t) || (t->state & RT_TS_BUSY))
		return false;
	if (!fs_cur && !__atomic_load_n(&fs_nr, __ATOMIC_ACQUIRE))
		return false; /* no coroutine stack was ever made */
	fs_own_bounds();
	to = fs_stack_of(sp);
	if (!to || to == fs_loaded())
		return false;
	fs_switch(t, to);
	return true;
}

/* fgraph.c: an entry whose slot lies outside the loaded stack's bounds. */
void rt_fstack_entry_away(struct rt_thread *t, uint64_t *slot)
{
	struct fs_stack *to;

	if (!fs_usable(t) || (!fs_own.hi && !fs_cur))
		return; /* (bounds never set: nothing was ever switched) */
	to = fs_stack_of((uint64_t)(uintptr_t)slot);
	if (to)
		fs_switch(t, to);
}

static bool fs_holds(const struct fs_stack *s, const uint64_t *slot)
{
	for (uint32_t d = s->depth; d-- > 0;)
		if (s->frames[d].slot == slot)
			return true;
	return false;
}

/* fgraph.c: no frame of the loaded shadow stack holds slot; whether
 * another stack's did (it is loaded now). */
bool rt_fstack_exit_away(struct rt_thread *t, uint64_t *slot)
{
	struct fs_stack *s = fs_stack_of((uint64_t)(uintptr_t)slot);
	uint32_t n;

	if (!fs_usable(t))
		return false;
	if (s && s != fs_loaded() && s->frames && fs_holds(s, slot)) {
		fs_switch(t, s);
		return true;
	}
	if (fs_cur && fs_own.frames && fs_holds(&fs_own, slot)) {
		fs_switch(t, &fs_own);
		return true;
	}
	n = __atomic_load_n(&fs_nr, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (&fs_regions[i] != fs_cur && fs_regions[i].frames &&
		    fs_holds(&fs_regions[i], slot)) {
			fs_switch(t, &fs_regions[i]);
			return true;
		}
	return false;
}

/*
 * fgraph.c: whether the frame at slot a, pushed after the one returning
 * at slot, lies on the same program stack (then it is dead: the return
 * passed it by) rather than on another one that a switch we did not see
 * left it on.  Pushed later on the same stack means below it.
 */
bool rt_fstack_same(struct rt_thread *t, const uint64_t *a, const uint64_t *slot)
{
	uint64_t x = (uint64_t)(uintptr_t)a, s = (uint64_t)(uintptr_t)slot;
	struct fs_stack *r;

	if (t != &rt_self)
		return true;
	if (x > s)
		return false;
	struct fs_stack *rx = fs_region_of(x);
	uint64_t lo, hi;
	bool in_s, in_x;

	if ((r = fs_region_of(s)) || rx)
		return r == rx;
	fs_own_bounds();
	in_s = s - fs_own.lo < fs_own.hi - fs_own.lo;
	in_x = x - fs_own.lo < fs_own.hi - fs_own.lo;
	if (in_s || in_x)
		return in_s == in_x;
	/* two stacks nobody told us of: the same one if in the same mapping */
	if (fs_mapping_of(s, &lo, &hi))
		return x >= lo && x < hi;
	return true;
}

/* inproc_probes.c: whether rt_fstack_same(t, a, slot) knows its answer: one of
 * them lies on a stack utrace was told of (a makecontext stack, the
 * thread's own), not on two that only their mapping tells apart. */
bool rt_fstack_known(const uint64_t *a, const uint64_t *slot)
{
	uint64_t x = (uint64_t)(uintptr_t)a, s = (uint64_t)(uintptr_t)slot;

	if (fs_region_of(x) || fs_region_of(s))
		return true;
	fs_own_bounds();
	return x - fs_own.lo < fs_own.hi - fs_own.lo || s - fs_own.lo < fs_own.hi - fs_own.lo;
}

/* inproc_probes.c: the return-probe frames of the makecontext stack that holds
 * addr (where its array's address goes, and its depth); NULL when addr is
 * on no such stack. */
void **rt_fstack_kp(uint64_t addr, uint32_t **depth)
{
	struct fs_stack *r = fs_region_of(addr);

	if (!r)
		return NULL;
	*depth = &r->ipp_depth;
	return &r->ipp_rets;
}

/* A switch that cannot be followed: the thread is no longer traced. */
void rt_fstack_lost(struct rt_thread *t)
{
	if (t->state & RT_TS_LOST_STACK)
		return;
	t->state |= RT_TS_LOST_STACK;
	rt_log("function_graph: a thread switched stacks in a way utrace cannot follow "
	       "(not by swapcontext or setcontext); it is not traced from here on");
}
