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
 * the file twice; function_graph streams in one pass.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/base/grow.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_sched.h"
#include "lib/report/event_print.h"
#include "lib/report/graph_args.h"
#include "lib/report/report_signal.h"
#include "lib/report/report_stack.h"
#include "lib/report/report_text.h"

#define TRACE_GRAPH_INDENT 2
#define TRACE_GRAPH_PROCINFO_LENGTH 14
#define NO_TASK UINT32_MAX

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

static void put_spaces(FILE *out, size_t n)
{
	static char spaces[4096];

	if (!spaces[0])
		memset(spaces, ' ', sizeof(spaces));
	while (n) {
		size_t k = n < sizeof(spaces) ? n : sizeof(spaces);

		utrace_out_write(out, spaces, k);
		n -= k;
	}
}

/*
 * Indentation of a function_graph line.  The kernel never nests deeper
 * than its return stack (a few dozen levels); a user program can be
 * 100000 calls deep, and 2 spaces a level would make that report grow
 * with the square of the depth.  Past GRAPH_MAX_INDENT levels the lines
 * keep the same indentation (the braces still balance).
 */
#define GRAPH_MAX_INDENT 100

static size_t graph_indent(uint32_t depth)
{
	return (size_t)(depth < GRAPH_MAX_INDENT ? depth : GRAPH_MAX_INDENT) * TRACE_GRAPH_INDENT;
}

/* trace_find_mark() */
static char find_mark(uint64_t d)
{
	static const struct {
		uint64_t val;
		char sym;
	} mark[] = {
	    {1000000000ULL, '$'}, {100000000ULL, '@'}, {10000000ULL, '*'},
	    {1000000ULL, '#'},	  {100000ULL, '!'},    {10000ULL, '+'},
	};

	for (size_t i = 0; i < sizeof(mark) / sizeof(mark[0]); i++)
		if (d > mark[i].val)
			return mark[i].sym;
	return ' ';
}

/* Decimal digits of v into buf (no NUL); returns their number.  The
 * report prints millions of lines: printf's format parsing was most of
 * its time. */
static int utoa(char *buf, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* trace_print_graph_duration(): "usecs.nsecs us " padded to 8 + 4 */
static void print_duration_value(FILE *out, uint64_t duration)
{
	char usecs[24], nsecs[4];
	unsigned long nsecs_rem = (unsigned long)(duration % 1000);
	int len = utoa(usecs, duration / 1000);

	utrace_out_write(out, usecs, (size_t)len);
	if (len < 7) {
		/* at most 7 digits in all: the nsecs are cut, not rounded */
		int keep = 8 - len < 5 ? 8 - len - 1 : 3;

		nsecs[0] = (char)('0' + nsecs_rem / 100);
		nsecs[1] = (char)('0' + nsecs_rem / 10 % 10);
		nsecs[2] = (char)('0' + nsecs_rem % 10);
		utrace_out_putc(out, '.');
		utrace_out_write(out, nsecs, (size_t)keep);
		len += keep + 1;
	}
	utrace_out_puts(out, " us ");
	if (len < 8)
		put_spaces(out, (size_t)(8 - len));
}

enum fill { FILL_NONE, FILL_FULL };

/* The ANSI colour of a mark (UTRACE_REPORT_COLOR), "" for none. */
static const char *mark_color(char mark)
{
	switch (mark) {
	case '+':
	case '!':
		return "\033[33m";
	case '#':
	case '*':
		return "\033[31m";
	case '@':
	case '$':
		return "\033[1;35m";
	default:
		return "";
	}
}

const char *utrace_report_duration_color(uint64_t ns)
{
	return mark_color(find_mark(ns));
}

/* A function's name, bold with --color. */
static void put_name(struct printer *p, const char *name)
{
	if (!(p->flags & UTRACE_REPORT_COLOR)) {
		utrace_out_puts(p->out, name);
		return;
	}
	utrace_out_puts(p->out, "\033[1m");
	utrace_out_puts(p->out, name);
	utrace_out_puts(p->out, "\033[0m");
}

/* print_graph_duration() */
static void print_graph_duration(struct printer *p, uint64_t duration, enum fill fill)
{
	const char *color = "";

	if (!(p->flags & UTRACE_REPORT_DURATION))
		return;
	if (fill == FILL_FULL) {
		utrace_out_puts(p->out, "              |  ");
		return;
	}

	if (p->flags & UTRACE_REPORT_OVERHEAD) {
		char mark = find_mark(duration);

		if (p->flags & UTRACE_REPORT_COLOR)
			utrace_out_puts(p->out, color = mark_color(mark));
		utrace_out_putc(p->out, mark);
		utrace_out_putc(p->out, ' ');
	} else {
		utrace_out_puts(p->out, "  ");
	}
	print_duration_value(p->out, duration);
	if (*color)
		utrace_out_puts(p->out, "\033[0m");
	utrace_out_puts(p->out, "|  ");
}

/* " %*u) ": the cpu right-aligned in cpu_width columns */
static void print_graph_cpu(struct printer *p, uint32_t cpu)
{
	char buf[32];
	int n = utoa(buf + 16, cpu), pad = p->cpu_width > n ? p->cpu_width - n : 0;

	utrace_out_putc(p->out, ' ');
	put_spaces(p->out, (size_t)pad);
	utrace_out_write(p->out, buf + 16, (size_t)n);
	utrace_out_puts(p->out, ") ");
}

/* print_graph_proc(): "comm-pid" centred in 14 columns, comm cut at 7 */
static void print_graph_proc(struct printer *p, uint32_t buf)
{
	const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, buf);
	char comm[8], pid[12];
	int len, spaces = 0;

	/* the kernel cuts comm at 7 characters here */
	memcpy(comm, bi->comm, sizeof(comm) - 1);
	comm[sizeof(comm) - 1] = '\0';
	snprintf(pid, sizeof(pid), "%d", bi->tid);
	len = (int)(strlen(comm) + strlen(pid) + 1);
	if (len < TRACE_GRAPH_PROCINFO_LENGTH)
		spaces = TRACE_GRAPH_PROCINFO_LENGTH - len;
	put_spaces(p->out, (size_t)(spaces / 2));
	fprintf(p->out, "%s-%s", comm, pid);
	put_spaces(p->out, (size_t)(spaces - spaces / 2));
}

