/* SPDX-License-Identifier: MIT */
/*
 * fgraph.c - the function_graph tracer: hooking returns with a shadow stack.
 *
 * As in the kernel (ret_stack in task_struct), a traced function's entry
 * saves the real return address on a per-thread shadow stack and puts the
 * address of utrace_graph_return in its place on the program's stack
 * (utrace_graph_return_keepflags for a function patched at its entry,
 * which may return a condition in the flags; RT_FRAME_KEEPFLAGS says
 * which, for the frames hooked again after an unwind):
 *
 *   program stack                     shadow stack (rt_self.stack)
 *   +------------------------+        +------------------------------+
 *   | ... caller frame ...   |        | ret   = caller+0x1d          |
 *   | utrace_graph_return    | <------- slot  = &this word           |
 *   +------------------------+        | ts, id                       |
 *   | traced function frame  |        +------------------------------+
 *
 * When the function returns it lands in the return trampoline, which asks
 * utrace_graph_exit for the real address.  The frame to pop is found by
 * its slot: normally the top one; if frames above it were abandoned (a
 * longjmp we did not see, an exception), they are popped too and recorded
 * as ended by an unwind.  longjmp and C++ exceptions are also handled up
 * front in unwind.c, which must put the real return addresses back before
 * an unwinder walks the stack.
 *
 * Entry records the ENTRY word, exit the EXIT word: 8 bytes per call.
 * With tracing_thresh nothing is written at entry; a call that lasted at
 * least the threshold is written at its exit as one GRAPH_LEAF record.
 *
 * funcgraph-args: a site whose function has parameters (the tool sets
 * UTRACE_SITE_GRAPH_ARGS from DWARF, so other sites keep the fast path,
 * with the number of argument registers they use) writes its ENTRY and an
 * ARGS record with those registers as the trampoline saved them, in one
 * piece (the reader finds them together).  funcgraph-retval: every EXIT comes with a RETVAL record
 * holding rax, in one piece too (the fast path is off).  funcgraph-retaddr
 * (set by record when it samples call chains): every ENTRY with the
 * return address it hooks (UEXT_RETADDR), so the report puts the callers
 * back into the sampled chains, which hold the return trampoline instead
 * (the fast path is off).  None is written with tracing_thresh.
 *
 * A site marked UTRACE_SITE_ENTRY_ONLY belongs to a runtime that reads or
 * moves return addresses (Go, the JVM, V8): its return is left alone and
 * its entry written as the function tracer writes it (FUNC, parent ip),
 * which the report prints as a line of its own, at the depth it ran.
 *
 * set_ftrace_pid (trace_pid.c): a thread left out is not hooked at entry,
 * so it has no exit to write; a frame hooked before its thread was left
 * out returns as any other and writes its exit (the trace stays
 * balanced; the kernel's return handler does not look at the pid either).
 */
#include "common/record.h"
#include "runtime/rt.h"

static inline void fgraph_record_entry(struct rt_thread *t, uint32_t id, uint64_t ts, uint32_t cpu)
{
	if (likely(id <= UREC_SHORT_ID_MAX)) {
		uint32_t w = urec_entry(id, 0);

		rt_rb_put(t, &w, 1, RT_DPOS_SHORT, ts, cpu);
	} else {
		uint32_t w[3] = {urec_ext(UEXT_ENTRY_LONG, 0), id, 0};

		rt_rb_put(t, w, 3, RT_DPOS_WORD32(2), ts, cpu);
	}
}

/* ENTRY (short or long) + ARGS with the first nregs (0-6) argument
 * registers (none: regs NULL) + RETADDR with ret (none: 0), one record. */
