/* SPDX-License-Identifier: MIT */
/*
 * stat_print.h - the statistics over repeated runs and the text layout of
 * `perf stat`, for `utrace stat` (see lib/perf/stat_print.c).
 */
#ifndef UTRACE_LIB_STAT_PRINT_H
#define UTRACE_LIB_STAT_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"

/* Running mean and variance (Welford's method, as perf's util/stat.c). */
struct utrace_stat_acc {
	uint64_t n;
	double mean, m2;
};

void utrace_stat_acc_add(struct utrace_stat_acc *a, double v);
double utrace_stat_acc_mean(const struct utrace_stat_acc *a);
/* The standard deviation of the mean, sqrt(s^2 / n) with the sample
 * variance s^2: the "+-" perf stat -r prints.  0 for fewer than 2 values. */
double utrace_stat_acc_stddev(const struct utrace_stat_acc *a);
/* 100 * stddev / mean, or 0 if mean is 0: the "( +-  1.23% )". */
double utrace_stat_rel_pct(double stddev, double mean);
/* Digits after the point for a time with this stddev, as perf: two more
 * than the stddev's first significant digit; 9 (ns) for a stddev of 0. */
int utrace_stat_time_precision(double stddev);

/* How a counter came out of one run (same meaning as perf_counter.h). */
enum utrace_stat_state {
	UTRACE_STAT_COUNTED,
	UTRACE_STAT_NOT_COUNTED,
	UTRACE_STAT_NOT_SUPPORTED,
};

/* The counters of a `utrace stat` and what each run gave. */
struct utrace_stat_table;

struct utrace_stat_table *utrace_stat_table_new(void);
void utrace_stat_table_free(struct utrace_stat_table *t);

/* Adds a counter, printed in the order added.  type and config are the
 * perf_event_attr's: they pick the derived metric printed after '#'
 * (CPUs utilized, GHz, insn per cycle, K/sec...).  scale converts a count
 * to unit (1e-6 for a clock's ns to msec).  Returns its index. */
int utrace_stat_table_add_counter(struct utrace_stat_table *t, const char *name, const char *unit,
				  double scale, uint32_t type, uint64_t config,
				  struct utrace_error *err);

/* Records counter idx in the current run.  value is already scaled for
 * multiplexing; enabled and running are its times (ns). */
void utrace_stat_table_add_count(struct utrace_stat_table *t, int idx, enum utrace_stat_state st,
				 uint64_t value, uint64_t enabled, uint64_t running);

/* Ends a run: its wall-clock time, and the command's user and system CPU
 * seconds (printed for a single run only, as perf). */
void utrace_stat_table_add_run(struct utrace_stat_table *t, uint64_t elapsed_ns, double user_s,
			       double sys_s);

/* Prints perf stat's report for argv (the command), averaged over the runs
 * added so far.  Returns -EIO if writing failed. */
int utrace_stat_table_print(const struct utrace_stat_table *t, FILE *out, int argc,
			    char *const argv[], struct utrace_error *err);

#endif
