/* SPDX-License-Identifier: MIT */
/*
 * report_snapshot.h - `utrace report --snapshot`: the snapshots of a
 * recording (the snapshot trigger), as the kernel's tracefs `snapshot`
 * file prints its buffer.
 */
#ifndef UTRACE_LIB_REPORT_SNAPSHOT_H
#define UTRACE_LIB_REPORT_SNAPSHOT_H

#include <stdio.h>

#include "lib/report/report_text.h"

/*
 * Prints every snapshot of the recording at path (d, open) in the layout
 * utrace_report_print() gives the trace, with opts; when there are
 * several, each is preceded by one line
 *   "##### snapshot N of M: EVENT at SECONDS.USECS, tid TID #####"
 * The number of snapshots printed (0: the file has none), or <0 with err.
 */
int utrace_report_print_snapshots(struct utrace_dat *d, FILE *out,
				  const struct utrace_report_opts *opts, struct utrace_error *err);

#endif
