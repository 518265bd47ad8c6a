/* SPDX-License-Identifier: MIT */
/*
 * report_summary.h - the summary `utrace report` writes after the trace
 * (what went wrong while recording: warnings, notices, lost events), for
 * the user: the command gives the FILE (stderr), lines start "utrace CMD: ".
 */
#ifndef UTRACE_LIB_REPORT_SUMMARY_H
#define UTRACE_LIB_REPORT_SUMMARY_H

#include <stdio.h>

#include "lib/report/report_select.h"
#include "lib/report/report_text.h"
#include "lib/tracefile/dat_reader.h"

/* Writes to f what sum (utrace_report_print's or utrace_report_profile's)
 * and d say went wrong; nothing when all went well. */
void utrace_report_summary_write(const struct utrace_select_opts *so, struct utrace_dat *d,
				 const struct utrace_report_summary *sum, FILE *f);

#endif
