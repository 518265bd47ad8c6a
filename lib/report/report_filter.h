/* SPDX-License-Identifier: MIT */
/*
 * report_filter.h - which events of a recorded trace a report shows: the
 * threads (tid, pid, comm), the CPUs, a time range, the functions and a
 * depth, as trace-cmd report and uftrace replay/report/graph/dump select
 * them.  Used by `utrace report`, `utrace graph` and `utrace dump`.
 *
 * Selections of different kinds must all hold; several values of one kind
 * (--cpu 1 --cpu 3, --tid 10,11) are alternatives.  A function filter
 * keeps the calls of the matching functions and, for function_graph
 * recordings, everything they call, with the depths counted from the
 * matching function (the kernel's set_graph_function, uftrace's -F).
 */
#ifndef UTRACE_LIB_REPORT_FILTER_H
#define UTRACE_LIB_REPORT_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

struct utrace_report_filter;

int utrace_report_filter_new(struct utrace_report_filter **out, struct utrace_error *err);
void utrace_report_filter_free(struct utrace_report_filter *f);

/*
 * Adds a selection, named as the command-line option that sets it:
 *
 *   cpu         "2", "0,2-3"                 the CPU an event was written on
 *   tid         "1234", "1234,1240"          threads
 *   pid         "1234"                       every thread of the processes
 *   comm        "worker*"                    threads by name (a glob)
 *   filter      "parse_*"                    functions (a glob), and below
 *   depth       "3"                          call depth (from the filter's
 *                                            function if there is one)
 *   time-range  "START~END"                  either end may be left out
 *   from, to    "START" / "END"
 *
 * A time is an absolute CLOCK_MONOTONIC timestamp in seconds as report
 * prints it ("17284.993652"), or, with a unit (ns, us, ms, s, m, h), the
 * time elapsed since the first event of the trace ("1.5ms").
 */
int utrace_report_filter_add(struct utrace_report_filter *f, const char *key, const char *value,
			     struct utrace_error *err);
/*
 * The command-line options, the same for report, graph and dump: the long
 * ones as getopt_long() entries (needs <getopt.h>) whose value is val,
 * so the selection is named by the entry's name; -F, -D and -r are the
 * short forms of --filter, --depth and --time-range (uftrace's letters).
 */
#define UTRACE_REPORT_FILTER_LONGOPTS(val)                                                         \
	{"cpu", required_argument, NULL, (val)}, {"tid", required_argument, NULL, (val)},          \
	    {"pid", required_argument, NULL, (val)}, {"comm", required_argument, NULL, (val)},     \
	    {"filter", required_argument, NULL, 'F'}, {"depth", required_argument, NULL, 'D'},     \
	    {"time-range", required_argument, NULL, 'r'},                                          \
	    {"from", required_argument, NULL, (val)},                                              \
	{                                                                                          \
		"to", required_argument, NULL, (val)                                               \
	}
/* The selection of a short option ('F', 'D', 'r'), or NULL. */
const char *utrace_report_filter_short_key(int c);
/* The options' lines for --help. */
const char *utrace_report_filter_help(void);

/* True if something was selected (an empty filter keeps every event). */
bool utrace_report_filter_active(const struct utrace_report_filter *f);

/* Starts a pass over the events of d (again for each pass: the filter
 * follows each thread's calls).  f may be NULL (every event). */
int utrace_report_filter_begin(struct utrace_report_filter *f, struct utrace_dat *d,
			       struct utrace_error *err);
/* utrace_report_filter_begin, then an iterator over d for the pass, which
 * starts at the bookmarks of f's resume (utrace_dat_iter_resume) when f
 * has one and selects a time range from a fixed time only. */
int utrace_report_filter_iter_open(struct utrace_report_filter *f, struct utrace_dat *d,
				   struct utrace_dat_iter **it, struct utrace_error *err);
/* Bookmarks for the passes of a file read again and again as it grows
 * (trace_pipe): rs stays the caller's. */
void utrace_report_filter_set_resume(struct utrace_report_filter *f, struct utrace_dat_resume *rs);
/* True if the thread of buffer buf of d (utrace_dat_buffer_get) is
 * selected (f may be NULL). */
bool utrace_report_filter_thread(const struct utrace_report_filter *f, const struct utrace_dat *d,
				 unsigned buf);

/*
 * Decides on the next event of the pass (every event must be shown, in
 * the iterator's order): 1 to keep it, 0 to drop it, <0 (out of memory).
 * A kept event may be changed: its depth counted from the filter's
 * function, and UTRACE_EVF_NO_ENTRY set on a return whose entry was
 * dropped.  LOST events are kept for the selected threads, CPUs and times.
 */
int utrace_report_filter_event(struct utrace_report_filter *f, struct utrace_event *ev,
			       struct utrace_error *err);

/* utrace_dat_iter_next(), skipping what f drops (f may be NULL). */
int utrace_report_filter_next(struct utrace_report_filter *f, struct utrace_dat_iter *it,
			      struct utrace_event *ev, struct utrace_error *err);
/* The same, *out the event: ev (filled) when f selects or limits, else
 * the iterator's own, not copied (utrace_dat_iter_next_ref). */
int utrace_report_filter_next_ref(struct utrace_report_filter *f, struct utrace_dat_iter *it,
				  struct utrace_event *ev, const struct utrace_event **out,
				  struct utrace_error *err);

/* The caller's own selection, after every other (the live tracefs'
 * instances, lib/session/session_inst.c): keep(arg, ev, func) is 1 to keep
 * ev, 0 to drop it; func is the function's name for a call (ENTRY, EXIT,
 * LEAF, FUNC), else NULL.  LOST events are not asked. */
typedef int (*utrace_report_keep_fn)(void *arg, const struct utrace_event *ev, const char *func);
void utrace_report_filter_set_keep(struct utrace_report_filter *f, utrace_report_keep_fn keep,
				   void *arg);

/* At most n events (LOST ones not counted) in each pass from now on
 * (0: all): the first n of the selection. */
void utrace_report_filter_set_limit(struct utrace_report_filter *f, uint64_t n);
/* The time the last pass's events reach: the latest one's, a one-line
 * call's return; 0 if it gave none. */
uint64_t utrace_report_filter_last(const struct utrace_report_filter *f);

/* What a pass met besides the events it kept. */
struct utrace_pass_stats {
	uint64_t events;       /* kept, LOST excluded */
	uint64_t lost;	       /* events lost in the selected threads */
	uint64_t lost_unknown; /* losses of an unknown number of events */
	uint64_t damaged;      /* sub-buffers cut short at a bad record */
	uint64_t unread, unread_unknown; /* their records not read (utrace_dat_iter_unread) */
	uint64_t own; /* kernel events of utrace's own work left out (utrace_dat_iter_own) */
	char damaged_first[512];
};

/* One pass over d: every event f keeps (LOST ones included) goes to fn,
 * which returns <0 to stop (returned).  f may be NULL. */
int utrace_report_filter_run(struct utrace_report_filter *f, struct utrace_dat *d,
			     int (*fn)(void *arg, const struct utrace_event *ev,
				       struct utrace_error *err),
			     void *arg, struct utrace_pass_stats *st, struct utrace_error *err);

#endif
