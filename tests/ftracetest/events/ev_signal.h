/* SPDX-License-Identifier: MIT */
/* ev_signal.h - system signal of tests/ftracetest/kprog.c: the kernel's names and field layouts (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM signal
#if !defined(KEV_signal_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_signal_H
#include <sys/types.h>
#include <utrace/tracepoint.h>

TRACE_EVENT(signal_generate,
	TP_PROTO(int sig, int err, int code, const char *c, pid_t p, int group, int result),
	TP_ARGS(sig, err, code, c, p, group, result),
	TP_STRUCT__entry(__field(int, sig) __field(int, errno) __field(int, code) __array(char, comm, 16)
		__field(pid_t, pid) __field(int, group) __field(int, result)),
	TP_fast_assign(__entry->sig = sig; __entry->errno = err; __entry->code = code;
		strncpy(__entry->comm, c, 16); __entry->pid = p; __entry->group = group; __entry->result = result;),
	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d", __entry->sig, __entry->errno,
		__entry->code, __entry->comm, __entry->pid, __entry->group, __entry->result)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_signal
#include <utrace/define_trace.h>
