/* SPDX-License-Identifier: MIT */
/*
 * sanitizer_events.h - the sanitizer:* events libutrace.so defines itself
 * (runtime/sanitizer.c fires them), as the kernel's kasan_report: a
 * sanitizer's report as an event that filters, triggers and hist triggers
 * see like any other.  Only integers and char arrays, so that `utrace
 * list -e` reads the layout from libutrace.so's __utrace_events section.
 * The fields are what the report says: kind (its bug type), the address,
 * access size and direction and pc where the runtime gives them, the
 * source location and function of its SUMMARY line, its first line.
 */
#ifndef UTRACE_SANITIZER_REPORT_H
#define UTRACE_SANITIZER_REPORT_H
/* The sizes of the text fields (a longer text is cut, NUL kept). */
#define RT_SAN_KIND 48
#define RT_SAN_FILE 160
#define RT_SAN_FUNC 96
#define RT_SAN_LINE 256

/* What a report says, as sanitizer.c reads it. */
struct rt_san_report {
	char kind[RT_SAN_KIND];
	unsigned long addr, size, pc;
	int is_write;
	unsigned int line;
	char file[RT_SAN_FILE];
	char func[RT_SAN_FUNC];
	char first_line[RT_SAN_LINE];
};
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM sanitizer

#if !defined(UTRACE_SANITIZER_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define UTRACE_SANITIZER_EVENTS_H

#include <utrace/tracepoint.h>

DECLARE_EVENT_CLASS(san_report,
	TP_PROTO(const struct rt_san_report *r),
	TP_ARGS(r),
	TP_STRUCT__entry(
		__array(char, kind, RT_SAN_KIND)
		__field(unsigned long, addr)
		__field(unsigned long, size)
		__field(int, is_write)
		__field(unsigned int, line)
		__field(unsigned long, pc)
		__array(char, file, RT_SAN_FILE)
		__array(char, func, RT_SAN_FUNC)
		__array(char, first_line, RT_SAN_LINE)
	),
	TP_fast_assign(
		memcpy(__entry->kind, r->kind, RT_SAN_KIND);
		__entry->addr = r->addr;
		__entry->size = r->size;
		__entry->is_write = r->is_write;
		__entry->line = r->line;
		__entry->pc = r->pc;
		memcpy(__entry->file, r->file, RT_SAN_FILE);
		memcpy(__entry->func, r->func, RT_SAN_FUNC);
		memcpy(__entry->first_line, r->first_line, RT_SAN_LINE);
	),
	TP_printk("kind=%s addr=0x%lx size=%lu is_write=%d pc=0x%lx file=%s line=%u func=%s",
		  __entry->kind, __entry->addr, __entry->size, __entry->is_write, __entry->pc,
		  __entry->file, __entry->line, __entry->func)
);

/* AddressSanitizer (sanitizer.c's callback), UndefinedBehaviorSanitizer
 * and ThreadSanitizer (their report hooks, sanitizer_patch.c), MemorySanitizer
 * and LeakSanitizer (their text, sanitizer_print.c) */
DEFINE_EVENT(san_report, asan_report, TP_PROTO(const struct rt_san_report *r), TP_ARGS(r));
DEFINE_EVENT(san_report, ubsan_report, TP_PROTO(const struct rt_san_report *r), TP_ARGS(r));
DEFINE_EVENT(san_report, tsan_report, TP_PROTO(const struct rt_san_report *r), TP_ARGS(r));
DEFINE_EVENT(san_report, msan_report, TP_PROTO(const struct rt_san_report *r), TP_ARGS(r));
DEFINE_EVENT(san_report, lsan_report, TP_PROTO(const struct rt_san_report *r), TP_ARGS(r));

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sanitizer_events
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH runtime
#include <utrace/define_trace.h>
