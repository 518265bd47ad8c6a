/* SPDX-License-Identifier: MIT */
/* fpatch_list.h - utrace list -f on an object without call sites. */
#ifndef UTRACE_LIB_PROBES_FPATCH_LIST_H
#define UTRACE_LIB_PROBES_FPATCH_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/proto.h"
#include "lib/base/error.h"
#include "lib/events/ftrace_filter.h"

/* What a --why listing left out, of how many functions. */
struct utrace_fpatch_counts {
	size_t left, found, nint3;
};

/* Prints to out the patchable functions of path (why: the left-out ones
 * with their reason, and those patched with an int3, counted into c);
 * module NULL for the program.  How many, or -1. */
long utrace_fpatch_list(FILE *out, const char *path, const char *module,
			const struct utrace_func_filter *filter, bool why,
			struct utrace_fpatch_counts *c, struct utrace_error *err);

#endif
