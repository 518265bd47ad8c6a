/* SPDX-License-Identifier: MIT */
/* session_synth.h - `utrace record --synthetic`, and what the pre-run
 * check of the triggers needs to compile variables and actions. */
#ifndef UTRACE_CMDS_RECORD_SYNTH_H
#define UTRACE_CMDS_RECORD_SYNTH_H

#include <stddef.h>

#include "lib/events/event_select.h"
#include "lib/hist/hist_env.h"
#include "lib/hist/synth.h"
#include "lib/session/session_fail.h"

/* Parses defs[0..n) into *out (n pointers, record_synth_free them); an
 * error goes to f with its caret.  0, or the exit status. */
int record_synth_parse(const char **defs, unsigned n, struct utrace_synth ***out,
		       struct session_fail *f);
void record_synth_free(struct utrace_synth **s, unsigned n);

/* The user events' specs, every format the check knows (of the program,
 * its libraries and the synthetic events), and the synthetic events. */
struct record_check_env {
	struct utrace_event_spec *specs; /* their triggers parsed as they are met */
	unsigned nspecs;
	const struct utrace_event_format **fmts;
	const char **paths; /* the file of fmts[i] (realpath), NULL: a synthetic event's */
	size_t nfmts;
	struct utrace_synth *const *synths;
	unsigned nsynths;
	unsigned depth;
	struct utrace_hist_scope scope;
};

/* The compiler's env over e (which must outlive it). */
const struct utrace_hist_env *record_check_env_ops(struct record_check_env *e);

#endif
