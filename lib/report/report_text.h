/* SPDX-License-Identifier: MIT */
/*
 * lib/report - reading a recording for people: the text
 * report (this file), selections (report_filter.h), event text
 * (event_print.h), per-function profile (profile.h), call graph
 * (callgraph.h).  May use: lib/base, lib/elf, lib/events, lib/tracefile, lib/probes
 * (DWARF, for funcgraph-args: graph_args.h), lib/hist (report --hist),
 * lib/sample (kernel symbols, for top); libtraceevent for event text.
 *
 * report_text.h - prints the events of a utrace.dat in the kernel's trace
 * text formats (the function tracer's and function_graph's), for
 * `utrace report`.
 */
#ifndef UTRACE_LIB_REPORT_TEXT_H
#define UTRACE_LIB_REPORT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

/* The kernel's trace_options that apply, same names (see -O). */
enum utrace_report_flags {
	UTRACE_REPORT_CPU = 1u << 0,	  /* funcgraph-cpu */
	UTRACE_REPORT_OVERHEAD = 1u << 1, /* funcgraph-overhead */
	UTRACE_REPORT_DURATION = 1u << 2, /* funcgraph-duration */
	UTRACE_REPORT_PROC = 1u << 3,	  /* funcgraph-proc */
	UTRACE_REPORT_ABSTIME = 1u << 4,  /* funcgraph-abstime */
	UTRACE_REPORT_TAIL = 1u << 5,	  /* funcgraph-tail */
	UTRACE_REPORT_PARENT = 1u << 6,	  /* print-parent */
	UTRACE_REPORT_RETVAL_HEX = 1u << 7, /* funcgraph-retval-hex (a long name:
					     * the column above stays) */
	/* not an option: the kernel's trace_clock x86-tsc (the live
	 * tracefs): timestamps are the TSC's counts (" %12llu: "), and
	 * funcgraph-abstime shows them as the kernel does, as if ns;
	 * durations stay ns (the kernel's are its local clock's) */
	UTRACE_REPORT_CLOCK_TSC = 1u << 8,
	/* not an option: the command's --color.  The overhead mark and
	 * duration of a call over 10 us in the colour of its mark (yellow
	 * + !, red # *, bold magenta @ $), the function names of entries and
	 * one-line calls in bold: what uftrace and perf colour */
	UTRACE_REPORT_COLOR = 1u << 9,
	/* utrace-own: the kernel events of utrace's own work (the recorder's
	 * child before its exec, libutrace.so's start-up) are shown; by
	 * default they are left out and counted (lib/tracefile/dat_own.c) */
	UTRACE_REPORT_OWN = 1u << 10,
};

/* The kernel's defaults. */
#define UTRACE_REPORT_DEFAULT_FLAGS                                                                \
	(UTRACE_REPORT_CPU | UTRACE_REPORT_OVERHEAD | UTRACE_REPORT_DURATION | UTRACE_REPORT_PARENT)

struct utrace_report_filter;

struct utrace_report_opts {
	uint32_t flags;	    /* enum utrace_report_flags */
	const char *tracer; /* output format; NULL: META "tracer" of the file */
	/* the events to print (lib/report/report_filter.h); NULL: all */
	struct utrace_report_filter *filter;
	int nsecs; /* timestamps to the nanosecond (trace-cmd report -t) */
};

void utrace_report_opts_init(struct utrace_report_opts *o);
/* Sets ("funcgraph-proc") or clears ("nofuncgraph-proc") an option. */
int utrace_report_set_option(struct utrace_report_opts *o, const char *name,
			     struct utrace_error *err);
/* The option names, space separated, for --help. */
const char *utrace_report_option_names(void);

struct utrace_report_summary {
	uint64_t events;       /* event lines printed */
	uint64_t lost;	       /* events the file says were lost */
	uint64_t lost_unknown; /* losses of an unknown number of events */
	uint64_t *buf_lost;    /* lost per buffer index (utrace_dat_buffer_get) */
	unsigned nr_bufs;
	uint64_t warnings; /* sub-buffers cut short at a bad record */
	uint64_t unread, unread_unknown; /* their records not read (utrace_dat_iter_unread) */
	char warning[512]; /* the first one */
	uint64_t own; /* kernel events of utrace's own work left out (utrace_dat_iter_own) */
};

/* Prints the header and every event.  sum may be NULL; if not, free it
 * with utrace_report_summary_free(). */
int utrace_report_print(struct utrace_dat *d, FILE *out, const struct utrace_report_opts *opts,
			struct utrace_report_summary *sum, struct utrace_error *err);
void utrace_report_summary_free(struct utrace_report_summary *sum);

/* The ANSI colour of a duration in ns under --color: the colour of its
 * overhead mark (yellow + !, red # *, bold magenta @ $), "" for none. */
const char *utrace_report_duration_color(uint64_t ns);

/* Whether d holds records of more than one thread of the programs that
 * f selects (f NULL: all; tasks only kernel events name do not count):
 * report's task column then. */
bool utrace_report_many_threads(const struct utrace_dat *d, const struct utrace_report_filter *f);

/* Per-buffer statistics, trace-cmd report --stat's: one line per thread
 * (comm-tid, pid, records written, events lost, pages, overrun) and the
 * totals.  Only the threads filter selects (NULL: all). */
int utrace_report_print_stat(struct utrace_dat *d, FILE *out,
			     const struct utrace_report_filter *filter, struct utrace_error *err);

#endif
