/* SPDX-License-Identifier: MIT */
/*
 * samples.h - the samples of a recording (`utrace record -F`) in the
 * layout of `perf report --stdio --no-children` (samples.c):
 *
 *   # Total Lost Samples: 0
 *   #
 *   # Samples: 838  of event 'cpu-clock:u'
 *   # Event count (approx.): 838838000
 *   #
 *   # Overhead  Command  Shared Object  Symbol
 *   # ........  .......  .............  ..........
 *   #
 *       59.90%  burn     burn           [.] work
 *
 * Overhead is each entry's share of the sampled CPU time (the samples'
 * periods, as perf weighs them); entries group the samples by the sort
 * keys (comm, dso, sym: perf's default), largest first.  A sample's symbol
 * is the function of the program or library mapped at its address, named
 * from the file's symbol table; an address nothing names is printed in
 * hex, as perf does.
 */
#ifndef UTRACE_LIB_REPORT_SAMPLES_H
#define UTRACE_LIB_REPORT_SAMPLES_H

#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

enum utrace_sample_key {
	UTRACE_SAMPLE_COMM = 1u << 0,
	UTRACE_SAMPLE_DSO = 1u << 1,
	UTRACE_SAMPLE_SYM = 1u << 2,
	UTRACE_SAMPLE_PID = 1u << 3,
};

/* "comm,dso,sym" (perf's --sort names; pid too) into keys, in order;
 * order[] gets the columns' order, *n their number. */
int utrace_samples_parse_sort(const char *s, enum utrace_sample_key order[4], unsigned *n,
			      struct utrace_error *err);

/* Prints the report of d's samples to out; -ENOENT (err filled) when d
 * holds none. */
int utrace_samples_report(struct utrace_dat *d, const enum utrace_sample_key *order, unsigned n,
			  FILE *out, struct utrace_error *err);

#endif