static void fgraph_record_entry_args(struct rt_thread *t, uint32_t id, const uint64_t *regs,
				     unsigned nregs, uint64_t ret, uint64_t ts, uint32_t cpu)
{
	static const uint8_t order[6] = {RT_REG_RDI, RT_REG_RSI, RT_REG_RDX,
					 RT_REG_RCX, RT_REG_R8,	 RT_REG_R9};
	uint32_t w[3 + 1 + 12 + 3], n = 0, dpos;

	if (id <= UREC_SHORT_ID_MAX) {
		w[n++] = urec_entry(id, 0);
		dpos = RT_DPOS_SHORT;
	} else {
		w[n++] = urec_ext(UEXT_ENTRY_LONG, 0);
		w[n++] = id;
		w[n++] = 0;
		dpos = RT_DPOS_WORD32(2);
	}
	if (nregs > 6)
		nregs = 6;
	if (regs) {
		w[n++] = urec_ext(UEXT_ARGS, 2 * nregs);
		for (unsigned i = 0; i < nregs; i++) {
			w[n++] = (uint32_t)regs[order[i]];
			w[n++] = (uint32_t)(regs[order[i]] >> 32);
		}
	}
	if (ret) {
		w[n++] = urec_ext(UEXT_RETADDR, 0);
		w[n++] = (uint32_t)ret;
		w[n++] = (uint32_t)(ret >> 32);
	}
	rt_rb_put(t, w, n, dpos, ts, cpu);
}

static void fgraph_record_unwind(struct rt_thread *t, uint32_t n, uint64_t ts, uint32_t cpu)
{
	while (n) {
		uint32_t k = n > 0xffffff ? 0xffffff : n;
		uint32_t w[2] = {urec_ext(UEXT_EXIT_UNWIND, k), 0};

		rt_rb_put(t, w, 2, RT_DPOS_WORD32(1), ts, cpu);
		n -= k;
	}
}

static inline bool fgraph_may_record(struct rt_thread *t)
{
	return (t->state & ~(RT_TS_BUSY | RT_TS_UNWINDING | RT_TS_SHARED)) == RT_TS_READY &&
	       rt_tracing_on();
}

/* Bookkeeping for a frame leaving the shadow stack. */
static inline void fgraph_frame_gone(struct rt_thread *t, struct rt_frame *f)
{
	if (f->flags & RT_FRAME_ROOT)
		t->graph_roots--;
	if (f->flags & RT_FRAME_NOTRACE) {
		if (!--t->notrace_depth)
			t->state &= ~RT_TS_NOTRACE;
	}
}

/* Pop frames [new_depth, depth) that will never return normally.  The
 * record goes first: a sub-buffer it starts must see them still open. */
static void fgraph_pop_dead(struct rt_thread *t, uint32_t new_depth, uint64_t ts, uint32_t cpu)
{
	uint32_t n = 0;

	for (uint32_t d = new_depth; d < t->depth; d++)
		if (!(t->stack[d].flags & RT_FRAME_NOTRACE))
			n++;
	if (n && fgraph_may_record(t) && !rt.tsc_thresh)
		fgraph_record_unwind(t, n, ts, cpu);
	while (t->depth > new_depth)
		fgraph_frame_gone(t, &t->stack[--t->depth]);
}

/* Whether frame f, pushed after the one returning at slot, is dead: it
 * returned unhooked while an exception unwound, or it lay on the same
 * program stack below slot (a longjmp or unwind we did not see). */
static bool fgraph_dead_above(struct rt_thread *t, const struct rt_frame *f, const uint64_t *slot)
{
	return (f->flags & RT_FRAME_UNHOOKED) || rt_fstack_same(t, f->slot, slot);
}

/*
 * The frame at d - 1 returns at slot with frames [d, depth) above it.  The
 * dead ones are popped.  One that lies on another program stack is alive:
 * its stack was left by a switch we could not follow (an assembly one):
 * the thread is traced no more, and the live frames stay, for their
 * returns, with the returning one moved on top.  The new depth.
 */
static uint32_t fgraph_pop_above(struct rt_thread *t, uint32_t d, const uint64_t *slot,
				 uint64_t ts, uint32_t cpu)
{
	struct rt_frame mine;
	uint32_t i, w;

	for (i = d; i < t->depth && fgraph_dead_above(t, &t->stack[i], slot); i++)
		;
	if (i == t->depth) {
		fgraph_pop_dead(t, d, ts, cpu);
		return d;
	}
	rt_fstack_lost(t);
	mine = t->stack[d - 1];
	for (w = d - 1, i = d; i < t->depth; i++) {
		if (fgraph_dead_above(t, &t->stack[i], slot))
			fgraph_frame_gone(t, &t->stack[i]);
		else
			t->stack[w++] = t->stack[i];
	}
	t->stack[w++] = mine;
	t->depth = w;
	return w;
}

