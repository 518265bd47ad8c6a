/* SPDX-License-Identifier: MIT */
/*
 * stack_tracer.c - the stack tracer: the deepest stack any traced thread
 * had at the entry of a function, and the frames it had then, as the
 * kernel's (kernel/trace/trace_stack.c) keeps the deepest kernel stack.
 *
 * The kernel's registers an ftrace_ops of its own, so its functions
 * (stack_trace_filter) are patched whatever the current tracer.  Here,
 * while the stack tracer is on (utrace_control.stack.enabled, set by the
 * tracefs's utrace.stack_tracer_enabled, the kernel's
 * /proc/sys/kernel/stack_tracer_enabled), every object's stubs jump to
 * utrace_stack_tramp (trampoline.S) instead of the tracer's trampoline,
 * and the sites stack_trace_filter selects (rt.stack_sites, the
 * recorder's SELECTs of kind UTRACE_SELECT_STACK) are patched as well as
 * the tracer's (rt_site_patched).  Its handler does what the kernel's two
 * ops do at one site:
 *
 *   - at a site stack_trace_filter selects, the stack check: the size of
 *     the stack at the function's entry, from the thread's stack top (the
 *     end of the mapping that holds it, fgraph_stacks.c) down to the slot
 *     of the function's own return address (entry 0 below, as the
 *     kernel's first frame is the traced function's, found at its mcount
 *     call), compared with stack_max_size: one compare when it is not a
 *     new maximum;
 *   - at a site the tracer traces, the tracer's handler, as its own
 *     trampoline would have called it (function: the caller's return
 *     address; function_graph: its slot).  Sites only the stack tracer
 *     wants write nothing, as the kernel's function_graph does not record
 *     the functions only the stack tracer's ops has.
 *
 * With the stack tracer off nothing of this runs: the stubs jump to the
 * tracer's trampoline, whose path is unchanged.
 *
 * A new maximum (the slow half, signal-safe, no allocation, errno kept):
 * a thread's second stack check while the first runs (a signal handler)
 * does nothing (st_busy: the kernel's per-cpu disable_stack_tracer); the
 * check takes the recording's lock (utrace_control.stack.lock, shared by
 * every process, as the kernel's arch spinlock: held for one stack copy,
 * so a thread that cannot take it within a short spin gives its stack up
 * rather than wait for a holder that may have been stopped), compares
 * again, and saves the stack: the return addresses from the function up
 * (entry 0 the function's own entry + 5, as the kernel's ip +
 * MCOUNT_INSN_SIZE; entry 1 the return address at the slot; then the
 * %rbp chain of the callers, rt_stack_regs, as the stacktrace trigger
 * walks: code built without frame pointers ends the walk early), each
 * with its depth, the bytes from the stack top to where it was read.  A
 * thread running on another stack than its own (a coroutine's, a
 * signal's alternate stack) is not measured, as the kernel skips the
 * interrupt stacks.
 */
#include <errno.h>

#include "arch/x86_64/insn.h"
#include "runtime/rt.h"

#define ST_SPINS 20000 /* pause loops before a new maximum is given up */

static __thread uint32_t st_busy;	 /* a stack check runs on this thread */
static __thread uint64_t st_lo, st_top; /* its own stack; st_top 0: not known yet */
static uint64_t st_slots[UTRACE_STACK_ENTRIES]; /* under the lock */

static bool st_lock(struct utrace_stack_max *m, uint32_t tid)
{
	for (unsigned i = 0; i < ST_SPINS; i++) {
		uint32_t free = 0;

		if (!__atomic_load_n(&m->lock, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&m->lock, &free, tid, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		__builtin_ia32_pause();
	}
	return false;
}

/* The thread's stack at the entry of function id (entry 0 at sp, the
 * caller's return address above it, fp the caller's frame) into m. */
static void st_save(struct utrace_stack_max *m, uint32_t id, uint64_t sp, uint64_t fp, uint64_t size)
{
	uint64_t site = rt_stack_site(id);
	unsigned n;

	n = rt_stack_regs(&rt_self, site ? site + INSN_SITE_SIZE : *(uint64_t *)(uintptr_t)sp, fp,
			  sp + 8, true, m->addr, st_slots, UTRACE_STACK_ENTRIES);
	st_slots[0] = sp;
	for (unsigned i = 0; i < n; i++) {
		if (st_slots[i] < sp || st_slots[i] >= st_top) { /* off the thread's stack */
			n = i;
			break;
		}
		m->depth[i] = (uint32_t)(st_top - st_slots[i]);
	}
	m->nr_entries = n;
	m->pid = (int32_t)rt_syscall3(SYS_getpid, 0, 0, 0);
	m->gen++;
	__atomic_store_n(&m->max_size, size, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) void st_check(uint32_t id, uint64_t *slot, uint64_t fp)
{
	struct utrace_stack_max *m = &rt.ctl->stack;
	uint64_t sp = (uint64_t)(uintptr_t)slot - 8, size;
	int saved = errno;

	if (st_busy || !rt.enabled || !__atomic_load_n(&m->enabled, __ATOMIC_ACQUIRE))
		return;
	st_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!st_top) {
		rt_fstack_own(&st_lo, &st_top);
		if (st_top == UINT64_MAX) /* not known: no thread stack to measure */
			st_lo = st_top = 1;
	}
	size = st_top - sp;
	if (sp >= st_lo && sp < st_top && size > __atomic_load_n(&m->max_size, __ATOMIC_RELAXED) &&
	    st_lock(m, (uint32_t)rt_syscall3(SYS_gettid, 0, 0, 0))) {
		if (size > m->max_size) /* another thread's may be deeper by now */
			st_save(m, id, sp, fp, size);
		__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	st_busy = 0;
	errno = saved;
}

static inline __attribute__((always_inline)) void st_entry(uint64_t id, uint64_t *slot,
							   const uint64_t *regs, uint64_t fp, bool keep)
{
	uint8_t f = rt.site_flags[id];

	/* the stack's size at the entry, against the deepest: one compare
	 * (st_top 0, not known yet, makes it huge: the slow half learns it) */
	if (rt.stack_sites[id] &&
	    unlikely(st_top - (uint64_t)(uintptr_t)slot + 8 >
		     __atomic_load_n(&rt.ctl->stack.max_size, __ATOMIC_RELAXED)))
		st_check((uint32_t)id, slot, fp);
	if (!(f & UTRACE_SITE_TRACE))
		return;
	switch (__atomic_load_n(&rt.cfg.tracer, __ATOMIC_RELAXED)) {
	case UTRACE_TRACER_FUNCTION:
		utrace_func_entry(id, *slot, regs);
		break;
	case UTRACE_TRACER_FUNCTION_GRAPH:
		if (keep)
			utrace_graph_entry_keepflags(id, slot, regs);
		else
			utrace_graph_entry(id, slot, regs);
		break;
	}
}

void utrace_stack_entry(uint64_t id, uint64_t *slot, const uint64_t *regs, uint64_t fp)
{
	st_entry(id, slot, regs, fp, false);
}

void utrace_stack_entry_keepflags(uint64_t id, uint64_t *slot, const uint64_t *regs, uint64_t fp)
{
	st_entry(id, slot, regs, fp, true);
}
