/* SPDX-License-Identifier: MIT */
/*
 * report_profile.h - `utrace report --profile`: one pass over the
 * selected events into a profile, sorted by keys, printed with fields.
 */
#ifndef UTRACE_LIB_REPORT_PROFILE_H
#define UTRACE_LIB_REPORT_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"
#include "lib/tracefile/dat_reader.h"

/* Profiles the events f selects (all: f NULL) in d, sorted by keys
 * (profile.h's; NULL: total), and prints the columns fields names (0: the
 * default, the calls only for the function tracer's recordings) to out.
 * sum counts the losses as utrace_report_print() does (free it with
 * utrace_report_summary_free()); *unfinished is how many calls were still
 * running at the trace's end, timed up to their thread's last event. */
int utrace_report_profile(struct utrace_dat *d, struct utrace_report_filter *f, const char *keys,
			  uint32_t fields, FILE *out, struct utrace_report_summary *sum,
			  uint64_t *unfinished, struct utrace_error *err);

#endif
