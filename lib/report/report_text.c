/* SPDX-License-Identifier: MIT */
/*
 * report_text.c - the kernel's trace output, for the events of a
 * utrace.dat.
 *
 * Design: the column layouts are those of kernel/trace/trace_output.c
 * (trace_print_context: "%16s-%-7d [%03d] " + irq flags + " %5lu.%06lu: ")
 * and kernel/trace/trace_functions_graph.c (print_graph_cpu " %*d) ",
 * print_graph_duration with its overhead marks, TRACE_GRAPH_INDENT of 2,
 * the context-switch banner when the task on a cpu changes, the function
 * name in a comment after the brace of a return whose entry was not
 * printed), reproduced function by
 * function so the output diffs cleanly against a kernel trace.  The kernel
 * prints per-cpu buffers; utrace's buffers are per thread, and the cpu
 * column shows where the thread ran.  User space has no irq or preempt
 * state, so the flags column is always ".....".  Lost events print as the
 * kernel prints them ("CPU:%d [LOST %lu EVENTS]"), followed by the thread
 * they were lost in.
 *
 * The function tracer's header counts the entries, so that format reads
 * the file twice; function_graph streams in one pass.  This file holds the
 * options and the passes; the lines are report_text_output.c's (the
 * function tracer's, trace_output.c) and report_text_graph.c's
 * (function_graph's).
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_sched.h"
#include "lib/report/event_print.h"
#include "lib/report/graph_args.h"
#include "lib/report/report_text_internal.h"

static const struct {
	const char *name;
	uint32_t flag;
} report_options[] = {
    {"funcgraph-cpu", UTRACE_REPORT_CPU},	    {"funcgraph-overhead", UTRACE_REPORT_OVERHEAD},
    {"funcgraph-duration", UTRACE_REPORT_DURATION}, {"funcgraph-proc", UTRACE_REPORT_PROC},
    {"funcgraph-abstime", UTRACE_REPORT_ABSTIME},   {"funcgraph-tail", UTRACE_REPORT_TAIL},
    {"print-parent", UTRACE_REPORT_PARENT},
    {"funcgraph-retval-hex", UTRACE_REPORT_RETVAL_HEX},
    {"utrace-own", UTRACE_REPORT_OWN},
};

void utrace_report_opts_init(struct utrace_report_opts *o)
{
	o->flags = UTRACE_REPORT_DEFAULT_FLAGS;
	o->tracer = NULL;
	o->filter = NULL;
	o->nsecs = 0;
}

int utrace_report_set_option(struct utrace_report_opts *o, const char *name,
			     struct utrace_error *err)
{
	int clear = !strncmp(name, "no", 2);
	const char *n = clear ? name + 2 : name;

	for (size_t i = 0; i < sizeof(report_options) / sizeof(report_options[0]); i++) {
		if (strcmp(n, report_options[i].name))
			continue;
		if (clear)
			o->flags &= ~report_options[i].flag;
		else
			o->flags |= report_options[i].flag;
		return 0;
	}
	return utrace_error_set(err, -EINVAL, "unknown option '%s' (options: %s)", name,
				utrace_report_option_names());
}

const char *utrace_report_option_names(void)
{
	return "funcgraph-cpu funcgraph-overhead funcgraph-duration funcgraph-proc "
	       "funcgraph-abstime funcgraph-tail print-parent funcgraph-retval-hex utrace-own";
}

static void count_lost(struct printer *p, const struct utrace_event *ev)
{
	if (!p->sum)
		return;
	if (ev->flags & UTRACE_EVF_LOST_UNKNOWN) {
		p->sum->lost_unknown++;
	} else {
		p->sum->lost += ev->lost;
		if (ev->buf < p->sum->nr_bufs)
			p->sum->buf_lost[ev->buf] += ev->lost;
	}
}

static int iter_fail(struct utrace_dat_iter *it, int ret)
{
	utrace_dat_iter_close(it);
	return ret;
}

static void take_warnings(struct printer *p, const struct utrace_dat_iter *it)
{
	if (p->sum)
		p->sum->own = utrace_dat_iter_own(it);
	if (!p->sum || !utrace_dat_iter_warnings(it))
		return;
	p->sum->warnings = utrace_dat_iter_warnings(it);
	p->sum->unread = utrace_dat_iter_unread(it, &p->sum->unread_unknown);
	snprintf(p->sum->warning, sizeof(p->sum->warning), "%s", utrace_dat_iter_warning(it));
}

/* Opens an iterator for one pass over the (filtered) events. */
static int begin_pass(struct printer *p, struct utrace_dat_iter **it, struct utrace_error *err)
{
	return utrace_report_filter_iter_open(p->filter, p->d, it, err);
}

/*
 * The printing pass: every (filtered) event in time order, losses
 * counted and printed here, the others handed to put; the iterator's
 * warnings go to the summary.
 */
static int print_pass(struct printer *p, void (*put)(struct printer *, const struct utrace_event *),
		      struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	const struct utrace_event *e;
	int ret = begin_pass(p, &it, err);

	if (ret < 0)
		return ret;
	while ((ret = utrace_report_filter_next_ref(p->filter, it, &ev, &e, err)) > 0) {
		if (e->kind == UTRACE_EV_LOST) {
			count_lost(p, e);
			rtext_print_lost(p, e);
			continue;
		}
		put(p, e);
	}
	if (ret < 0)
		return iter_fail(it, ret);
	take_warnings(p, it);
	utrace_dat_iter_close(it);
	return 0;
}