/* verif_pid(): a banner when the task on a cpu changes */
static void verif_task(struct printer *p, const struct utrace_event *ev)
{
	uint32_t prev;

	if (ev->cpu >= p->nr_last) {
		size_t old = p->nr_last;

		if (UTRACE_GROW(p->last_buf, p->nr_last, (size_t)ev->cpu + 1) < 0)
			return;
		for (size_t i = old; i < p->nr_last; i++)
			p->last_buf[i] = NO_TASK;
	}
	prev = p->last_buf[ev->cpu];
	p->last_buf[ev->cpu] = ev->buf;
	if (prev == NO_TASK || prev == ev->buf || utrace_dat_buffer_get(p->d, prev)->tid == ev->tid)
		return;
	utrace_out_puts(p->out, " ------------------------------------------\n");
	print_graph_cpu(p, ev->cpu);
	print_graph_proc(p, prev);
	utrace_out_puts(p->out, " => ");
	print_graph_proc(p, ev->buf);
	utrace_out_puts(p->out, "\n ------------------------------------------\n\n");
}

/* print_graph_prologue() */
static void graph_prologue(struct printer *p, const struct utrace_event *ev)
{
	uint64_t ts = p->flags & UTRACE_REPORT_CLOCK_TSC ? ev->tsc : ev->ts;

	verif_task(p, ev);
	if ((p->flags & UTRACE_REPORT_ABSTIME) && p->nsecs)
		fprintf(p->out, "%5" PRIu64 ".%09" PRIu64 " |  ", ts / 1000000000u,
			ts % 1000000000u);
	else if (p->flags & UTRACE_REPORT_ABSTIME)
		fprintf(p->out, "%5" PRIu64 ".%06" PRIu64 " |  ", ts / 1000000000u,
			ts % 1000000000u / 1000u);
	if (p->flags & UTRACE_REPORT_CPU)
		print_graph_cpu(p, ev->cpu);
	if (p->flags & UTRACE_REPORT_PROC) {
		print_graph_proc(p, ev->buf);
		utrace_out_puts(p->out, " | ");
	}
}

static const char *func_name(struct printer *p, const struct utrace_event *ev)
{
	return utrace_dat_func_name(p->d, ev->image, ev->id);
}

