/* SPDX-License-Identifier: MIT */
/*
 * report_filter_internal.h - the filter's state, shared by the options
 * that fill it (report_filter_opts.c) and the pass that applies it
 * (report_filter.c).
 */
#ifndef UTRACE_LIB_REPORT_FILTER_INTERNAL_H
#define UTRACE_LIB_REPORT_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/report/report_filter.h"
#include "lib/report/report_fold.h"
#include "lib/report/stack_index.h"

#define NONE UINT32_MAX

struct cpu_range {
	uint32_t lo, hi;
};

struct tspec {
	int set, elapsed;
	uint64_t ns;
};

struct open_call {
	uint32_t depth;
	uint32_t shown;
};

struct fthread {
	struct open_call *stack;
	uint32_t n, cap;
	uint32_t match; /* depth of the matching function we are below, NONE */
};

struct utrace_report_filter {
	struct cpu_range *cpus;
	size_t nr_cpus;
	int32_t *tids, *pids;
	size_t nr_tids, nr_pids;
	char **comms, **funcs;
	size_t nr_comms, nr_funcs;
	uint32_t max_depth; /* NONE: no limit */
	struct tspec from, to;
	bool active;
	struct utrace_dat_resume *resume; /* the caller's, or NULL */
	uint64_t limit;			  /* events a pass gives at most (0: all) */
	utrace_report_keep_fn keep;	  /* the caller's own selection, or NULL */
	void *keep_arg;

	/* the pass */
	struct utrace_dat *d;
	struct utrace_func_table *ft;
	uint8_t *fmatch; /* per function: 0 not looked at, 1 no, 2 yes */
	size_t fmatch_cap;
	bool *threads;
	unsigned nr_threads;
	struct fthread *th; /* per call stack: the threads', then coroutines' */
	unsigned nr_th;
	struct stack_index stacks;
	int have_origin;
	uint64_t lo, hi;
	struct report_fold fold;
	uint64_t kept, last_end; /* events given, the end of the latest */
};

#endif
