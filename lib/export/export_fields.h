/* SPDX-License-Identifier: MIT */
/*
 * export_fields.h - a tracepoint's or kernel event's fields by name and
 * value, for the exports that carry them as arguments (Chrome's "args",
 * Perfetto's debug_annotations), as trace-cmd shows them beside the
 * event's text.
 */
#ifndef UTRACE_LIB_EXPORT_FIELDS_H
#define UTRACE_LIB_EXPORT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

struct utrace_event_fields;

int utrace_event_fields_new(struct utrace_dat *d, struct utrace_event_fields **out,
			    struct utrace_error *err);
void utrace_event_fields_free(struct utrace_event_fields *f);

/* One field's value: an integer (signed or not) or a string. */
struct utrace_field_value {
	const char *name; /* the field's name without [N] */
	enum { UTRACE_FV_INT, UTRACE_FV_UINT, UTRACE_FV_STR } kind;
	int64_t i;
	uint64_t u;
	const char *s; /* not NUL-terminated: len bytes */
	size_t len;
};

/*
 * Calls fn for each field of ev (a UTRACE_EV_EVENT) in its format's order,
 * but the common ones and those neither an integer nor a string (arrays,
 * structs), and any that does not lie inside the record.  Returns fn's
 * first non-zero return, 0, or -ENOMEM.  An event whose format is not in
 * the file has no fields.
 */
int utrace_event_fields_each(struct utrace_event_fields *f, const struct utrace_event *ev,
			     int (*fn)(void *arg, const struct utrace_field_value *v), void *arg);

/* The same fields as Perfetto debug annotations ({name, int_value,
 * uint_value or string_value}) into the TrackEvent being built in b. */
struct utrace_pb;
int utrace_event_fields_annotate(struct utrace_event_fields *f, const struct utrace_event *ev,
				 struct utrace_pb *b);

#endif
