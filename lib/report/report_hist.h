/* SPDX-License-Identifier: MIT */
/*
 * report_hist.h - the hist triggers' tables of a recording, printed as the
 * kernel prints events/SYS/EVENT/hist (`utrace report --hist`).
 */
#ifndef UTRACE_LIB_REPORT_HIST_H
#define UTRACE_LIB_REPORT_HIST_H

#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

/*
 * Prints every histogram of d, those of one event in the order their
 * triggers were given, blank lines between them as in the kernel's file.
 * event: "SYSTEM:EVENT" (globs) to print only those, NULL for all.
 * Returns the number printed, or < 0.
 */
int utrace_report_print_hist(struct utrace_dat *d, FILE *out, const char *event,
			     struct utrace_error *err);

/*
 * One table as it is now (the live tracefs's events/SYS/EVENT/hist), of
 * the hist trigger written as trigger, with d's names for comm, symbols.
 */
struct utrace_hist_table;
int utrace_report_hist_table(struct utrace_dat *d, FILE *out, const char *trigger,
			     const struct utrace_hist_table *t, struct utrace_error *err);

#endif
