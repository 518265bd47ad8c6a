/* SPDX-License-Identifier: MIT */
/*
 * report_sched.h - off-CPU time under the call that slept: the spans a
 * thread spent switched out, from the kernel's sched:sched_switch records
 * of a recording (report_sched.c), for the lines uftrace prints as
 * `linux:schedule();`.
 */
#ifndef UTRACE_LIB_REPORT_SCHED_H
#define UTRACE_LIB_REPORT_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tracefile/dat_reader.h"

/* The name uftrace gives the time a thread was switched out. */
#define UTRACE_SCHED_NAME "linux:schedule"

struct utrace_report_sched;

/* A thread's time off the CPU: switched out at ts on cpu, for dur ns (0
 * with ended false: the recording stopped first), while its call at depth
 * - 1 ran (the span sits at depth, as a comment would). */
struct utrace_sched_span {
	uint64_t ts, dur;
	uint32_t buf, cpu, depth;
	int32_t tid;
	bool ended;
};

/* *out NULL (and 0) when d has no sched:sched_switch records' format;
 * -ENOMEM. */
int utrace_report_sched_new(struct utrace_dat *d, struct utrace_report_sched **out);
void utrace_report_sched_free(struct utrace_report_sched *s);
/* A span ev ends: own, the span of ev's thread (ev is its next event:
 * before ev); else one of a thread the sched_switch ev puts back on a CPU
 * (after ev, the other task's).  True with *span filled in; call until
 * false. */
bool utrace_report_sched_end(struct utrace_report_sched *s, const struct utrace_event *ev,
			     bool own, struct utrace_sched_span *span);
/* Whether ev is a sched_switch that takes its own (live) thread off the
 * CPU: its span begins (ev is printed as any event: its fields). */
bool utrace_report_sched_begin(struct utrace_report_sched *s, const struct utrace_event *ev);
/* After the pass: the spans that never ended, one a call, until false. */
bool utrace_report_sched_left(struct utrace_report_sched *s, struct utrace_sched_span *span);

#endif
