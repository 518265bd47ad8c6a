/* SPDX-License-Identifier: MIT */
/*
 * export_chrome.h - a trace as Chrome trace-event JSON, which Perfetto's
 * UI (ui.perfetto.dev), chrome://tracing and speedscope open:
 *
 *   {"traceEvents":[
 *   {"ph":"M","pid":100,"tid":100,"name":"thread_name","args":{"name":"wordfreq"}},
 *   {"ts":1234.500,"ph":"B","pid":100,"tid":100,"name":"main"},
 *   {"ts":1234.620,"ph":"X","pid":100,"tid":100,"name":"hash","dur":0.030},
 *   {"ts":1240.000,"ph":"E","pid":100,"tid":100,"name":"main"},
 *   ...],
 *   "displayTimeUnit":"ns","otherData":{...}}
 *
 * Times are CLOCK_MONOTONIC microseconds with nanosecond decimals, as the
 * format wants.  Events are written as they stream by: one at a time,
 * whatever the size of the trace.
 */
#ifndef UTRACE_LIB_EXPORT_CHROME_H
#define UTRACE_LIB_EXPORT_CHROME_H

#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"
#include "lib/report/report_filter.h"

struct utrace_chrome;

enum utrace_chrome_flags {
	/* Every call as one "X" (complete) event written at its return,
	 * instead of "B" at the entry and "E" at the return.  Calls that
	 * never return are then left out. */
	UTRACE_CHROME_COMPLETE = 1u << 0,
};

/*
 * Writes the header and the process and thread names of the threads f
 * selects (f may be NULL).  Then give every event of the pass (filtered
 * by f) to utrace_chrome_event(), and finish with utrace_chrome_end().
 *
 *   entry         "B"
 *   return        "E" (named, as speedscope wants); "X" timed back from the return when its entry was
 *                 not shown (filtered out, or not in the trace)
 *   leaf call     "X"
 *   function      "i" (an instant: the function tracer has no durations)
 *   lost events   "i" named "LOST n EVENTS"
 *   tracepoint    "i" named "system:event"; utrace_printf text: "i" named by it
 */
int utrace_chrome_begin(struct utrace_dat *d, const struct utrace_report_filter *f, FILE *out,
			uint32_t flags, struct utrace_chrome **out_c, struct utrace_error *err);
int utrace_chrome_event(struct utrace_chrome *c, const struct utrace_event *ev,
			struct utrace_error *err);
/* Writes the end of the document and frees c (also on error). */
int utrace_chrome_end(struct utrace_chrome *c, struct utrace_error *err);

/* After "traceEvents": the samples of record -F, as ,"samples":[...] and
 * ,"stackFrames":{...} (export_chrome_samples.c); nothing without
 * samples.  *n: how many. */
int utrace_chrome_samples(struct utrace_dat *d, FILE *out, uint64_t *n, struct utrace_error *err);

#endif
