/* SPDX-License-Identifier: MIT */
/*
 * report_text_output.c - the text report's lines in the format of the
 * kernel's trace_output.c: the context columns ("comm-tid [cpu] .....
 * seconds.usecs: "), the function tracer's line, an event's text and lost
 * events; report_text.c's function tracer pass prints through these, and
 * function_graph (report_text_graph.c) for what it shows as the function
 * tracer does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/report/event_print.h"
#include "lib/report/report_signal.h"
#include "lib/report/report_stack.h"
#include "lib/report/report_text_internal.h"

const char *rtext_func_name(struct printer *p, const struct utrace_event *ev)
{
	return utrace_dat_func_name(p->d, ev->image, ev->id);
}

void rtext_print_lost(struct printer *p, const struct utrace_event *ev)
{
	const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, ev->buf);

	if (ev->flags & UTRACE_EVF_LOST_UNKNOWN)
		fprintf(p->out, "CPU:%u [LOST EVENTS] in %s-%d\n", ev->cpu, bi->comm, bi->tid);
	else
		fprintf(p->out, "CPU:%u [LOST %" PRIu64 " EVENTS] in %s-%d\n", ev->cpu, ev->lost,
			bi->comm, bi->tid);
}

/* trace_print_context(): "comm-tid [cpu] ..... seconds.usecs: " */
void rtext_print_context(struct printer *p, const struct utrace_event *ev)
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
void rtext_print_fn_line(struct printer *p, const struct utrace_event *ev)
{
	rtext_print_context(p, ev);
	utrace_out_puts(p->out, rtext_func_name(p, ev));
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
void rtext_print_event_text(struct printer *p, const struct utrace_event *ev, bool graph)
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

int rtext_printed_by_function(const struct printer *p, const struct utrace_event *ev)
{
	if (ev->kind == UTRACE_EV_FUNC || ev->kind == UTRACE_EV_ENTRY || ev->kind == UTRACE_EV_LEAF)
		return !p->nofunc;
	return ev->kind == UTRACE_EV_EVENT || ev->kind == UTRACE_EV_PRINT ||
	       ev->kind == UTRACE_EV_STACK || ev->kind == UTRACE_EV_SIGNAL;
}

void rtext_put_function_event(struct printer *p, const struct utrace_event *ev)
{
	if (!rtext_printed_by_function(p, ev))
		return;
	if (p->sum)
		p->sum->events++;
	if (ev->kind == UTRACE_EV_EVENT || ev->kind == UTRACE_EV_PRINT ||
	    ev->kind == UTRACE_EV_SIGNAL) {
		rtext_print_context(p, ev);
		rtext_print_event_text(p, ev, false);
	} else if (ev->kind == UTRACE_EV_STACK) {
		rtext_print_context(p, ev);
		utrace_report_print_stack(p->out, p->d, ev, false);
	} else {
		rtext_print_fn_line(p, ev);
	}
}
