/* SPDX-License-Identifier: MIT */
/* ev_syscalls.h - system syscalls of tests/ftracetest/kprog.c: the kernel's names and field layouts (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM syscalls
#if !defined(KEV_syscalls_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_syscalls_H
#include <sys/types.h>
#include <utrace/tracepoint.h>

TRACE_EVENT(sys_enter_openat,
	TP_PROTO(int nr, int dfd, const char *filename, int flags, unsigned short mode),
	TP_ARGS(nr, dfd, filename, flags, mode),
	TP_STRUCT__entry(__field(int, __syscall_nr) __field(int, dfd) __field(const char *, filename)
		__field(int, flags) __field(unsigned short, mode)),
	TP_fast_assign(__entry->__syscall_nr = nr; __entry->dfd = dfd; __entry->filename = filename;
		__entry->flags = flags; __entry->mode = mode;),
	TP_printk("dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx", (long)__entry->dfd,
		(long)__entry->filename, (long)__entry->flags, (long)__entry->mode)
);
TRACE_EVENT(sys_exit_openat,
	TP_PROTO(int nr, long ret),
	TP_ARGS(nr, ret),
	TP_STRUCT__entry(__field(int, __syscall_nr) __field(long, ret)),
	TP_fast_assign(__entry->__syscall_nr = nr; __entry->ret = ret;),
	TP_printk("0x%lx", __entry->ret)
);
TRACE_EVENT(sys_enter_chdir,
	TP_PROTO(int nr, const char *filename),
	TP_ARGS(nr, filename),
	TP_STRUCT__entry(__field(int, __syscall_nr) __field(const char *, filename)),
	TP_fast_assign(__entry->__syscall_nr = nr; __entry->filename = filename;),
	TP_printk("filename: 0x%08lx", (long)__entry->filename)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_syscalls
#include <utrace/define_trace.h>
