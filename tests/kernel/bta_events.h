/* SPDX-License-Identifier: MIT */
/*
 * bta_events.h - the static tracepoint of tests/kernel/bta.c (system
 * btarg): bta_run(j, round), a struct job pointer and an int, for
 * tests/kernel/tracefs_btfarg.sh's tracepoint probe by names.
 */
#ifndef BTA_JOB_H /* read once, unlike the events below */
#define BTA_JOB_H
struct job {
	int id;
	struct {
		long weight;
		char tag[8];
	} meta;
	struct job *next;
	const char *name;
};
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM btarg
#if !defined(BTA_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define BTA_EVENTS_H
#include <utrace/tracepoint.h>

TRACE_EVENT(bta_run,
	TP_PROTO(struct job *j, int round),
	TP_ARGS(j, round),
	TP_STRUCT__entry(__field(int, id) __field(int, round)),
	TP_fast_assign(__entry->id = j->id; __entry->round = round;),
	TP_printk("id=%d round=%d", __entry->id, __entry->round)
);
#endif
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE bta_events
#include <utrace/define_trace.h>
