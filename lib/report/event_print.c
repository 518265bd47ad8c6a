/* SPDX-License-Identifier: MIT */
/*
 * event_print.c - renders static tracepoint records with their TP_printk,
 * the way trace-cmd does: the format texts saved in the trace file are
 * parsed by libtraceevent, and each record (the kernel's 8 bytes of common
 * fields put back in front) is printed with tep_print_event.  So "%s",
 * "%pS", __get_str(), __print_flags() and __print_symbolic() mean exactly
 * what they mean for kernel events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "lib/report/event_print.h"

struct utrace_event_printer {
	struct tep_handle *tep;
	uint8_t *rec;
	size_t cap;
	struct trace_seq seq;
};

int utrace_event_printer_new(struct utrace_dat *d, struct utrace_event_printer **out,
			     struct utrace_error *err)
{
	struct utrace_event_printer *p = calloc(1, sizeof(*p));

	if (!p || !(p->tep = tep_alloc())) {
		free(p);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	tep_set_long_size(p->tep, sizeof(long));
	tep_set_file_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	trace_seq_init(&p->seq);
	for (unsigned i = 0; i < utrace_dat_event_format_count(d); i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(d, i, &id, &sys);
		/* a format libtraceevent cannot parse prints raw (see below) */
		if (text)
			tep_parse_event(p->tep, text, strlen(text), sys);
	}
	*out = p;
	return 0;
}

void utrace_event_printer_free(struct utrace_event_printer *p)
{
	if (!p)
		return;
	trace_seq_destroy(&p->seq);
	tep_free(p->tep);
	free(p->rec);
	free(p);
}

const char *utrace_event_printer_name(struct utrace_event_printer *p, int id)
{
	struct tep_event *ev = tep_find_event(p->tep, id);

	return ev ? ev->name : NULL;
}

const char *utrace_event_printer_render(struct utrace_event_printer *p, int id, int pid,
					const void *data, uint32_t len)
{
	struct tep_record rec = {0};
	struct tep_event *ev = tep_find_event(p->tep, id);
	uint16_t type = (uint16_t)id;

	trace_seq_reset(&p->seq);
	if (!ev) {
		trace_seq_printf(&p->seq, "[unknown event %d: %u bytes]", id, len);
		goto out;
	}
	if (len + 8 > p->cap) {
		uint8_t *n = realloc(p->rec, len + 8);

		if (!n) {
			trace_seq_puts(&p->seq, "[out of memory]");
			goto out;
		}
		p->rec = n;
		p->cap = len + 8;
	}
	/* common_type, common_flags, common_preempt_count, common_pid */
	memcpy(p->rec, &type, 2);
	p->rec[2] = 0;
	p->rec[3] = 0;
	memcpy(p->rec + 4, &pid, 4);
	memcpy(p->rec + 8, data, len);
	rec.data = p->rec;
	rec.size = (int)(len + 8);
	tep_print_event(p->tep, &p->seq, &rec, "%s", TEP_PRINT_INFO);
out:
	trace_seq_terminate(&p->seq);
	return p->seq.buffer;
}
