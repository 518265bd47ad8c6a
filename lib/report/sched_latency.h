/* SPDX-License-Identifier: MIT */
/*
 * sched_latency.h - per-task wakeup-to-run delays in the layout of `perf
 * sched latency` (tools/perf/builtin-sched.c, perf 6.1), for `utrace
 * sched-latency`.
 *
 * The numbers are not computed from the records here: the recording
 * makes them itself, with a synthetic event and hist triggers on the
 * kernel's sched events (the wakeup-latency example of the kernel's
 * documentation, run by the recorder, lib/record/recorder_kmerge.c):
 *
 *   sched_waking        ts0=common_timestamp per woken pid
 *   sched_switch        tsr=common_timestamp per pid switched out runnable
 *                       (preempted: it waits for a CPU from then, as perf's
 *                       THREAD_WAIT_CPU)
 *   sched_switch        at a switch in, $ts0 or $tsr read (once) and
 *                       wakeup_latency(lat, next_pid) fired
 *   synthetic:wakeup_latency  hist:keys=pid:vals=lat: the count and the
 *                       sum of the delays per task; its records give the
 *                       longest one and when it began and ended
 *   sched_stat_runtime  hist:keys=pid:vals=runtime: the time on CPU
 *
 * utrace_sched_latency_specs() are these -e/-R, for the command to
 * record with; utrace_sched_latency_print() reads them back.
 */
#ifndef UTRACE_LIB_SCHED_LATENCY_H
#define UTRACE_LIB_SCHED_LATENCY_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

/* The synthetic event the delays go through (--synthetic). */
#define UTRACE_SCHED_LAT_SYNTH "wakeup_latency u64 lat; pid_t pid"

struct utrace_sched_lat_spec {
	const char *event;   /* SYSTEM:EVENT */
	const char *trigger; /* its -R, NULL if none */
	bool record;	     /* its records are kept (else -v: triggers only) */
};

/* The -e of the recording, in order, ending with one whose event is NULL. */
const struct utrace_sched_lat_spec *utrace_sched_latency_specs(void);

struct utrace_sched_lat_opts {
	bool per_pid; /* -p: one row per task (else per command name, as perf) */
};

/*
 * Prints the table of a recording made with those specs: the tasks of
 * the traced processes with at least one delay, sorted as perf's default
 * (avg, max, switch, runtime: largest first), then TOTAL.  -ENOENT with a
 * message if the file does not hold the histograms.
 */
int utrace_sched_latency_print(struct utrace_dat *d, const struct utrace_sched_lat_opts *o, FILE *f,
			       struct utrace_error *err);

#endif
