/* SPDX-License-Identifier: MIT */
/*
 * latency.h - a histogram of call durations in the layout of `perf ftrace
 * latency` (tools/perf/builtin-ftrace.c: display_histogram), for `utrace
 * latency`.
 *
 * 22 buckets by default (perf's NUM_BUCKET: 20 and the outliers on each
 * side), in microseconds (nanoseconds with use_nsec): log2 buckets "0 - 1",
 * "1 - 2", "2 - 4", ... "512 - 1024 ms" and "1 - ... s", or, with a
 * bucket_range, linear ones from min_latency to max_latency; then perf's
 * statistics (total, average, maximum, minimum, count).
 *
 * A duration goes into the bucket its label names: [2^(i-1), 2^i) units
 * for log2 bucket i.  That is how perf -b (BPF) bins; perf's tracefs path
 * takes (int)log2(usecs), which puts a call of 3 us under "1 - 2 us", one
 * bucket below its label: we follow the labels.
 */
#ifndef UTRACE_LIB_LATENCY_H
#define UTRACE_LIB_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

#define UTRACE_LATENCY_BUCKETS 22

struct utrace_latency_opts {
	bool use_nsec;	       /* -n: the unit is ns, not us */
	bool hide_empty;       /* --hide-empty */
	unsigned bucket_range; /* --bucket-range, in the unit; 0: log2 buckets */
	unsigned min_latency;  /* --min-latency (with a bucket_range) */
	unsigned max_latency;  /* --max-latency (with a bucket_range) */
};

struct utrace_latency {
	struct utrace_latency_opts o; /* with perf's defaults filled in */
	unsigned nbuckets;
	uint64_t *buckets;
	/* perf's struct stats, updated as perf does, for the same rounding */
	double n, mean;
	uint64_t max, min;
};

/* Checks the options as perf does (--min-latency and --max-latency only
 * with --bucket-range, max at least min + range), fills in the defaults
 * (min = range, max = 20 buckets above min) and allocates the buckets.
 * -EINVAL with a one-line message naming the option. */
int utrace_latency_init(struct utrace_latency *h, const struct utrace_latency_opts *o,
			struct utrace_error *err);
void utrace_latency_free(struct utrace_latency *h);

/* Counts one call of ns nanoseconds. */
void utrace_latency_add(struct utrace_latency *h, uint64_t ns);

/* Counts every finished call of a function_graph recording (EXIT and
 * LEAF events with a duration).  lost, if not NULL, gets the number of
 * events the recording lost (so the counts are low). */
int utrace_latency_add_dat(struct utrace_latency *h, struct utrace_dat *d, uint64_t *lost,
			   struct utrace_error *err);

/* The histogram and the statistics, or "No data found" when nothing was
 * counted, as perf prints them. */
void utrace_latency_print(const struct utrace_latency *h, FILE *f);

#endif
