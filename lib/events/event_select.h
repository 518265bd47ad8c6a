/* SPDX-License-Identifier: MIT */
/*
 * event_select.h - which static tracepoints a recording enables, with
 * which filters, under which ids (`utrace record -e ... -f ...`).
 */
#ifndef UTRACE_LIB_EVENT_SELECT_H
#define UTRACE_LIB_EVENT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

struct utrace_trigger; /* lib/hist/hist.h */

/*
 * One -e: "SYSTEM:EVENT", "SYSTEM", "EVENT" or "all" (globs allowed),
 * like trace-cmd record -e.  filter: the -f that followed it, or NULL.
 * triggers: the -R that followed it; trigs: each parsed once (lib/hist's
 * utrace_trigger_of, NULL until then; an array of nr_triggers that every
 * copy of the spec shares, lib/hist/trigger_spec.c).  exclude: the
 * -e came after -v: the events it names are not recorded, but their
 * triggers run (trace-cmd's -v -e EVENT -R TRIGGER, the kernel's soft
 * enable).
 */
struct utrace_event_spec {
	const char *pattern;
	const char *filter;
	const char **triggers;
	struct utrace_trigger **trigs;
	unsigned nr_triggers;
	unsigned cap_triggers, cap_trigs; /* the arrays' UTRACE_GROW capacities */
	struct utrace_trigger_kept *kept; /* lib/hist: the programs its check compiled */
	bool exclude;
	bool target_only; /* added for an enable_event target no -e names: its
			   * records start off (the kernel's soft mode) */
	unsigned matched; /* events it enabled so far */
};

struct utrace_event_select;

/* A -e pattern that names one event exactly ("sys:event", no glob): its
 * system and event (each under n bytes); false otherwise. */
bool utrace_event_spec_exact(const char *pattern, char *sys, char *ev, size_t n);

/* Does one -e pattern select SYSTEM:NAME? */
bool utrace_event_spec_matches(const char *pattern, const char *system, const char *name);

int utrace_event_select_new(struct utrace_event_spec *specs, unsigned nr,
			    struct utrace_event_select **out, struct utrace_error *err);
void utrace_event_select_free(struct utrace_event_select *s);
bool utrace_event_select_empty(const struct utrace_event_select *s);
/* The live tracefs: every event an object describes is matched (it may be
 * switched on later), those the specs do not record reading as soft. */
void utrace_event_select_all(struct utrace_event_select *s);

/*
 * Compiles every filter against the events of an ELF file that its
 * pattern matches, so that a bad -f stops `utrace record` before the
 * command runs.  err->column is the column in the filter.
 */
int utrace_event_select_check(struct utrace_event_select *s, const char *path, unsigned *spec,
			      struct utrace_error *err);

/*
 * Event SYSTEM:NAME of the object at path: 1 if enabled, with its id, its
 * compiled filter (NULL, 0 for none; owned by s) and, the first time this
 * id is given out, *format its format text to save in the trace (owned by
 * s, else NULL); 0 if not enabled; <0 on error (a filter that does not
 * compile against this object's event).
 */
int utrace_event_select_match(struct utrace_event_select *s, const char *path, const char *system,
			      const char *name, int *id, const void **prog, uint32_t *prog_len,
			      const char **format, struct utrace_error *err);

/*
 * After utrace_event_select_match said yes: whether the event is only
 * soft-enabled (its triggers run, no record), its parsed format, and the
 * specs whose triggers apply to it (every -e that names it, in order).
 */
struct utrace_event_format;
bool utrace_event_select_soft(const struct utrace_event_select *s, const char *system,
			      const char *name);
const struct utrace_event_format *utrace_event_select_format(struct utrace_event_select *s,
							     const char *path, const char *system,
							     const char *name);
const struct utrace_event_spec *utrace_event_select_spec(const struct utrace_event_select *s,
							 unsigned i);
unsigned utrace_event_select_count(const struct utrace_event_select *s);
/*
 * Events that no object defines (synthetic events): f (borrowed, kept
 * until s is freed) is found under the path UTRACE_EVENT_NOOBJ by
 * utrace_event_select_match and utrace_event_select_format.
 */
#define UTRACE_EVENT_NOOBJ "<no object>"
int utrace_event_select_add_format(struct utrace_event_select *s,
				   const struct utrace_event_format *f);
/* The id SYSTEM:NAME has (or will have) in this recording, for triggers
 * that name another event; < 0 if out of memory. */
int utrace_event_select_id(struct utrace_event_select *s, const char *system, const char *name);
/* SYSTEM:NAME's id is not its any more (a dynamic event removed): the
 * next utrace_event_select_id of that name hands out a new one, as the
 * kernel gives a redefined event a new id, so that records of the old
 * layout and of the new one never share an id. */
void utrace_event_select_forget(struct utrace_event_select *s, const char *system,
				const char *name);

#endif