/*
 * The entry and exit handlers come in two halves.  The fast half handles
 * the common case (plain function_graph, record fits, top frame matches)
 * with no call at all, so the compiler need not save a single register;
 * anything else is a tail call into the slow half, which handles every
 * case in full.  BUSY is set around every change of the shadow stack or
 * the buffer: a signal handler that calls a traced function in between
 * sees it and is not traced (the kernel's recursion protection).
 */
#define fgraph_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The return trampoline a frame is hooked with: the one that keeps the
 * flags for a function patched at its entry (its entry came through
 * utrace_graph_tramp_keepflags), the plain one for a compiler site. */
static inline uint64_t fgraph_return(uint32_t frame_flags)
{
	return frame_flags & RT_FRAME_KEEPFLAGS ? (uint64_t)(uintptr_t)utrace_graph_return_keepflags
						: (uint64_t)(uintptr_t)utrace_graph_return;
}

/* keep: RT_FRAME_KEEPFLAGS or 0 */
static __attribute__((noinline)) void graph_entry_slow(struct rt_thread *t, uint64_t id,
						       uint64_t *slot, const uint64_t *regs,
						       uint32_t keep)
{
	struct rt_frame *f;
	uint32_t cpu, flags = keep;
	uint8_t sel;
	uint64_t ts;

	if (!(t = rt_ctx(t)))
		return; /* a signal handler, with every nested context busy */
	if (t->state != RT_TS_READY && !rt_rb_slow_ok(t))
		return;
	/* on another program stack than the shadow stack's: a coroutine
	 * switch nobody told us of (fgraph_stacks.c) */
	if (unlikely(rt_fstack_away(t, slot)))
		rt_fstack_entry_away(t, slot);
	if (!rt_tracing_on())
		return;
	/* An exception is unwinding and a landing pad (a destructor, a
	 * catch's cleanup) calls this function: the frames the unwinder has
	 * already removed are the ones whose return slot lies at or below
	 * ours (the callee of the landing pad's frame used the same slot).
	 * Only frames from before the throw can be dead (they were unhooked
	 * for the unwinder); a frame hooked since, with our slot, is a
	 * destructor that tail-called us and is very much alive. */
	if (t->state & RT_TS_UNWINDING) {
		uint32_t d = t->depth;

		while (d && (t->stack[d - 1].flags & RT_FRAME_UNHOOKED) &&
		       t->stack[d - 1].slot <= slot)
			d--;
		if (d != t->depth) {
			uint32_t c;
			uint64_t now;

			t->state |= RT_TS_BUSY;
			now = rt_clock(&c);
			fgraph_pop_dead(t, d, now, c);
			t->state &= ~RT_TS_BUSY;
		}
	}
	/* set_ftrace_pid: not hooked, so no exit either (trace_pid.c) */
	if (rt_ftpid_out(t))
		return;
	sel = rt.site_flags[id];
	if (rt.cfg.flags & UTRACE_CFG_GRAPH_FUNCS) {
		if (sel & UTRACE_SITE_GRAPH_ROOT)
			flags |= RT_FRAME_ROOT;
		else if (!t->graph_roots)
			return;
	}
	/* Go, the JVM, V8 read return addresses: never replace theirs */
	if (sel & UTRACE_SITE_ENTRY_ONLY) {
		if (!t->notrace_depth && !rt.tsc_thresh)
			utrace_func_entry(id, *slot, regs);
		return;
	}
	if (sel & UTRACE_SITE_GRAPH_NOTRACE)
		flags |= RT_FRAME_NOTRACE;
	if (t->depth >= t->stack_cap || (rt.cfg.max_depth && t->depth >= rt.cfg.max_depth))
		return;

	t->state |= RT_TS_BUSY;
	fgraph_signal_fence();
	ts = rt_clock(&cpu);
	/* Written before the push: a sub-buffer that starts with this record
	 * must say the depth (and CONTEXT) from before it. */
	if (!rt.tsc_thresh && !(flags & RT_FRAME_NOTRACE)) {
		uint64_t ret = rt.cfg.flags & UTRACE_CFG_GRAPH_RETADDR ? *slot : 0;

		if (sel & UTRACE_SITE_GRAPH_ARGS || ret)
			fgraph_record_entry_args(
			    t, (uint32_t)id, sel & UTRACE_SITE_GRAPH_ARGS ? regs : NULL,
			    (sel & UTRACE_SITE_GRAPH_NREGS_MASK) >> UTRACE_SITE_GRAPH_NREGS_SHIFT, ret,
			    ts, cpu);
		else
			fgraph_record_entry(t, (uint32_t)id, ts, cpu);
	}
	f = &t->stack[t->depth];
	f->ret = *slot;
	f->slot = slot;
	f->ts = ts;
	f->id = (uint32_t)id;
	f->flags = flags;
	t->depth++;
	if (flags & RT_FRAME_ROOT)
		t->graph_roots++;
	*slot = fgraph_return(flags);
	fgraph_signal_fence();
	t->state &= ~RT_TS_BUSY;
	if (flags & RT_FRAME_NOTRACE) {
		t->notrace_depth++;
		t->state |= RT_TS_NOTRACE;
	}
}

