/* SPDX-License-Identifier: MIT */
/* list_fpatch.h - utrace list -f on an object without call sites. */
#ifndef UTRACE_CMDS_LIST_FPATCH_H
#define UTRACE_CMDS_LIST_FPATCH_H

#include <stdbool.h>

#include "common/proto.h"
#include "lib/events/ftrace_filter.h"

/* Prints the patchable functions of path (why: the left-out ones with
 * their reason); module NULL for the program.  How many, or -1. */
long list_fpatch(const char *path, const char *module, const struct utrace_func_filter *filter,
		 bool why);

#endif
