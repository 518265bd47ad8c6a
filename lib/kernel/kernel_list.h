/* SPDX-License-Identifier: MIT */
/*
 * kernel_list.h - the kernel's events for `utrace list -e` without a
 * PROGRAM (kernel_list.c).
 */
#ifndef UTRACE_LIB_KERNEL_LIST_H
#define UTRACE_LIB_KERNEL_LIST_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"

/* Writes to out the kernel's events the patterns select (all when there
 * are none), "SYS:EVENT" a line, or with format each one's format file
 * after "system: SYS"; *printed counts them.  0, or <0 with err set (no
 * access to tracefs says why, as utrace record does; patterns that select
 * nothing are an error too). */
int utrace_kernel_events_list(FILE *out, char *const *patterns, int npatterns, bool format,
			      unsigned *printed, struct utrace_error *err);

#endif
