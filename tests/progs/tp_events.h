/* SPDX-License-Identifier: MIT */
/* tp_events.h - the static tracepoints of tracepoints.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tp

#if !defined(TP_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define TP_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(tp_value,
	TP_PROTO(int id, const char *name),
	TP_ARGS(id, name),
	TP_STRUCT__entry(
		__field(int, id)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(name, name);
	),
	TP_printk("id=%d name=%s", __entry->id, __get_str(name))
);

DECLARE_EVENT_CLASS(tp_pair,
	TP_PROTO(unsigned long a, long b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(
		__field(unsigned long, a)
		__field(long, b)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("a=%lu b=%ld", __entry->a, __entry->b)
);

DEFINE_EVENT(tp_pair, tp_begin, TP_PROTO(unsigned long a, long b), TP_ARGS(a, b));
DEFINE_EVENT(tp_pair, tp_end, TP_PROTO(unsigned long a, long b), TP_ARGS(a, b));

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tp_events
#include <utrace/define_trace.h>
