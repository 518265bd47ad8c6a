/* SPDX-License-Identifier: MIT */
/*
 * live_ftrace.c - the files of events/ that describe the kernel's own
 * ring buffer and ftrace events, which readers of tracefs parse to size
 * and decode what they write and read (ftracetest's
 * 00basic/trace_marker.tc, libtraceevent, trace-cmd):
 *
 *   events/header_page          the sub-buffer's header, the kernel's
 *                               text (ring_buffer_print_page_header) with
 *                               utrace's layout: show_header_page
 *   events/header_event         the kernel's entry header
 *   events/ftrace/EVENT/format  the kernel's format of each of its ftrace
 *                               events (function, print, funcgraph_entry,
 *                               ...), as it prints them
 *   events/ftrace/EVENT/id      for function and print, the events the
 *                               kernel gives an id file (those it can
 *                               register)
 *
 *   events/ftrace/print/{trigger,hist}  trace_marker's triggers, run on
 *                               each write (the kernel's trace_marker_file;
 *                               runtime/trace_events.c rt_marker_write)
 *
 * The texts are lib/events/ftrace_formats.c's, shared with the trace.dat
 * that `utrace convert` writes.  As in the kernel, events/ftrace/ has no
 * enable or filter: these events follow the tracer and trace_marker.
 * The caller holds l->lock.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/rb_abi.h"
#include "lib/events/ftrace_formats.h"
#include "lib/tracefs/live_internal.h"

/*
 * The kernel's header_page says its sub-buffer (a 4 KiB page unless
 * buffer_subbuf_size_kb says more): u64 timestamp, local_t commit (8
 * bytes, its overwrite flag in the low byte), then the data, of the
 * sub-buffer's size less that header.  utrace's sub-buffer (common/
 * rb_abi.h struct utrace_subbuf) differs, so this says utrace's: a u64
 * timestamp, a u32 commit, no overwrite flag (lost records are counted
 * in the header, not flagged in commit), and the data after the whole
 * 32-byte header to the end of the sub-buffer buffer_subbuf_size_kb
 * says (16 KiB at first).  char is unsigned, as the kernel's (built
 * -funsigned-char) says.
 */
static int show_header_page(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_subbuf *s = NULL; /* for sizeof only */

	fprintf(out, "\tfield: u64 timestamp;\toffset:%zu;\tsize:%zu;\tsigned:0;\n",
		offsetof(struct utrace_subbuf, time_stamp), sizeof(s->time_stamp));
	fprintf(out, "\tfield: u32 commit;\toffset:%zu;\tsize:%zu;\tsigned:0;\n",
		offsetof(struct utrace_subbuf, commit), sizeof(s->commit));
	fprintf(out, "\tfield: char data;\toffset:%zu;\tsize:%zu;\tsigned:0;\n",
		sizeof(struct utrace_subbuf), (size_t)utrace_subbuf_data(live_subbuf_size(l)));
	return 0;
}

static int show_header_event(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fputs(utrace_ftrace_header_event, out);
	return 0;
}

static int show_format(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_ftrace_format *f = utrace_ftrace_format_find(h->ev);

	if (!f)
		return -ENOENT;
	fputs(f->text, out);
	return 0;
}

static int show_id(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_ftrace_format *f = utrace_ftrace_format_find(h->ev);

	if (!f || !f->has_id)
		return -ENOENT;
	fprintf(out, "%u\n", f->id);
	return 0;
}

#define RO 0444
static const struct live_file header_page = {
    "header_page", RO, show_header_page, NULL, NULL, NULL, 0, false};
static const struct live_file header_event = {
    "header_event", RO, show_header_event, NULL, NULL, NULL, 0, false};
static const struct live_file format_file = {"format", RO, show_format, NULL, NULL, NULL, 0, false};
static const struct live_file id_file = {"id", RO, show_id, NULL, NULL, NULL, 0, false};
static const struct live_file hist_file = {"hist", RO, live_show_hist, NULL, NULL, NULL, 0, false};
static const struct live_file trigger_file = {
    "trigger", 0644, live_show_trigger, live_open_trigger, live_write_trigger, NULL, 0, false};


/* events/ftrace/EVENT[/FILE], p after "ftrace/" */
static int resolve_event(const char *p, struct live_handle *h)
{
	const char *slash = strchr(p, '/');
	size_t n = slash ? (size_t)(slash - p) : strlen(p);
	const struct utrace_ftrace_format *f;

	if (!n || n >= sizeof(h->ev))
		return -ENOENT;
	memcpy(h->ev, p, n);
	h->ev[n] = 0;
	if (!(f = utrace_ftrace_format_find(h->ev)))
		return -ENOENT;
	if (!slash || !slash[1]) {
		h->dir = LIVE_DIR_FTRACE_EVENT;
		return 1;
	}
	if (!strcmp(slash + 1, "format"))
		h->f = &format_file;
	else if (!strcmp(slash + 1, "id") && f->has_id)
		h->f = &id_file;
	else if (!strcmp(slash + 1, "trigger") && !strcmp(h->ev, "print"))
		h->f = &trigger_file;
	else if (!strcmp(slash + 1, "hist") && !strcmp(h->ev, "print"))
		h->f = &hist_file;
	else
		return -ENOENT;
	return 1;
}

int live_ftrace_resolve(const char *p, struct live_handle *h)
{
	if (!strcmp(p, "header_page")) {
		h->f = &header_page;
		return 1;
	}
	if (!strcmp(p, "header_event")) {
		h->f = &header_event;
		return 1;
	}
	if (strcmp(p, "ftrace") && strncmp(p, "ftrace/", 7))
		return 0;
	strcpy(h->sys, "ftrace");
	if (!p[6] || !p[7]) {
		h->dir = LIVE_DIR_FTRACE;
		return 1;
	}
	return resolve_event(p + 7, h);
}

void live_ftrace_names(const struct live_handle *h, void (*fill)(void *arg, const char *name),
		       void *arg)
{
	const struct utrace_ftrace_format *f;

	switch (h->dir) {
	case LIVE_DIR_EVENTS:
		fill(arg, "header_page");
		fill(arg, "header_event");
		fill(arg, "ftrace");
		break;
	case LIVE_DIR_FTRACE:
		for (size_t i = 0; (f = utrace_ftrace_format_get(i)); i++)
			fill(arg, f->name);
		break;
	case LIVE_DIR_FTRACE_EVENT:
		fill(arg, "format");
		if ((f = utrace_ftrace_format_find(h->ev)) && f->has_id)
			fill(arg, "id");
		if (!strcmp(h->ev, "print")) {
			fill(arg, "hist");
			fill(arg, "trigger");
		}
		break;
	}
}