static inline __attribute__((always_inline)) void graph_entry(uint64_t id, uint64_t *slot,
							      const uint64_t *regs, uint32_t keep)
{
	struct rt_thread *t = &rt_self;
	uint32_t d = t->depth, cpu, *wp;
	struct rt_frame *f;
	uint64_t ts, delta;

	if (unlikely(t->state != RT_TS_READY || !rt.graph_fast ||
		     rt.site_flags[id] != UTRACE_SITE_TRACE || d >= t->stack_cap ||
		     id > UREC_SHORT_ID_MAX || !rt_tracing_on() || rt_ftpid_unsure(t) ||
		     rt_fstack_away(t, slot)))
		return graph_entry_slow(t, id, slot, regs, keep);
	t->state = RT_TS_READY | RT_TS_BUSY;
	fgraph_signal_fence();
	ts = rt_clock(&cpu);
	wp = t->wp;
	delta = ts - t->last_ts;
	if (unlikely(delta > UREC_SHORT_DELTA_MAX || wp >= t->end || cpu != t->cpu)) {
		t->state = RT_TS_READY;
		return graph_entry_slow(t, id, slot, regs, keep);
	}
	*wp = urec_entry((uint32_t)id, (uint32_t)delta);
	t->wp = wp + 1;
	t->last_ts = ts;
	t->written++;
	/* release: see rt_rb_put */
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)(wp + 1) - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
	f = &t->stack[d];
	f->ret = *slot;
	f->slot = slot;
	f->ts = ts;
	f->id = (uint32_t)id;
	f->flags = keep;
	t->depth = d + 1;
	*slot = fgraph_return(keep);
	fgraph_signal_fence();
	t->state = RT_TS_READY;
}

void utrace_graph_entry(uint64_t id, uint64_t *slot, const uint64_t *regs)
{
	graph_entry(id, slot, regs, 0);
}

void utrace_graph_entry_keepflags(uint64_t id, uint64_t *slot, const uint64_t *regs)
{
	graph_entry(id, slot, regs, RT_FRAME_KEEPFLAGS);
}

/*
 * Must always find the real return address, whatever the state of
 * tracing: a hooked frame returns here even after tracing stopped.
 */
/* A return while t is BUSY: a signal handler returning from a frame that
 * it entered in a nested context (rt_ctx), if that context holds the slot. */
static struct rt_thread *graph_exit_ctx(struct rt_thread *t, uint64_t *slot)
{
	struct rt_thread *n = t;

	while (n && (n->state & RT_TS_BUSY))
		n = rt_ctx_next(n);
	if (!n || n == t)
		return t;
	for (uint32_t d = n->depth; d-- > 0;)
		if (n->stack[d].slot == slot)
			return n;
	return t;
}

