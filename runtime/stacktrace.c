/* SPDX-License-Identifier: MIT */
/*
 * stacktrace.c - the `stacktrace` trigger: the user stack of the event,
 * written as one UEXT_STACK record (common/record.h) right after the
 * event's own, which the report prints as the kernel's `<stack trace>`
 * block (lib/report/report_stack.c).
 *
 * Where the stack comes from, as the kernel unwinds through its
 * function_graph return stack:
 *
 *  - function_graph with open frames: the shadow stack (fgraph.c) names
 *    every traced function the thread is in, innermost first, exactly
 *    (each frame's id gives its call site, the function's start) and
 *    needs no frame pointers, so it works at -O2.  Frames of functions
 *    that are not traced are not on it.
 *  - otherwise frame pointers: the chain of saved %rbp from this
 *    function's frame up.  The first frames are the runtime's and the
 *    generated __utrace_do_<event>'s; the record that function built is
 *    on its stack, so the frames below the record are skipped and the
 *    first return address kept is the one into the function that fired
 *    the event.  A return address that is a graph return trampoline (a
 *    hooked frame: rt_is_graph_return) is replaced by the real one from
 *    the shadow stack frame whose slot holds it.
 *  - or the stack the event's source knows better (rt_stack_given):
 *    an in-process probe's, walked from the hit's registers as the
 *    kernel walks a uprobe's (rt_stack_regs: the probed address, then
 *    at a function's push %rbp or endbr64 the return address at %rsp,
 *    as Linux 6.11+ adds it for bpftrace's ustack, then the %rbp chain;
 *    a probe elsewhere before the frame is made skips its caller, as
 *    the kernel's walk does);
 *    a sanitizer's report prints the stack of the bug, read from its
 *    text (sanitizer.c), where frame pointers would lead through the
 *    sanitizer runtime's own frames, which may have none.
 *
 * The walk must never fault, whatever the program's frames hold (code
 * built without frame pointers leaves anything in %rbp): each frame must
 * lie above the previous one, within RT_STACK_SPAN of the current stack
 * pointer (the thread's stack, which no frame leaves), 8-byte aligned, and
 * is read with process_vm_readv() on our own pid (rt_self_read), which
 * returns EFAULT for an unmapped address instead of faulting; at most
 * UREC_STACK_MAX frames.  Signal-safe, no allocation, errno kept.
 */
#include <errno.h>
#include <unistd.h>

#include "common/record.h"
#include "runtime/rt.h"

#define RT_STACK_SPAN (64ull << 20) /* no thread's frames are further apart */

/* Reads the frame record {saved rbp, return address} at fp, or fails. */
static bool read_frame(pid_t pid, uint64_t fp, uint64_t out[2])
{
	return rt_self_read(pid, fp, out, 16);
}

/* The real return address of a hooked frame whose slot is at slot. */
static uint64_t unhooked(const struct rt_thread *t, uint64_t slot, uint64_t ret)
{
	if (!rt_is_graph_return(ret) || !t->stack)
		return ret;
	for (uint32_t i = t->depth; i-- > 0;)
		if ((uint64_t)(uintptr_t)t->stack[i].slot == slot)
			return t->stack[i].ret;
	return ret;
}

static unsigned walk_fp(const struct rt_thread *t, const void *rec, uint64_t *pc, unsigned max)
{
	uint64_t fp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t lo = fp, f[2];
	pid_t pid = getpid(); /* ours now: a child forked by a raw clone too */
	unsigned n = 0;

	while (n < max && !(fp & 7) && fp >= lo && fp - lo < RT_STACK_SPAN &&
	       read_frame(pid, fp, f)) {
		if (fp > (uint64_t)(uintptr_t)rec && f[1])
			pc[n++] = unhooked(t, fp + 8, f[1]);
		if (f[0] <= fp)
			break; /* the outermost frame (0), or not a frame chain */
		fp = f[0];
	}
	return n;
}

