/* SPDX-License-Identifier: MIT */
/* ev_sched.h - system sched of tests/ftracetest/kprog.c: the kernel's names and field layouts (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched
#if !defined(KEV_sched_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_sched_H
#include <sys/types.h>
#include <utrace/tracepoint.h>
#include "kstructs.h"

TRACE_EVENT(sched_switch,
	TP_PROTO(const char *pc, pid_t pp, int pprio, long ps, const char *nc, pid_t np, int nprio),
	TP_ARGS(pc, pp, pprio, ps, nc, np, nprio),
	TP_STRUCT__entry(__array(char, prev_comm, 16) __field(pid_t, prev_pid) __field(int, prev_prio)
		__field(long, prev_state) __array(char, next_comm, 16) __field(pid_t, next_pid)
		__field(int, next_prio)),
	TP_fast_assign(strncpy(__entry->prev_comm, pc, 16); __entry->prev_pid = pp;
		__entry->prev_prio = pprio; __entry->prev_state = ps;
		strncpy(__entry->next_comm, nc, 16); __entry->next_pid = np; __entry->next_prio = nprio;),
	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%ld ==> next_comm=%s next_pid=%d next_prio=%d",
		__entry->prev_comm, __entry->prev_pid, __entry->prev_prio, __entry->prev_state,
		__entry->next_comm, __entry->next_pid, __entry->next_prio)
);
TRACE_EVENT(sched_waking,
	TP_PROTO(struct task_struct *p),
	TP_ARGS(p),
	TP_STRUCT__entry(__array(char, comm, 16) __field(pid_t, pid) __field(int, prio) __field(int, target_cpu)),
	TP_fast_assign(memcpy(__entry->comm, p->comm, 16); __entry->pid = p->pid; __entry->prio = p->prio;
		__entry->target_cpu = (int)p->cpu;),
	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d", __entry->comm, __entry->pid, __entry->prio, __entry->target_cpu)
);
TRACE_EVENT(sched_wakeup,
	TP_PROTO(struct task_struct *p),
	TP_ARGS(p),
	TP_STRUCT__entry(__array(char, comm, 16) __field(pid_t, pid) __field(int, prio) __field(int, target_cpu)),
	TP_fast_assign(memcpy(__entry->comm, p->comm, 16); __entry->pid = p->pid; __entry->prio = p->prio;
		__entry->target_cpu = (int)p->cpu;),
	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d", __entry->comm, __entry->pid, __entry->prio, __entry->target_cpu)
);
TRACE_EVENT(sched_process_fork,
	TP_PROTO(const char *pc, pid_t pp, const char *cc, pid_t cp),
	TP_ARGS(pc, pp, cc, cp),
	TP_STRUCT__entry(__array(char, parent_comm, 16) __field(pid_t, parent_pid) __array(char, child_comm, 16) __field(pid_t, child_pid)),
	TP_fast_assign(strncpy(__entry->parent_comm, pc, 16); __entry->parent_pid = pp;
		strncpy(__entry->child_comm, cc, 16); __entry->child_pid = cp;),
	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d", __entry->parent_comm, __entry->parent_pid,
		__entry->child_comm, __entry->child_pid)
);
TRACE_EVENT(sched_process_exit,
	TP_PROTO(const char *c, pid_t p, int prio),
	TP_ARGS(c, p, prio),
	TP_STRUCT__entry(__array(char, comm, 16) __field(pid_t, pid) __field(int, prio)),
	TP_fast_assign(strncpy(__entry->comm, c, 16); __entry->pid = p; __entry->prio = prio;),
	TP_printk("comm=%s pid=%d prio=%d", __entry->comm, __entry->pid, __entry->prio)
);
TRACE_EVENT(sched_process_exec,
	TP_PROTO(const char *f, pid_t p, pid_t op),
	TP_ARGS(f, p, op),
	TP_STRUCT__entry(__string(filename, f) __field(pid_t, pid) __field(pid_t, old_pid)),
	TP_fast_assign(__assign_str(filename, f); __entry->pid = p; __entry->old_pid = op;),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename), __entry->pid, __entry->old_pid)
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_sched
#include <utrace/define_trace.h>