static __attribute__((noinline)) uint64_t graph_exit_slow(struct rt_thread *t, uint64_t *slot,
							  uint64_t rax)
{
	uint32_t busy, d, cpu;
	struct rt_frame *f;
	uint64_t ret, ts;

	if (unlikely(t->state & RT_TS_BUSY))
		t = graph_exit_ctx(t, slot);
	busy = t->state & RT_TS_BUSY;
	d = t->depth;

	t->state |= RT_TS_BUSY;
	fgraph_signal_fence();
	ts = rt_clock(&cpu);
	while (d && t->stack[d - 1].slot != slot)
		d--;
	/* the frame may be another program stack's: a coroutine switch
	 * nobody told us of (fgraph_stacks.c) */
	if (unlikely(!d) && !busy && rt_fstack_exit_away(t, slot))
		for (d = t->depth; d && t->stack[d - 1].slot != slot;)
			d--;
	if (unlikely(!d)) {
		/* No frame owns this slot: the shadow stack no longer matches
		 * the program's.  There is no right answer left; the newest
		 * frame is the best guess. */
		rt_disable("function_graph: return address not on the shadow stack");
		d = t->depth;
		if (!d) {
			rt_log("fatal: no return address to go back to");
			__builtin_trap();
		}
	}
	if (d != t->depth)
		d = fgraph_pop_above(t, d, slot, ts, cpu);

	/* The frame is popped after its exit is written, for the same
	 * reason as in utrace_graph_entry. */
	f = &t->stack[d - 1];
	ret = f->ret;
	if (!busy && !(f->flags & RT_FRAME_NOTRACE) && !t->notrace_depth && fgraph_may_record(t)) {
		if (!rt.tsc_thresh && (rt.cfg.flags & UTRACE_CFG_GRAPH_RETVAL)) {
			uint32_t w[4] = {urec_exit(0), urec_ext(UEXT_RETVAL, 0), (uint32_t)rax,
					 (uint32_t)(rax >> 32)};

			rt_rb_put(t, w, 4, RT_DPOS_EXIT, ts, cpu);
		} else if (!rt.tsc_thresh) {
			uint32_t w = urec_exit(0);

			rt_rb_put(t, &w, 1, RT_DPOS_EXIT, ts, cpu);
		} else if (ts - f->ts >= rt.tsc_thresh) {
			uint64_t dur = ts - f->ts;
			uint32_t w[5] = {urec_ext(UEXT_GRAPH_LEAF, 0), f->id, d - 1, (uint32_t)dur,
					 (uint32_t)(dur >> 32)};

			rt_rb_put(t, w, 5, RT_DPOS_EXT, ts, cpu);
		}
	}
	t->depth = d - 1;
	fgraph_frame_gone(t, f);
	fgraph_signal_fence();
	t->state &= ~RT_TS_BUSY;
	t->state |= busy;
	return ret;
}

uint64_t utrace_graph_exit(uint64_t *slot, uint64_t rax)
{
	struct rt_thread *t = &rt_self;
	uint32_t d = t->depth, cpu, *wp;
	struct rt_frame *f;
	uint64_t ts, delta, ret;

	if (unlikely(!d))
		return graph_exit_slow(t, slot, rax);
	f = &t->stack[d - 1];
	if (unlikely(f->slot != slot || (f->flags & ~(uint32_t)RT_FRAME_KEEPFLAGS) ||
		     t->state != RT_TS_READY || !rt.graph_fast || !rt_tracing_on()))
		return graph_exit_slow(t, slot, rax);
	t->state = RT_TS_READY | RT_TS_BUSY;
	fgraph_signal_fence();
	ts = rt_clock(&cpu);
	wp = t->wp;
	delta = ts - t->last_ts;
	if (unlikely(delta > UREC_EXIT_DELTA_MAX || wp >= t->end || cpu != t->cpu)) {
		t->state = RT_TS_READY;
		return graph_exit_slow(t, slot, rax);
	}
	*wp = urec_exit((uint32_t)delta);
	t->wp = wp + 1;
	t->last_ts = ts;
	t->written++;
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)(wp + 1) - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
	ret = f->ret;
	t->depth = d - 1;
	fgraph_signal_fence();
	t->state = RT_TS_READY;
	return ret;
}

