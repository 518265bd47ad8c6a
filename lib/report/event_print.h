/* SPDX-License-Identifier: MIT */
/*
 * event_print.h - TP_printk text of static tracepoint records, and the
 * kernel's context column of a line.
 */
#ifndef UTRACE_LIB_EVENT_PRINT_H
#define UTRACE_LIB_EVENT_PRINT_H

#include <stdint.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

struct utrace_event_printer;

/* Parses every event format saved in d. */
int utrace_event_printer_new(struct utrace_dat *d, struct utrace_event_printer **out,
			     struct utrace_error *err);
void utrace_event_printer_free(struct utrace_event_printer *p);
/* The event's name, or NULL if the file has no format for id. */
const char *utrace_event_printer_name(struct utrace_event_printer *p, int id);
/* The TP_printk output for a record (data = after the common fields);
 * valid until the next call. */
/* The image (process) whose symbols name the next records' %pS. */
void utrace_event_printer_set_image(struct utrace_event_printer *p, uint32_t image);
const char *utrace_event_printer_render(struct utrace_event_printer *p, int id, int pid,
					const void *data, uint32_t len);

/* The context column of a line, as trace_print_lat_fmt() prints it
 * ("d..2.") from a kernel record's common_flags and preempt count;
 * "....." for a record without them (the programs' own). */
void utrace_event_lat_fmt(const struct utrace_event *ev, char out[6]);

#endif
