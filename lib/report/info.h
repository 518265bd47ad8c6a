/* SPDX-License-Identifier: MIT */
/*
 * info.h - `utrace info`: what a recording is, without reading its events
 * (uftrace info, trace-cmd report --info): how it was recorded, on what,
 * the processes and threads with their names and losses, the events and
 * tables it holds, and the file's own layout.
 */
#ifndef UTRACE_LIB_REPORT_INFO_H
#define UTRACE_LIB_REPORT_INFO_H

#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

/* Writes d's information to f in uftrace info's layout ("# key : value"
 * lines under section titles).  0, or <0 with err set (a write error). */
int utrace_info_print(struct utrace_dat *d, FILE *f, struct utrace_error *err);

#endif