/* ---- helpers for unwind.c ------------------------------------------ */

/* Frames whose slot lies below sp belong to stack memory that a longjmp
 * or an exception has just abandoned. */
static void fgraph_unwind_one(struct rt_thread *t, uint64_t sp)
{
	uint32_t d = t->depth, cpu;
	uint64_t ts;

	if (!t->stack)
		return;
	while (d && (uint64_t)(uintptr_t)t->stack[d - 1].slot < sp)
		d--;
	if (d == t->depth)
		return;
	t->state |= RT_TS_BUSY;
	ts = rt_clock(&cpu);
	fgraph_pop_dead(t, d, ts, cpu);
	t->state &= ~RT_TS_BUSY;
}

/*
 * Put every real return address back, so that an unwinder walking the
 * stack sees the program's own frames.  Innermost first: the frames of a
 * tail call share one slot (the callee's entry found the caller's hook
 * there and saved it as its "real" return address), and only the
 * outermost of them holds the address the slot must end with.
 *
 *   slot S: catcher+0x1d --hooked by tailcaller--> graph_return
 *   frames: [tailcaller: ret catcher+0x1d, S] [thrower: ret graph_return, S]
 *   unhook thrower (S = graph_return), then tailcaller (S = catcher+0x1d)
 */
static void fgraph_unhook_one(struct rt_thread *t)
{
	for (uint32_t i = t->depth; i-- > 0;) {
		struct rt_frame *f = &t->stack[i];

		if (!(f->flags & RT_FRAME_UNHOOKED)) {
			*f->slot = f->ret;
			f->flags |= RT_FRAME_UNHOOKED;
		}
	}
}

/* After a catch at stack pointer sp: frames below sp are gone, the others
 * get their hook back. */
static void fgraph_rehook_one(struct rt_thread *t, uint64_t sp)
{
	fgraph_unwind_one(t, sp);
	for (uint32_t i = 0; i < t->depth; i++) {
		struct rt_frame *f = &t->stack[i];

		if (f->flags & RT_FRAME_UNHOOKED) {
			*f->slot = fgraph_return(f->flags);
			f->flags &= ~RT_FRAME_UNHOOKED;
		}
	}
}

/*
 * The same for every context of the thread: the frames a signal handler
 * entered in a nested context (rt_ctx) lie on the program's stack above
 * those of the context it interrupted, so an unwinder meets them first.
 * Innermost context first, for the reason above.
 */
static unsigned fgraph_contexts(struct rt_thread *t, struct rt_thread **ctx)
{
	unsigned n = 0;

	for (; t; t = rt_ctx_next(t))
		ctx[n++] = t;
	return n;
}

void rt_fgraph_unhook_all(struct rt_thread *t)
{
	struct rt_thread *ctx[RT_NEST_MAX + 1];

	for (unsigned i = fgraph_contexts(t, ctx); i-- > 0;)
		fgraph_unhook_one(ctx[i]);
}

void rt_fgraph_rehook_above(struct rt_thread *t, uint64_t sp)
{
	struct rt_thread *ctx[RT_NEST_MAX + 1];

	for (unsigned i = fgraph_contexts(t, ctx); i-- > 0;)
		fgraph_rehook_one(ctx[i], sp);
}

void rt_fgraph_unwind_to(struct rt_thread *t, uint64_t sp)
{
	struct rt_thread *ctx[RT_NEST_MAX + 1];

	for (unsigned i = fgraph_contexts(t, ctx); i-- > 0;)
		fgraph_unwind_one(ctx[i], sp);
}

/* Frames on the shadow stacks of all the thread's contexts. */
uint32_t rt_fgraph_depth(struct rt_thread *t)
{
	uint32_t d = 0;

	if (rt_tls_foreign(t)) /* none are the caller's: its unwinding leaves them alone */
		return 0;
	for (; t; t = rt_ctx_next(t))
		d += t->depth;
	return d;
}
