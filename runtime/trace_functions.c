/* SPDX-License-Identifier: MIT */
/*
 * trace_functions.c - the function tracer: one record per call with the
 * function and the address it was called from (ip and parent ip), as the
 * kernel's function tracer does.  12 bytes: the FUNC word and the parent.
 */
#include "common/record.h"
#include "runtime/rt.h"

void utrace_func_entry(uint64_t id, uint64_t parent)
{
	struct rt_thread *t = &rt_self;
	uint32_t cpu;
	uint64_t ts;

	if (unlikely(t->state != RT_TS_READY)) {
		if (!rt_rb_slow_ok(t))
			return;
	}
	if (unlikely(!rt_tracing_on()))
		return;
	t->state = RT_TS_READY | RT_TS_BUSY;
	ts = rt_clock(&cpu);
	if (likely(id <= UREC_SHORT_ID_MAX)) {
		uint32_t w[3] = {urec_func((uint32_t)id, 0), (uint32_t)parent,
				 (uint32_t)(parent >> 32)};

		rt_rb_put(t, w, 3, RT_DPOS_SHORT, ts, cpu);
	} else {
		uint32_t w[5] = {urec_ext(UEXT_FUNC_LONG, 0), (uint32_t)id, 0, (uint32_t)parent,
				 (uint32_t)(parent >> 32)};

		rt_rb_put(t, w, 5, RT_DPOS_WORD32(2), ts, cpu);
	}
	t->state = RT_TS_READY;
}