unsigned rt_stack_regs(const struct rt_thread *t, uint64_t ip, uint64_t bp, uint64_t sp,
		       bool at_entry, uint64_t *pc, uint64_t *slots, unsigned max)
{
	int saved = errno;
	pid_t pid = getpid();
	uint64_t fp = bp, f[2];
	unsigned n = 0;

	if (max) {
		slots[n] = 0;
		pc[n++] = ip;
	}
	/* (read_frame's 16 bytes: the return address and the word above it) */
	if (at_entry && n < max && !(sp & 7) && read_frame(pid, sp, f)) {
		slots[n] = sp;
		pc[n++] = unhooked(t, sp, f[0]);
	}
	while (n < max && !(fp & 7) && fp >= sp && fp - sp < RT_STACK_SPAN &&
	       read_frame(pid, fp, f)) {
		slots[n] = fp + 8;
		pc[n++] = unhooked(t, fp + 8, f[1]);
		if (f[0] <= fp)
			break; /* the outermost frame (0), or not a frame chain */
		fp = f[0];
	}
	errno = saved;
	return n;
}

/* The call site (function start) of function id, 0 if unknown. */
uint64_t rt_stack_site(uint32_t id)
{
	for (const struct rt_object *o = rt.objects; o; o = o->next)
		if (id >= o->id_base && id - o->id_base < o->nr_sites)
			return o->sites ? o->sites[id - o->id_base] : 0;
	return 0;
}

static unsigned walk_shadow(const struct rt_thread *t, uint64_t *pc, unsigned max)
{
	unsigned n = 0;

	for (uint32_t i = t->depth; i-- > 0 && n < max;) {
		uint64_t a = rt_stack_site(t->stack[i].id);

		if (a)
			pc[n++] = a;
	}
	return n;
}

/* The stack the source of this thread's event gave (rt_stack_given). */
static __thread const uint64_t *given_pc;
static __thread unsigned given_n;

void rt_stack_given(const uint64_t *pc, unsigned n)
{
	given_pc = pc;
	given_n = pc ? n : 0;
}

unsigned rt_stack_capture(const struct rt_thread *t, const void *rec, uint64_t *pc, unsigned max,
			  bool *ret_addrs)
{
	int saved = errno;
	unsigned n;

	if (max > UREC_STACK_MAX)
		max = UREC_STACK_MAX;
	*ret_addrs = !(rt.cfg.tracer == UTRACE_TRACER_FUNCTION_GRAPH && t->stack && t->depth);
	if (*ret_addrs && given_n) {
		/* the source's own stack: code addresses, not return ones */
		for (n = 0; n < given_n && n < max; n++)
			pc[n] = given_pc[n];
		*ret_addrs = false;
	} else {
		n = *ret_addrs ? walk_fp(t, rec, pc, max) : walk_shadow(t, pc, max);
	}
	errno = saved;
	return n;
}

/*
 * The stack of the event whose record rec is, into the buffer of context
 * t (the one the event's record went to), unless tracing is off; post
 * says whose stacktrace triggers asked (rt_trig_commands): its readers
 * go into the record's flags (none: the top level's alone).
 */
void rt_stacktrace_write(struct rt_thread *t, const void *rec, uint32_t post)
{
	uint64_t pc[UREC_STACK_MAX];
	uint32_t cpu, delta, flags, *wp;
	bool ret_addrs;
	unsigned n;
	uint64_t ts;

	if (!t || !rt_tracing_on())
		return;
	n = rt_stack_capture(t, rec, pc, UREC_STACK_MAX, &ret_addrs);
	flags = ret_addrs ? UREC_STACK_RET : 0;
	if (post >> RT_POST_READERS) /* an instance's: say whose, the top level's too */
		flags |= (post >> RT_POST_READERS |
			  !!(post & 1u << UTRACE_TC_STACKTRACE)) << UREC_STACK_READERS_SHIFT;
	t->state |= RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts = rt_clock(&cpu);
	wp = rt_rb_reserve(t, 3 + 2 * n, 32, ts, cpu, &delta);
	if (wp) {
		wp[0] = urec_ext(UEXT_STACK, 2 * n);
		wp[1] = delta;
		wp[2] = n | flags << 16;
		for (unsigned i = 0; i < n; i++) {
			wp[3 + 2 * i] = (uint32_t)pc[i];
			wp[4 + 2 * i] = (uint32_t)(pc[i] >> 32);
		}
		rt_rb_commit(t, wp + 3 + 2 * n);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state &= ~RT_TS_BUSY;
}
