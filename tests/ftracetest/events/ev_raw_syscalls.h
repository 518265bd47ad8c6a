/* SPDX-License-Identifier: MIT */
/* ev_raw_syscalls.h - system raw_syscalls of tests/ftracetest/kprog.c: the kernel's names and field layouts (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM raw_syscalls
#if !defined(KEV_raw_syscalls_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_raw_syscalls_H
#include <sys/types.h>
#include <utrace/tracepoint.h>

TRACE_EVENT(sys_enter,
	TP_PROTO(long id, const unsigned long *a),
	TP_ARGS(id, a),
	TP_STRUCT__entry(__field(long, id) __array(unsigned long, args, 6)),
	TP_fast_assign(__entry->id = id; memcpy(__entry->args, a, sizeof(__entry->args));),
	TP_printk("NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)", __entry->id, __entry->args[0], __entry->args[1],
		__entry->args[2], __entry->args[3], __entry->args[4], __entry->args[5])
);
TRACE_EVENT(sys_exit,
	TP_PROTO(long id, long ret),
	TP_ARGS(id, ret),
	TP_STRUCT__entry(__field(long, id) __field(long, ret)),
	TP_fast_assign(__entry->id = id; __entry->ret = ret;),
	TP_printk("NR %ld = %ld", __entry->id, __entry->ret)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_raw_syscalls
#include <utrace/define_trace.h>
