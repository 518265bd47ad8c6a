/* SPDX-License-Identifier: MIT */
/* snap_events.h - the static tracepoint of snap.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM snap

#if !defined(SNAP_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define SNAP_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(snap_tick,
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
#define TRACE_INCLUDE_FILE snap_events
#include <utrace/define_trace.h>
