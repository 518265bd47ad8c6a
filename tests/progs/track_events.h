/* SPDX-License-Identifier: MIT */
/* track_events.h - the kernel-like events of track.c: sched_waking,
 * sched_switch and tcp_probe with the fields the kernel documentation's
 * onmax()/onchange() examples use. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ksim

#if !defined(TRACK_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define TRACK_EVENTS_H

#include <string.h>

#include <utrace/tracepoint.h>

TRACE_EVENT(sched_waking,
	TP_PROTO(const char *comm, int pid, int prio),
	TP_ARGS(comm, pid, prio),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(int, pid)
		__field(int, prio)
	),
	TP_fast_assign(
		strncpy(__entry->comm, comm, 15);
		__entry->pid = pid;
		__entry->prio = prio;
	),
	TP_printk("comm=%s pid=%d prio=%d", __entry->comm, __entry->pid, __entry->prio)
);

TRACE_EVENT(sched_switch,
	TP_PROTO(const char *prev_comm, int prev_pid, int prev_prio, const char *next_comm,
		 int next_pid, int next_prio),
	TP_ARGS(prev_comm, prev_pid, prev_prio, next_comm, next_pid, next_prio),
	TP_STRUCT__entry(
		__array(char, prev_comm, 16)
		__field(int, prev_pid)
		__field(int, prev_prio)
		__array(char, next_comm, 16)
		__field(int, next_pid)
		__field(int, next_prio)
	),
	TP_fast_assign(
		strncpy(__entry->prev_comm, prev_comm, 15);
		__entry->prev_pid = prev_pid;
		__entry->prev_prio = prev_prio;
		strncpy(__entry->next_comm, next_comm, 15);
		__entry->next_pid = next_pid;
		__entry->next_prio = next_prio;
	),
	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d ==> next_comm=%s next_pid=%d next_prio=%d",
		  __entry->prev_comm, __entry->prev_pid, __entry->prev_prio, __entry->next_comm,
		  __entry->next_pid, __entry->next_prio)
);

TRACE_EVENT(tcp_probe,
	TP_PROTO(unsigned short dport, unsigned int snd_cwnd, unsigned int snd_wnd,
		 unsigned int srtt, unsigned int rcv_wnd),
	TP_ARGS(dport, snd_cwnd, snd_wnd, srtt, rcv_wnd),
	TP_STRUCT__entry(
		__field(unsigned short, dport)
		__field(unsigned int, snd_cwnd)
		__field(unsigned int, snd_wnd)
		__field(unsigned int, srtt)
		__field(unsigned int, rcv_wnd)
	),
	TP_fast_assign(
		__entry->dport = dport;
		__entry->snd_cwnd = snd_cwnd;
		__entry->snd_wnd = snd_wnd;
		__entry->srtt = srtt;
		__entry->rcv_wnd = rcv_wnd;
	),
	TP_printk("dport=%hu snd_cwnd=%u snd_wnd=%u srtt=%u rcv_wnd=%u", __entry->dport,
		  __entry->snd_cwnd, __entry->snd_wnd, __entry->srtt, __entry->rcv_wnd)
);

#endif

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE track_events
#include <utrace/define_trace.h>
