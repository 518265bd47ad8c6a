/* SPDX-License-Identifier: MIT */
/* hist_events.h - the static tracepoint of hist.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hist

#if !defined(HIST_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define HIST_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(hist_req,
	TP_PROTO(int id, unsigned long bytes, const char *word),
	TP_ARGS(id, bytes, word),
	TP_STRUCT__entry(
		__field(int, id)
		__field(unsigned long, bytes)
		__string(word, word)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->bytes = bytes;
		__assign_str(word, word);
	),
	TP_printk("id=%d bytes=%lu word=%s", __entry->id, __entry->bytes, __get_str(word))
);

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hist_events
#include <utrace/define_trace.h>
