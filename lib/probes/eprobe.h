/* SPDX-License-Identifier: MIT */
/*
 * eprobe.h - event probes: the kernel's eprobes (kernel/trace/
 * trace_eprobe.c, Documentation/trace/eprobetrace.rst) on the events of
 * the traced programs.
 *
 *   e[:[GRP/][EVENT]] SYS.EVENT [FETCHARGS] [if FILTER]
 *
 * SYS.EVENT (or SYS/EVENT) is the attached event; GRP is "eprobes" and
 * EVENT the attached one's name unless given.  FETCHARGS are the kernel's
 * (lib/probes/uprobe_args.c checks them with its rules and messages) with
 * $FIELD, a field of the attached event, in place of registers: `$field`,
 * `+0($ptr):ustring`, `$comm:string`, \IMM, types and arrays.  The event's
 * record is the kernel's eprobe layout (the common fields, then the
 * arguments packed in order, strings as __data_loc), its fetch program
 * (common/fetch_prog.h) reads the attached event's record through
 * UTRACE_FR_EVENT.  FILTER is the attached event's: the probe fires
 * on the records that pass it.
 */
#ifndef UTRACE_LIB_EPROBE_H
#define UTRACE_LIB_EPROBE_H

#include <stdint.h>

#include "lib/base/error.h"
#include "lib/events/event_format.h"

#define UTRACE_EPROBE_DEFAULT_GROUP "eprobes"

struct utrace_eprobe;

/* The format of event system:name, NULL if there is none. */
typedef const struct utrace_event_format *(*utrace_eprobe_event_fn)(void *arg, const char *system,
								      const char *name);

/* Whether def is an event probe's definition ('e' then ':' or a blank). */
bool utrace_eprobe_is(const char *def);

/*
 * Parses def, its attached event looked up through find; id goes into the
 * format's ID line.  0 and *out, or -EINVAL with err->msg "TEXT at column
 * N", err->column and *code (if given) an enum utrace_uprobe_err, the
 * kernel's error and caret (NO_EVENT_INFO, BAD_ATTACH_EVENT, NO_EP_FILTER,
 * the group, event and fetcharg ones); -ENOMEM.
 */
int utrace_eprobe_parse(const char *def, utrace_eprobe_event_fn find, void *arg, int id,
			struct utrace_eprobe **out, int *code, struct utrace_error *err);
void utrace_eprobe_free(struct utrace_eprobe *ep);
/* The probe it is, for lib/record (utrace_inproc_probe_eprobe says its
 * attached event); ep is freed. */
struct utrace_inproc_probe;
struct utrace_inproc_probe *utrace_eprobe_take(struct utrace_eprobe *ep);

const char *utrace_eprobe_group(const struct utrace_eprobe *ep);
const char *utrace_eprobe_event(const struct utrace_eprobe *ep);
/* The attached event. */
const char *utrace_eprobe_attached_system(const struct utrace_eprobe *ep);
const char *utrace_eprobe_attached_event(const struct utrace_eprobe *ep);
/* The attached event's FILTER as written after "if", NULL if none. */
const char *utrace_eprobe_filter(const struct utrace_eprobe *ep);
/* The event's format (system = GRP) and its text. */
const struct utrace_event_format *utrace_eprobe_format(const struct utrace_eprobe *ep);
const char *utrace_eprobe_format_text(const struct utrace_eprobe *ep);
/* The format saved in the recording for its event id (malloc'ed; NULL:
 * out of memory): the format's, its print fmt headed by the attached
 * event, "(SYS.EVENT) NAME=...", so that a report prints the line the
 * kernel's trace prints (print_eprobe_event), which is not the print
 * fmt's. */
char *utrace_eprobe_saved_format(const struct utrace_eprobe *ep, int id);
/* Its dynamic_events line, the kernel's: "e:GRP/EVENT SYS.EVENT NAME=ARG..."
 * (malloc'ed; NULL: out of memory). */
char *utrace_eprobe_line(const struct utrace_eprobe *ep);

/* Its fetch program (malloc'ed, *len bytes), to run on the attached
 * event's record. */
int utrace_eprobe_compile(const struct utrace_eprobe *ep, void **prog, uint32_t *len,
			  struct utrace_error *err);

/* The fetch program of definition def on the attached event of format
 * attached (its fields where that object has them): 0, or <0 with err
 * (a field it lacks). */
int utrace_eprobe_compile_on(const char *def, const struct utrace_event_format *attached,
			     void **prog, uint32_t *len, struct utrace_error *err);

#endif
