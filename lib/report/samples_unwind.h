/* SPDX-License-Identifier: MIT */
/*
 * samples_unwind.h - the user call chain of a `record --call-graph dwarf`
 * sample, unwound offline from what the sample carries (the user
 * registers and a copy of the top of the user stack) by the CFI of the
 * files mapped in its process (.eh_frame, .debug_frame), with elfutils'
 * libdwfl, as perf report does (samples_unwind.c).
 */
#ifndef UTRACE_LIB_REPORT_SAMPLES_UNWIND_H
#define UTRACE_LIB_REPORT_SAMPLES_UNWIND_H

#include <stdint.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/tracefile/dat_samples.h"

/* Frames unwound at most (perf's default --max-stack). */
#define UTRACE_UNWIND_MAX 127

struct utrace_unwind;

/* An unwinder of d's samples (the maps: lib/tracefile/dat_samples.h);
 * -ENOMEM. */
int utrace_unwind_new(struct utrace_dat *d, struct utrace_unwind **out, struct utrace_error *err);
void utrace_unwind_free(struct utrace_unwind *u);

/*
 * s with its whole call chain in *full: the kernel's part s carries
 * (innermost first), then the user frames unwound from its registers and
 * stack copy, the first the sample's user ip; as far as the CFI and the
 * copy reach (a frame whose file is gone or without CFI ends the chain).
 * A sample without registers is copied as it is.  full->chain stays valid
 * until the next call; -ENOMEM.
 */
int utrace_unwind_sample(struct utrace_unwind *u, const struct utrace_dat_sample *s,
			 struct utrace_dat_sample *full);

#endif
