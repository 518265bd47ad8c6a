/* SPDX-License-Identifier: MIT */
/* synth_events.h - the request begin/end tracepoints of synth.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM app

#if !defined(SYNTH_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define SYNTH_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(req_begin,
	TP_PROTO(int id),
	TP_ARGS(id),
	TP_STRUCT__entry(
		__field(int, id)
	),
	TP_fast_assign(
		__entry->id = id;
	),
	TP_printk("id=%d", __entry->id)
);

TRACE_EVENT(req_end,
	TP_PROTO(int id),
	TP_ARGS(id),
	TP_STRUCT__entry(
		__field(int, id)
	),
	TP_fast_assign(
		__entry->id = id;
	),
	TP_printk("id=%d", __entry->id)
);

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE synth_events
#include <utrace/define_trace.h>
