/* SPDX-License-Identifier: MIT */
/*
 * lt_events.h - the static tracepoints of tests/kernel/ltp.c (system
 * livetp): lt_tick once a round, lt_work thirty times, kind 0, 1, 2 in
 * turn.  Used by the live tracefs tests (tracefs.sh, tracefs_trig.sh).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM livetp
#if !defined(LT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define LT_EVENTS_H
#include <utrace/tracepoint.h>
TRACE_EVENT(lt_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(int, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%d", __entry->n)
);
TRACE_EVENT(lt_work,
	TP_PROTO(int n, int kind),
	TP_ARGS(n, kind),
	TP_STRUCT__entry(__field(int, n) __field(int, kind)),
	TP_fast_assign(__entry->n = n; __entry->kind = kind;),
	TP_printk("n=%d kind=%d", __entry->n, __entry->kind)
);
#endif
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE lt_events
#include <utrace/define_trace.h>
