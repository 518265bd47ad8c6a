/* SPDX-License-Identifier: MIT */
/*
 * trace_functions.c - the function tracer: one record per call with the
 * function and the address it was called from (ip and parent ip), as the
 * kernel's function tracer does.  12 bytes: the FUNC word and the parent.
 * A thread set_ftrace_pid leaves out writes nothing (trace_pid.c).
 */
#include "common/record.h"
#include "runtime/rt.h"

static __attribute__((noinline)) void func_entry_slow(struct rt_thread *t, uint64_t id,
						      uint64_t parent)
{
	uint32_t cpu, shared;
	uint64_t ts;

	if (!(t = rt_ctx(t)))
		return; /* a signal handler, with every nested context busy */
	if (t->state != RT_TS_READY && !rt_rb_slow_ok(t))
		return;
	if (!rt_tracing_on() || rt_ftpid_out(t))
		return;
	shared = t->state & RT_TS_SHARED; /* kept: the fast path stays shut */
	t->state = RT_TS_READY | RT_TS_BUSY | shared;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts = rt_clock(&cpu);
	if (id <= UREC_SHORT_ID_MAX) {
		uint32_t w[3] = {urec_func((uint32_t)id, 0), (uint32_t)parent,
				 (uint32_t)(parent >> 32)};

		rt_rb_put(t, w, 3, RT_DPOS_SHORT, ts, cpu);
	} else {
		uint32_t w[5] = {urec_ext(UEXT_FUNC_LONG, 0), (uint32_t)id, 0, (uint32_t)parent,
				 (uint32_t)(parent >> 32)};

		rt_rb_put(t, w, 5, RT_DPOS_WORD32(2), ts, cpu);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state = RT_TS_READY | shared;
}

/* The common case with no call at all (see fgraph.c); the rest is a tail
 * call into the slow half. */
void utrace_func_entry(uint64_t id, uint64_t parent, const uint64_t *regs)
{
	struct rt_thread *t = &rt_self;
	uint32_t cpu, *wp;
	uint64_t ts, delta;

	if (unlikely(t->state != RT_TS_READY || id > UREC_SHORT_ID_MAX || !rt_tracing_on() ||
		     rt_ftpid_unsure(t)))
		return func_entry_slow(t, id, parent);
	t->state = RT_TS_READY | RT_TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts = rt_clock(&cpu);
	wp = t->wp;
	delta = ts - t->last_ts;
	if (unlikely(delta > UREC_SHORT_DELTA_MAX || t->end - wp < 3 || cpu != t->cpu)) {
		t->state = RT_TS_READY;
		return func_entry_slow(t, id, parent);
	}
	wp[0] = urec_func((uint32_t)id, (uint32_t)delta);
	wp[1] = (uint32_t)parent;
	wp[2] = (uint32_t)(parent >> 32);
	t->wp = wp + 3;
	t->last_ts = ts;
	t->written++;
	/* release: see rt_rb_put */
	__atomic_store_n(&t->sb->commit, (uint32_t)((uint8_t *)(wp + 3) - (uint8_t *)(t->sb + 1)),
			 __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->state = RT_TS_READY;
}
