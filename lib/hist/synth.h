/* SPDX-License-Identifier: MIT */
/*
 * synth.h - synthetic events, as the kernel's synthetic_events file
 * defines them ("req_lat u64 lat; int id"): events that no code fires
 * but a hist trigger's onmatch() action does, with the fields it hands
 * over.  Parsed here into the format the event would have in the
 * kernel (system "synthetic"), so that filters, triggers, the record and
 * `utrace report` treat it as any other event.
 */
#ifndef UTRACE_LIB_HIST_SYNTH_H
#define UTRACE_LIB_HIST_SYNTH_H

#include "lib/base/error.h"
#include "lib/events/event_format.h"

#define UTRACE_SYNTH_FIELDS_MAX 32 /* an action's params at most */

/* The kernel's synthetic event errors (trace_events_synth.c). */
#define UTRACE_SYNTH_ERRORS(C)                                                                     \
	C(NONE, "No error")                                                                        \
	C(BAD_NAME, "Illegal name")                                                                \
	C(INVALID_CMD, "Command must be of the form: <name> field[;field] ...")                    \
	C(EVENT_EXISTS, "Event already exists")                                                    \
	C(TOO_MANY_FIELDS, "Too many fields")                                                      \
	C(INCOMPLETE_TYPE, "Incomplete type")                                                      \
	C(INVALID_TYPE, "Invalid type")                                                            \
	C(INVALID_FIELD, "Invalid field")                                                          \
	C(INVALID_ARRAY_SPEC, "Invalid array specification")

#define UTRACE_SYNTH_ERR_ENUM(name, text) UTRACE_SYNTH_ERR_##name,
enum utrace_synth_err { UTRACE_SYNTH_ERRORS(UTRACE_SYNTH_ERR_ENUM) UTRACE_SYNTH_ERR_MAX };
#undef UTRACE_SYNTH_ERR_ENUM

struct utrace_synth {
	char *name;
	unsigned nr_fields;		 /* its own, after the 4 common ones of fmt */
	struct utrace_event_format *fmt; /* system "synthetic" */
	char *format; /* the format file's text, as an EVENT_FORMAT holds it */
	char *desc;   /* "u64 lat; char[16] comm": the fields as synthetic_events lists them */
};

/*
 * Parses one definition; id goes into the format's "ID:" line.  On error
 * returns -EINVAL with *code one of UTRACE_SYNTH_ERR_*, err->msg its text
 * and err->column the 1-based column of the word at fault, as the
 * kernel's error_log caret.
 */
int utrace_synth_parse(const char *text, int id, struct utrace_synth **out, int *code,
		       struct utrace_error *err);
void utrace_synth_free(struct utrace_synth *s);

struct utrace_hist_synth_info;
/* What an action that emits s needs to know of it (lib/hist/hist_compile.h),
 * id the one its EMIT carries. */
void utrace_synth_info(const struct utrace_synth *s, uint32_t id,
		       struct utrace_hist_synth_info *out);

#endif
