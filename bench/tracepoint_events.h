/* SPDX-License-Identifier: MIT */
/*
 * tracepoint_events.h - the event of bench/tracepoint_utrace.c: one event
 * with two int fields, the utrace side of bench/tracepoint.sh (the LTTng-UST
 * side is bench/lttng_tp.h, the same event).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench

#if !defined(BENCH_TRACEPOINT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define BENCH_TRACEPOINT_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(bench_two,

	TP_PROTO(int a, int b),

	TP_ARGS(a, b),

	TP_STRUCT__entry(
		__field(int, a)
		__field(int, b)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),

	TP_printk("a=%d b=%d", __entry->a, __entry->b)
);

#endif /* BENCH_TRACEPOINT_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracepoint_events
#include <utrace/define_trace.h>
