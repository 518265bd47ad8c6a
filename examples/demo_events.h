/* SPDX-License-Identifier: MIT */
/*
 * demo_events.h - the demo's static tracepoints, written exactly like a
 * kernel events header (include/trace/events/ in Linux).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo

#if !defined(DEMO_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define DEMO_EVENTS_H

#include <utrace/tracepoint.h>

TRACE_EVENT(demo_word,

	TP_PROTO(const char *word, int count),

	TP_ARGS(word, count),

	TP_STRUCT__entry(
		__string(word, word)
		__field(int, count)
	),

	TP_fast_assign(
		__assign_str(word, word);
		__entry->count = count;
	),

	TP_printk("word=%s count=%d", __get_str(word), __entry->count)
);

DECLARE_EVENT_CLASS(demo_table,

	TP_PROTO(unsigned int bucket, unsigned long entries),

	TP_ARGS(bucket, entries),

	TP_STRUCT__entry(
		__field(unsigned int, bucket)
		__field(unsigned long, entries)
		__array(char, tag, 8)
	),

	TP_fast_assign(
		__entry->bucket = bucket;
		__entry->entries = entries;
		memcpy(__entry->tag, "table", 6);
	),

	TP_printk("bucket=%u entries=%lu tag=%s", __entry->bucket, __entry->entries, __entry->tag)
);

DEFINE_EVENT(demo_table, demo_insert,
	TP_PROTO(unsigned int bucket, unsigned long entries),
	TP_ARGS(bucket, entries));

DEFINE_EVENT(demo_table, demo_lookup_miss,
	TP_PROTO(unsigned int bucket, unsigned long entries),
	TP_ARGS(bucket, entries));

#endif /* DEMO_EVENTS_H */

/* outside the guard, as in the kernel */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE demo_events
#include <utrace/define_trace.h>
