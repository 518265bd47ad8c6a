/* SPDX-License-Identifier: MIT */
/*
 * top.h - `utrace top`: the functions that take the CPU now, sampled live
 * and printed as `perf top --stdio` prints them (top.c):
 *
 *      PerfTop:     998 irqs/sec  kernel:12.5%  lost: 0 [999Hz cpu-clock],  (all, 2 CPUs)
 *   -------------------------------------------------------------------------------
 *
 *       60.12%  kburn              [.] burn60
 *       12.40%  [kernel.kallsyms]  [k] do_syscall_64
 *
 * The samples come from lib/sample (the sampler of utrace record -F), of
 * every task of every CPU, of one running process or of a command started
 * for it; they are named from the live system (/proc/PID/maps and the
 * files' symbol tables, /proc/kallsyms) and counted as report --samples
 * counts them (lib/report/samples.c), sorted by dso,sym.
 */
#ifndef UTRACE_LIB_REPORT_TOP_H
#define UTRACE_LIB_REPORT_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/base/error.h"
#include "lib/sample/sampler.h"

struct utrace_top;

struct utrace_top_opts {
	unsigned freq;			  /* -F: samples a second of CPU time */
	enum utrace_sample_target target; /* system, a running process, a held child */
	pid_t pid;			  /* of the process or the child */
	bool zero;			  /* -z: each screen counts only its interval */
	unsigned lines;			  /* entries a screen prints at most; 0: all */
	const char *what;		  /* the header's target: "all", "target_pid: 42" */
};

/* Opens the sampler (lib/sample/sampler.h: -errno with perf's hint). */
int utrace_top_open(const struct utrace_top_opts *o, struct utrace_top **out,
		    struct utrace_error *err);
/* Counts what the kernel sampled since the last call; -ENOMEM. */
int utrace_top_drain(struct utrace_top *t, struct utrace_error *err);
/* One screen: the header (rates over the secs since the last screen) and
 * the entries, largest first; with zero, the counts start again. */
int utrace_top_print(struct utrace_top *t, double secs, FILE *out, struct utrace_error *err);
void utrace_top_close(struct utrace_top *t);

#endif
