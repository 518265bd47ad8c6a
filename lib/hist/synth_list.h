/* SPDX-License-Identifier: MIT */
/*
 * synth_list.h - `utrace list -e --synthetic DEF`: the synthetic event a
 * definition makes, listed with a program's events (lib/probes/prog_list.h).
 */
#ifndef UTRACE_LIB_HIST_SYNTH_LIST_H
#define UTRACE_LIB_HIST_SYNTH_LIST_H

#include "lib/base/error.h"
#include "lib/probes/prog_list.h"

/* Lists synthetic:NAME of def (its format with ls->format) if ls->patterns
 * select it, as the recording would define it (its ID there is the
 * recording's).  0, or <0 with err as utrace_synth_parse() sets it
 * (err->column: the word at fault). */
int utrace_synth_list(struct utrace_prog_list *ls, const char *def, struct utrace_error *err);
/* utrace list -e PROGRAM: the events of prog and of the in-process probes
 * probes (utrace_prog_list_events), then the synthetic events of synths.
 * 0, or <0 with err: a wrong definition (*bad_synth its index, err->column
 * the word at fault), or none at all ("PROG has no static tracepoints"). */
int utrace_list_events_defs(struct utrace_prog_list *ls, const char *prog,
			    const char *const *probes, int nprobes, const char *const *synths,
			    int nsynths, int *bad_synth, struct utrace_error *err);

#endif
