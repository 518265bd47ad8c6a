/* SPDX-License-Identifier: MIT */
/*
 * kdump.c - prints the events of a utrace.dat, merged by time, one line
 * each, for tests/kernel/kevents.sh (built there against
 * libutrace-tool.a):
 *
 *   TS_NS CPU COMM-TID K|U NAME: TEXT      tracepoints (K: kernel, id < 32768)
 *   TS_NS CPU COMM-TID > FUNC              function entry
 *   TS_NS CPU COMM-TID < FUNC              function exit (LEAF: > then <)
 *   TS_NS CPU COMM-TID U print: TEXT       utrace_printf
 *   TS_NS CPU COMM-TID LOST N
 *
 * after a line "# kernel clock: CLOCK" if the file has kernel events.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/report/event_print.h"

int main(int argc, char **argv)
{
	struct utrace_event_printer *p;
	struct utrace_dat_iter *it;
	struct utrace_error err = {0};
	struct utrace_event ev;
	struct utrace_dat *d;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: kdump FILE\n");
		return 2;
	}
	if (utrace_dat_open(argv[1], &d, &err) < 0 || utrace_event_printer_new(d, &p, &err) < 0 ||
	    utrace_dat_iter_open(d, &it, &err) < 0) {
		fprintf(stderr, "kdump: %s\n", err.msg);
		return 1;
	}
	if (utrace_dat_kernel_clock(d))
		printf("# kernel clock: %s\n", utrace_dat_kernel_clock(d));
	while ((ret = utrace_dat_iter_next(it, &ev, &err)) > 0) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, ev.buf);
		const char *name;

		printf("%" PRIu64 " %u %s-%d ", ev.ts, ev.cpu, bi ? bi->comm : "?", (int)ev.tid);
		switch (ev.kind) {
		case UTRACE_EV_EVENT:
			name = utrace_event_printer_name(p, (int)ev.id);
			printf("%c %s: %s\n", ev.id < 32768 ? 'K' : 'U', name ? name : "?",
			       utrace_event_printer_render(p, (int)ev.id, ev.tid, ev.data,
							   ev.data_len));
			break;
		case UTRACE_EV_ENTRY:
			printf("> %s\n", utrace_dat_func_name(d, ev.image, ev.id));
			break;
		case UTRACE_EV_EXIT:
			printf("< %s\n", utrace_dat_func_name(d, ev.image, ev.id));
			break;
		case UTRACE_EV_LEAF:
			printf("> %s\n", utrace_dat_func_name(d, ev.image, ev.id));
			printf("%" PRIu64 " %u %s-%d < %s\n", ev.ts + ev.duration, ev.cpu,
			       bi ? bi->comm : "?", (int)ev.tid,
			       utrace_dat_func_name(d, ev.image, ev.id));
			break;
		case UTRACE_EV_PRINT:
			printf("U print: %.*s\n", (int)ev.data_len, (const char *)ev.data);
			break;
		case UTRACE_EV_LOST:
			printf("LOST %" PRIu64 "\n", ev.lost);
			break;
		default:
			printf("kind %u\n", ev.kind);
		}
	}
	if (ret < 0)
		fprintf(stderr, "kdump: %s\n", err.msg);
	if (utrace_dat_iter_warnings(it))
		fprintf(stderr, "kdump: %s\n", utrace_dat_iter_warning(it));
	utrace_dat_iter_close(it);
	utrace_event_printer_free(p);
	utrace_dat_close(d);
	return ret < 0;
}
