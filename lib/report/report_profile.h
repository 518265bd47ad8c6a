/* SPDX-License-Identifier: MIT */
/*
 * report_profile.h - `utrace report --profile`: one pass over the
 * selected events into a profile, sorted by keys, printed with fields.
 */
#ifndef UTRACE_LIB_REPORT_PROFILE_H
#define UTRACE_LIB_REPORT_PROFILE_H

#include <stdint.h>

#include "lib/base/error.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"
#include "lib/tracefile/dat_reader.h"

int utrace_report_profile(struct utrace_dat *d, struct utrace_report_filter *f, const char *keys,
			  uint32_t fields, struct utrace_report_summary *sum,
			  struct utrace_error *err);

#endif
