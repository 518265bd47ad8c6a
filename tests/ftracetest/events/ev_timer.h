/* SPDX-License-Identifier: MIT */
/* ev_timer.h - system timer of tests/ftracetest/kprog.c: the kernel's names and field layouts (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM timer
#if !defined(KEV_timer_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_timer_H
#include <sys/types.h>
#include <utrace/tracepoint.h>

TRACE_EVENT(timer_cancel,
	TP_PROTO(void *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(__field(void *, timer)),
	TP_fast_assign(__entry->timer = timer;),
	TP_printk("timer=%p", __entry->timer)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_timer
#include <utrace/define_trace.h>
