/* SPDX-License-Identifier: MIT */
/*
 * report_text_internal.h - what the text report's files share: the printer
 * (one report's state), report_text_output.c's lines of the kernel's
 * trace_output.c (context, function line, event text, lost events) and
 * report_text_graph.c's function_graph lines, which report_text.c's passes
 * call.
 */
#ifndef UTRACE_LIB_REPORT_TEXT_INTERNAL_H
#define UTRACE_LIB_REPORT_TEXT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/report/report_sched.h"
#include "lib/report/report_text.h"

#define NO_TASK UINT32_MAX

struct printer {
	struct utrace_dat *d;
	FILE *out;
	uint32_t flags;
	int cpu_width;	    /* max_bytes_for_cpu */
	uint32_t *last_buf; /* per cpu: buffer of the last event, NO_TASK */
	size_t nr_last;
	struct utrace_report_summary *sum;
	struct utrace_report_filter *filter;
	int nsecs;
	struct utrace_event_printer *evp; /* TP_printk of tracepoints, NULL if none */
	struct utrace_graph_args *args;	  /* funcgraph-args/-retval types (DWARF) */
	bool nofunc; /* the nop tracer: no function line (calls recorded for the
		      * live tracefs's function profiler are not shown) */
	struct utrace_report_sched *sched; /* off-CPU spans, NULL without sched_switch */
};

/* report_text_output.c */
const char *rtext_func_name(struct printer *p, const struct utrace_event *ev);
void rtext_print_lost(struct printer *p, const struct utrace_event *ev);
void rtext_print_context(struct printer *p, const struct utrace_event *ev);
void rtext_print_fn_line(struct printer *p, const struct utrace_event *ev);
void rtext_print_event_text(struct printer *p, const struct utrace_event *ev, bool graph);
int rtext_printed_by_function(const struct printer *p, const struct utrace_event *ev);
void rtext_put_function_event(struct printer *p, const struct utrace_event *ev);

/* report_text_graph.c */
void rtext_print_sched_span(struct printer *p, const struct utrace_sched_span *sp);
void rtext_put_graph_event(struct printer *p, const struct utrace_event *ev);

#endif