static void print_lost(struct printer *p, const struct utrace_event *ev)
{
	const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, ev->buf);

	if (ev->flags & UTRACE_EVF_LOST_UNKNOWN)
		fprintf(p->out, "CPU:%u [LOST EVENTS] in %s-%d\n", ev->cpu, bi->comm, bi->tid);
	else
		fprintf(p->out, "CPU:%u [LOST %" PRIu64 " EVENTS] in %s-%d\n", ev->cpu, ev->lost,
			bi->comm, bi->tid);
}

/* trace_print_context(): "comm-tid [cpu] ..... seconds.usecs: " */
static void print_context(struct printer *p, const struct utrace_event *ev)
{
	const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, ev->buf);
	uint64_t usecs = (ev->ts + 500) / 1000; /* ns2usecs() rounds */
	char lat[6];

	utrace_event_lat_fmt(ev, lat);
	if (p->flags & UTRACE_REPORT_CLOCK_TSC) /* trace_print_time: not in ns */
		fprintf(p->out, "%16s-%-7d [%03u] %s %12" PRIu64 ": ", bi->comm, bi->tid, ev->cpu,
			lat, ev->tsc);
	else if (p->nsecs)
		fprintf(p->out, "%16s-%-7d [%03u] %s %5" PRIu64 ".%09" PRIu64 ": ", bi->comm,
			bi->tid, ev->cpu, lat, ev->ts / 1000000000u, ev->ts % 1000000000u);
	else
		fprintf(p->out, "%16s-%-7d [%03u] %s %5" PRIu64 ".%06" PRIu64 ": ", bi->comm,
			bi->tid, ev->cpu, lat, usecs / 1000000, usecs % 1000000);
}

/* print_fn_trace() */
static void print_fn_line(struct printer *p, const struct utrace_event *ev)
{
	print_context(p, ev);
	utrace_out_puts(p->out, func_name(p, ev));
	if ((p->flags & UTRACE_REPORT_PARENT) && ev->kind == UTRACE_EV_FUNC && ev->parent_ip) {
		const char *parent = utrace_dat_addr_name(p->d, ev->image, ev->parent_ip, NULL);

		if (parent)
			fprintf(p->out, " <-%s", parent);
		else
			fprintf(p->out, " <-0x%" PRIx64, ev->parent_ip);
	}
	utrace_out_putc(p->out, '\n');
}

/*
 * A tracepoint record as the kernel prints an event: "name: TP_printk
 * output"; a utrace_printf text as trace_marker's "tracing_mark_write:
 * text".  In function_graph the kernel shows both as comments.
 */
static void print_event_text(struct printer *p, const struct utrace_event *ev, bool graph)
{
	const char *name;
	char sig[256];

	if (ev->kind == UTRACE_EV_SIGNAL) { /* where a crash signal came (runtime/crash.c) */
		utrace_report_signal_text(p->d, ev, sig, sizeof(sig));
		fprintf(p->out, "%ssignal: %s%s\n", graph ? "/* " : "", sig, graph ? " */" : "");
		return;
	}
	if (ev->kind == UTRACE_EV_PRINT) {
		int len = (int)strnlen(ev->data, ev->data_len);

		if (graph)
			fprintf(p->out, "/* %.*s */\n", len, (const char *)ev->data);
		else
			fprintf(p->out, "tracing_mark_write: %.*s\n", len, (const char *)ev->data);
		return;
	}
	name = p->evp ? utrace_event_printer_name(p->evp, (int)ev->id) : NULL;
	if (p->evp)
		utrace_event_printer_set_image(p->evp, ev->image);
	fprintf(p->out, "%s%s: %s%s\n", graph ? "/* " : "", name ? name : "unknown_event",
		p->evp ? utrace_event_printer_render(p->evp, (int)ev->id, ev->tid, ev->data,
						     ev->data_len)
		       : "",
		graph ? " */" : "");
}

