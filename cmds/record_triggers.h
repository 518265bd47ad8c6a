/* SPDX-License-Identifier: MIT */
/* record_triggers.h - the -R triggers of `utrace record`, checked before
 * anything runs. */
#ifndef UTRACE_CMDS_RECORD_TRIGGERS_H
#define UTRACE_CMDS_RECORD_TRIGGERS_H

#include <stddef.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"

/*
 * Parses every -R of specs and compiles each hist trigger for every event
 * of lists[0..n) its -e names, so that a bad trigger stops the recording
 * before the command runs.  Prints the error (with the trigger and a caret
 * under the column) and returns 2; 0 when all is well.
 */
int record_check_triggers(const struct utrace_event_spec *specs, unsigned nspecs,
			  struct utrace_event_list **lists, size_t n);

#endif
