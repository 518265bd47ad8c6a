/* SPDX-License-Identifier: MIT */
/*
 * report_text_graph.c - function_graph's lines as the kernel's
 * trace_functions_graph.c prints them: the cpu, task and duration columns
 * with the overhead marks, the indentation, the banner when the task on a
 * cpu changes, entries, leaves, returns and comments, and the off-CPU
 * spans of report_sched.c as leaves.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/base/grow.h"
#include "lib/report/graph_args.h"
#include "lib/report/report_stack.h"
#include "lib/report/report_text_internal.h"

#define TRACE_GRAPH_INDENT 2
#define TRACE_GRAPH_PROCINFO_LENGTH 14

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

/* A demangled C++ name carries its parameter list ("ns::A::f(int)"): it
 * gets no second pair of parentheses, as uftrace's --demangle=full prints
 * it ("ns::A::f(int);").  The name's last byte tells. */
static const char *graph_parens(const char *name)
{
	size_t n = strlen(name);

	return n && name[n - 1] == ')' ? "" : "()";
}

/* print_graph_entry_nested(): "func() {", or with its arguments */
static void print_graph_entry_nested(struct printer *p, const struct utrace_event *ev)
{
	const char *name = rtext_func_name(p, ev);
	char text[1024];

	graph_prologue(p, ev);
	print_graph_duration(p, 0, FILL_FULL);
	put_spaces(p->out, graph_indent(ev->depth));
	put_name(p, name);
	if (!ev->has_args) { /* the common case: no formatting at all */
		utrace_out_puts(p->out, graph_parens(name));
		utrace_out_puts(p->out, " {\n");
		return;
	}
	utrace_graph_args_format(p->args, ev, text, sizeof(text));
	fprintf(p->out, "%s {\n", text);
}

/* print_graph_entry_leaf(): "func();" with its duration, arguments and
 * return value */
static void print_graph_entry_leaf(struct printer *p, const struct utrace_event *ev)
{
	const char *name = rtext_func_name(p, ev);
	char text[1024], ret[96];

	graph_prologue(p, ev);
	print_graph_duration(p, ev->duration, FILL_NONE);
	put_spaces(p->out, graph_indent(ev->depth));
	put_name(p, name);
	if (!ev->has_args && !ev->has_retval) {
		utrace_out_puts(p->out, graph_parens(name));
		utrace_out_puts(p->out, ";\n");
		return;
	}
	utrace_graph_args_format(p->args, ev, text, sizeof(text));
	utrace_graph_retval_format(p->args, ev, p->flags & UTRACE_REPORT_RETVAL_HEX, ret,
				   sizeof(ret));
	fprintf(p->out, "%s;%s%s%s\n", text, ret[0] ? " /*" : "", ret, ret[0] ? " */" : "");
}

/* print_graph_return(): "}", named when its entry was not printed */
static void print_graph_return(struct printer *p, const struct utrace_event *ev)
{
	char ret[96];

	graph_prologue(p, ev);
	print_graph_duration(p, ev->duration,
			     ev->flags & UTRACE_EVF_NO_DURATION ? FILL_FULL : FILL_NONE);
	put_spaces(p->out, graph_indent(ev->depth));
	if (ev->has_retval && !(ev->flags & UTRACE_EVF_NO_ID)) {
		/* print_graph_retval(): always the name, then the value */
		utrace_graph_retval_format(p->args, ev, p->flags & UTRACE_REPORT_RETVAL_HEX, ret,
					   sizeof(ret));
		fprintf(p->out, "} /* %s%s */\n", rtext_func_name(p, ev), ret);
	} else if (ev->flags & UTRACE_EVF_NO_ID)
		utrace_out_puts(p->out, "}\n");
	else if ((ev->flags & UTRACE_EVF_NO_ENTRY) || (p->flags & UTRACE_REPORT_TAIL))
		fprintf(p->out, "} /* %s */\n", rtext_func_name(p, ev));
	else
		utrace_out_puts(p->out, "}\n");
}

/* print_graph_comment(): an event at the depth the thread is at */
static void print_graph_comment(struct printer *p, const struct utrace_event *ev)
{
	graph_prologue(p, ev);
	print_graph_duration(p, 0, FILL_FULL);
	put_spaces(p->out, graph_indent(ev->depth));
	if (ev->kind == UTRACE_EV_STACK) {
		utrace_out_puts(p->out, "/* ");
		utrace_report_print_stack(p->out, p->d, ev, true);
	} else {
		rtext_print_event_text(p, ev, true);
	}
}

static void print_graph_event(struct printer *p, const struct utrace_event *ev)
{
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		print_graph_entry_nested(p, ev);
		break;
	case UTRACE_EV_LEAF:
		print_graph_entry_leaf(p, ev);
		break;
	case UTRACE_EV_EXIT:
		print_graph_return(p, ev);
		break;
	case UTRACE_EV_FUNC:
		/* the kernel prints other events in their own format */
		rtext_print_fn_line(p, ev);
		break;
	case UTRACE_EV_EVENT:
	case UTRACE_EV_PRINT:
	case UTRACE_EV_STACK:
	case UTRACE_EV_SIGNAL:
		print_graph_comment(p, ev);
		break;
	}
}

/* uftrace's line for the time a thread was switched out, a leaf of the
 * call that was running (report_sched.c); no duration if it never ended */
void rtext_print_sched_span(struct printer *p, const struct utrace_sched_span *sp)
{
	struct utrace_event ev = {.kind = UTRACE_EV_LEAF, .ts = sp->ts, .buf = sp->buf,
				  .cpu = sp->cpu, .depth = sp->depth, .tid = sp->tid};

	graph_prologue(p, &ev);
	print_graph_duration(p, sp->dur, sp->ended ? FILL_NONE : FILL_FULL);
	put_spaces(p->out, graph_indent(sp->depth));
	put_name(p, UTRACE_SCHED_NAME);
	fputs("();\n", p->out);
}

void rtext_put_graph_event(struct printer *p, const struct utrace_event *ev)
{
	struct utrace_sched_span sp;

	if (p->sched) { /* only with sched_switch: nothing per event else */
		while (utrace_report_sched_end(p->sched, ev, true, &sp))
			rtext_print_sched_span(p, &sp);
		utrace_report_sched_begin(p->sched, ev); /* still printed: its text */
	}
	if (p->sum)
		p->sum->events++;
	print_graph_event(p, ev);
	while (p->sched && utrace_report_sched_end(p->sched, ev, false, &sp))
		rtext_print_sched_span(p, &sp);
}