static void print_graph_event(struct printer *p, const struct utrace_event *ev)
{
	char text[1024], ret[96];

	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		graph_prologue(p, ev);
		print_graph_duration(p, 0, FILL_FULL);
		put_spaces(p->out, graph_indent(ev->depth));
		put_name(p, func_name(p, ev));
		if (!ev->has_args) { /* the common case: no formatting at all */
			utrace_out_puts(p->out, "() {\n");
			break;
		}
		utrace_graph_args_format(p->args, ev, text, sizeof(text));
		fprintf(p->out, "%s {\n", text);
		break;
	case UTRACE_EV_LEAF:
		graph_prologue(p, ev);
		print_graph_duration(p, ev->duration, FILL_NONE);
		put_spaces(p->out, graph_indent(ev->depth));
		put_name(p, func_name(p, ev));
		if (!ev->has_args && !ev->has_retval) {
			utrace_out_puts(p->out, "();\n");
			break;
		}
		utrace_graph_args_format(p->args, ev, text, sizeof(text));
		utrace_graph_retval_format(p->args, ev, p->flags & UTRACE_REPORT_RETVAL_HEX, ret,
					   sizeof(ret));
		fprintf(p->out, "%s;%s%s%s\n", text, ret[0] ? " /*" : "", ret, ret[0] ? " */" : "");
		break;
	case UTRACE_EV_EXIT:
		graph_prologue(p, ev);
		print_graph_duration(p, ev->duration,
				     ev->flags & UTRACE_EVF_NO_DURATION ? FILL_FULL : FILL_NONE);
		put_spaces(p->out, graph_indent(ev->depth));
		if (ev->has_retval && !(ev->flags & UTRACE_EVF_NO_ID)) {
			/* print_graph_retval(): always the name, then the value */
			utrace_graph_retval_format(p->args, ev, p->flags & UTRACE_REPORT_RETVAL_HEX,
						   ret, sizeof(ret));
			fprintf(p->out, "} /* %s%s */\n", func_name(p, ev), ret);
		} else if (ev->flags & UTRACE_EVF_NO_ID)
			utrace_out_puts(p->out, "}\n");
		else if ((ev->flags & UTRACE_EVF_NO_ENTRY) || (p->flags & UTRACE_REPORT_TAIL))
			fprintf(p->out, "} /* %s */\n", func_name(p, ev));
		else
			utrace_out_puts(p->out, "}\n");
		break;
	case UTRACE_EV_FUNC:
		/* the kernel prints other events in their own format */
		print_fn_line(p, ev);
		break;
	case UTRACE_EV_EVENT:
	case UTRACE_EV_PRINT:
	case UTRACE_EV_STACK:
	case UTRACE_EV_SIGNAL:
		/* print_graph_comment(): at the depth the thread is at */
		graph_prologue(p, ev);
		print_graph_duration(p, 0, FILL_FULL);
		put_spaces(p->out, graph_indent(ev->depth));
		if (ev->kind == UTRACE_EV_STACK) {
			utrace_out_puts(p->out, "/* ");
			utrace_report_print_stack(p->out, p->d, ev, true);
		} else {
			print_event_text(p, ev, true);
		}
		break;
	}
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

/* uftrace's line for the time a thread was switched out, a leaf of the
 * call that was running (report_sched.c); no duration if it never ended */
static void print_sched_span(struct printer *p, const struct utrace_sched_span *sp)
{
	struct utrace_event ev = {.kind = UTRACE_EV_LEAF, .ts = sp->ts, .buf = sp->buf,
				  .cpu = sp->cpu, .depth = sp->depth, .tid = sp->tid};

	graph_prologue(p, &ev);
	print_graph_duration(p, sp->dur, sp->ended ? FILL_NONE : FILL_FULL);
	put_spaces(p->out, graph_indent(sp->depth));
	put_name(p, UTRACE_SCHED_NAME);
	fputs("();\n", p->out);
}

static void put_graph_event(struct printer *p, const struct utrace_event *ev)
{
	struct utrace_sched_span sp;

	if (p->sched) { /* only with sched_switch: nothing per event else */
		while (utrace_report_sched_end(p->sched, ev, true, &sp))
			print_sched_span(p, &sp);
		utrace_report_sched_begin(p->sched, ev); /* still printed: its text */
	}
	if (p->sum)
		p->sum->events++;
	print_graph_event(p, ev);
	while (p->sched && utrace_report_sched_end(p->sched, ev, false, &sp))
		print_sched_span(p, &sp);
}

static int printed_by_function(const struct printer *p, const struct utrace_event *ev)
{
	if (ev->kind == UTRACE_EV_FUNC || ev->kind == UTRACE_EV_ENTRY || ev->kind == UTRACE_EV_LEAF)
		return !p->nofunc;
	return ev->kind == UTRACE_EV_EVENT || ev->kind == UTRACE_EV_PRINT ||
	       ev->kind == UTRACE_EV_STACK || ev->kind == UTRACE_EV_SIGNAL;
}