static int print_graph(struct printer *p, struct utrace_error *err)
{
	struct utrace_sched_span sp;
	uint32_t f = p->flags;
	int ret;

	utrace_out_puts(p->out, "# tracer: function_graph\n#\n");
	/* __print_graph_headers_flags() */
	fprintf(p->out, "#%s%s%s%s               FUNCTION CALLS\n",
		!(f & UTRACE_REPORT_ABSTIME) ? ""
		: p->nsecs		     ? "     TIME          "
					     : "     TIME       ",
		f & UTRACE_REPORT_CPU ? " CPU" : "",
		f & UTRACE_REPORT_PROC ? "  TASK/PID       " : "",
		f & UTRACE_REPORT_DURATION ? "  DURATION   " : "");
	fprintf(p->out, "#%s%s%s%s               |   |   |   |\n",
		!(f & UTRACE_REPORT_ABSTIME) ? ""
		: p->nsecs		     ? "      |            "
					     : "      |         ",
		f & UTRACE_REPORT_CPU ? " |  " : "",
		f & UTRACE_REPORT_PROC ? "   |    |        " : "",
		f & UTRACE_REPORT_DURATION ? "   |   |      " : "");

	if (utrace_report_sched_new(p->d, &p->sched) < 0)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(p->d));
	ret = print_pass(p, rtext_put_graph_event, err);
	while (ret == 0 && utrace_report_sched_left(p->sched, &sp))
		rtext_print_sched_span(p, &sp);
	utrace_report_sched_free(p->sched);
	p->sched = NULL;
	return ret;
}

static int print_function(struct printer *p, const char *tracer, struct utrace_error *err)
{
	unsigned nr_bufs = utrace_dat_buffer_count(p->d);
	uint64_t entries = 0, written = 0, *per_buf;
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	unsigned ncpus = utrace_dat_nr_cpus(p->d);
	int ret;

	p->nofunc = !strcmp(tracer, "nop");
	/* first pass: the header counts entries and cpus */
	per_buf = calloc(nr_bufs ? nr_bufs : 1, sizeof(*per_buf));
	if (!per_buf)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(p->d));
	ret = begin_pass(p, &it, err);
	if (ret < 0) {
		free(per_buf);
		return ret;
	}
	while ((ret = utrace_report_filter_next(p->filter, it, &ev, err)) > 0) {
		if (!rtext_printed_by_function(p, &ev))
			continue;
		entries++;
		per_buf[ev.buf]++;
		if (!utrace_dat_meta(p->d, "nr_cpus") && ev.cpu + 1 > ncpus)
			ncpus = ev.cpu + 1;
	}
	utrace_dat_iter_close(it);
	if (ret < 0) {
		free(per_buf);
		return ret;
	}
	for (unsigned i = 0; i < nr_bufs; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, i);

		if (!utrace_report_filter_thread(p->filter, p->d, i))
			continue;
		written += bi->has_stats && bi->written > per_buf[i] ? bi->written : per_buf[i];
	}
	free(per_buf);

	/* print_func_help_header_irq(), without the irq legend */
	fprintf(p->out, "# tracer: %s\n#\n", tracer);
	fprintf(p->out, "# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%u\n#\n",
		entries, written, ncpus);
	utrace_out_puts(p->out, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
	utrace_out_puts(p->out, "#              | |         |   |||||     |         |\n");

	return print_pass(p, rtext_put_function_event, err);
}

int utrace_report_print(struct utrace_dat *d, FILE *out, const struct utrace_report_opts *opts,
			struct utrace_report_summary *sum, struct utrace_error *err)
{
	const char *tracer = opts->tracer ? opts->tracer : utrace_dat_meta(d, "tracer");
	struct printer p;
	unsigned ncpus = utrace_dat_nr_cpus(d);
	int ret, locking;

	memset(&p, 0, sizeof(p));
	p.d = d;
	p.out = out;
	p.flags = opts->flags;
	p.sum = sum;
	p.filter = opts->filter;
	p.nsecs = opts->nsecs;
	p.cpu_width = snprintf(NULL, 0, "%u", ncpus ? ncpus - 1 : 0);
	utrace_dat_show_own(d, opts->flags & UTRACE_REPORT_OWN);
	if (utrace_dat_event_format_count(d) && utrace_event_printer_new(d, &p.evp, err) < 0)
		return err->code;
	if (sum) {
		memset(sum, 0, sizeof(*sum));
		sum->nr_bufs = utrace_dat_buffer_count(d);
		sum->buf_lost = calloc(sum->nr_bufs ? sum->nr_bufs : 1, sizeof(*sum->buf_lost));
		if (!sum->buf_lost)
			return utrace_error_set(err, -ENOMEM, "%s: out of memory",
						utrace_dat_path(d));
	}
	if (!tracer)
		tracer = "function_graph";
	/* one thread writes out, in hundreds of small pieces a line: stdio's
	 * lock and unlock around each were a tenth of the pass */
	locking = __fsetlocking(out, FSETLOCKING_BYCALLER);
	if (!strcmp(tracer, "function") || !strcmp(tracer, "nop"))
		ret = print_function(&p, tracer, err);
	else if (!strcmp(tracer, "function_graph")) {
		p.args = utrace_graph_args_new(d); /* NULL: the registers untyped */
		ret = print_graph(&p, err);
		utrace_graph_args_free(p.args);
	} else
		ret = utrace_error_set(err, -EINVAL, "%s: unknown tracer '%s'", utrace_dat_path(d),
				       tracer);
	__fsetlocking(out, locking);
	free(p.last_buf);
	utrace_event_printer_free(p.evp);
	if (ret == 0 && (fflush(out) == EOF || ferror(out)))
		ret = utrace_error_set(err, -EIO, "%s: writing the report: %s", utrace_dat_path(d),
				       strerror(errno));
	return ret;
}

void utrace_report_summary_free(struct utrace_report_summary *sum)
{
	if (!sum)
		return;
	free(sum->buf_lost);
	sum->buf_lost = NULL;
	sum->nr_bufs = 0;
}
