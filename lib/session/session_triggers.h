/* SPDX-License-Identifier: MIT */
/* session_triggers.h - the -R triggers of `utrace record`, checked before
 * anything runs. */
#ifndef UTRACE_CMDS_RECORD_TRIGGERS_H
#define UTRACE_CMDS_RECORD_TRIGGERS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/session/session_fail.h"

/*
 * Parses every -R of specs (once: kept in each spec's trigs, which the
 * recorder and the rest read) and compiles each hist trigger for every event
 * of lists[0..n) and synthetic event of synths[0..nsynths) its -e names
 * (the other -R and the synthetic events give its $variables and
 * actions), so that a bad trigger stops the recording before the command
 * runs.  The error goes to fail (with the trigger and a caret under
 * the column), 2 returned; 0 when all is well.  The programs are kept in
 * the specs for the objects of files[i], the file of lists[i] (NULL: not
 * kept), which the recorder then does not compile again.
 */
struct utrace_synth;
int record_check_triggers(struct utrace_event_spec *specs, unsigned nspecs,
			  struct utrace_event_list **lists, const char *const *files, size_t n,
			  struct utrace_synth *const *synths, unsigned nsynths,
			  struct session_fail *fail);

/*
 * The targets of enable_event triggers that no -e names: they must be
 * enabled too (the kernel's soft mode, off until the trigger fires), so a
 * spec is appended for each ("SYSTEM:EVENT" strings added to *names, for
 * the caller to free; both arrays grown by UTRACE_GROW, capacities *cap
 * and *cap_names).  0, or -1 when out of memory.
 */
int record_trigger_targets(struct utrace_event_spec **specs, unsigned *n, unsigned *cap,
			   char ***names, unsigned *nr_names, unsigned *cap_names);

/*
 * The -R of the kernel -e specs that the kernel runs itself, written to
 * the instance kt (lib/kernel/kernel_trigger.c): stacktrace, and the one
 * a hist keyed on common_stacktrace needs.  The error goes to fail
 * (the kernel's error_log text, or that the kernel lacks the trigger), the
 * exit status returned; 0 when all is well.
 */
struct utrace_ktrace;
int record_kernel_triggers(struct utrace_ktrace *kt, const struct utrace_event_spec *specs,
			   unsigned n, struct session_fail *fail);

#endif