static void put_function_event(struct printer *p, const struct utrace_event *ev)
{
	if (!printed_by_function(p, ev))
		return;
	if (p->sum)
		p->sum->events++;
	if (ev->kind == UTRACE_EV_EVENT || ev->kind == UTRACE_EV_PRINT ||
	    ev->kind == UTRACE_EV_SIGNAL) {
		print_context(p, ev);
		print_event_text(p, ev, false);
	} else if (ev->kind == UTRACE_EV_STACK) {
		print_context(p, ev);
		utrace_report_print_stack(p->out, p->d, ev, false);
	} else {
		print_fn_line(p, ev);
	}
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
			print_lost(p, e);
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
	ret = print_pass(p, put_graph_event, err);
	while (ret == 0 && utrace_report_sched_left(p->sched, &sp))
		print_sched_span(p, &sp);
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
		if (!printed_by_function(p, &ev))
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

	return print_pass(p, put_function_event, err);
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

static void stat_value(FILE *out, int known, uint64_t v, int width)
{
	if (known)
		fprintf(out, " %*" PRIu64, width, v);
	else
		fprintf(out, " %*s", width, "-");
}

bool utrace_report_many_threads(const struct utrace_dat *d, const struct utrace_report_filter *f)
{
	unsigned nb = utrace_dat_buffer_count(d);
	bool seen = false;
	int32_t first = 0;

	for (unsigned i = 0; i < nb; i++) {
		const struct utrace_dat_buffer_info *b = utrace_dat_buffer_get(d, i);

		if (!b || b->kernel || b->nest || !utrace_report_filter_thread(f, d, i))
			continue;
		if (seen && b->tid != first)
			return true;
		seen = true;
		first = b->tid;
	}
	return false;
}

int utrace_report_print_stat(struct utrace_dat *d, FILE *out,
			     const struct utrace_report_filter *filter, struct utrace_error *err)
{
	uint64_t written = 0, lost = 0, pages = 0, overrun = 0;
	unsigned n = utrace_dat_buffer_count(d), shown = 0, unknown = 0, nested = 0;

	fprintf(out, "# buffer statistics: one buffer per traced thread\n");
	fprintf(out, "# %22s %8s %12s %12s %8s %8s\n", "COMM-TID", "PID", "RECORDS", "LOST", "PAGES",
		"OVERRUN");
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);
		char name[40];

		if (!utrace_report_filter_thread(filter, d, i))
			continue;
		if (bi->kernel)
			continue; /* a task only kernel events name: it has no ring buffer */
		if (bi->nest) {
			nested++;
			snprintf(name, sizeof(name), "%s-%d/%u", bi->comm, bi->tid, bi->nest);
		} else {
			shown++;
			snprintf(name, sizeof(name), "%s-%d", bi->comm, bi->tid);
		}
		fprintf(out, "  %22s %8d", name, bi->pid);
		stat_value(out, bi->has_stats, bi->written, 12);
		stat_value(out, bi->has_stats, bi->lost, 12);
		/* pages saved: the recorder's count, or the PAGE records found */
		stat_value(out, 1, bi->has_stats ? bi->pages : bi->nr_pages, 8);
		stat_value(out, bi->has_stats, bi->overrun, 8);
		utrace_out_putc(out, '\n');
		if (!bi->has_stats)
			unknown++;
		written += bi->written;
		lost += bi->lost;
		pages += bi->has_stats ? bi->pages : bi->nr_pages;
		overrun += bi->overrun;
	}
	fprintf(out,
		"# total: %u thread%s, %" PRIu64 " records, %" PRIu64 " lost, %" PRIu64
		" page%s, %" PRIu64 " overrun\n",
		shown, shown == 1 ? "" : "s", written, lost, pages, pages == 1 ? "" : "s", overrun);
	if (nested)
		fprintf(out,
			"# COMM-TID/N: what signal handlers recorded while they interrupted the "
			"tracer (nested context N)\n");
	if (unknown)
		fprintf(out,
			"# %u buffer%s without statistics ('-': the recording did not finish)\n",
			unknown, unknown == 1 ? "" : "s");
	if (fflush(out) == EOF || ferror(out))
		return utrace_error_set(err, -EIO, "%s: writing the statistics: %s",
					utrace_dat_path(d), strerror(errno));
	return 0;
}
