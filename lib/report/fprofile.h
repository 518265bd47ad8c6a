/* SPDX-License-Identifier: MIT */
/*
 * fprofile.h - the kernel's function profiler tables (tracefs
 * trace_stat/functionN, kernel/trace/ftrace.c function_stat_show) made
 * from a recording's function_graph calls: per CPU, each function's hits,
 * total time, average and s^2, longest total time first.
 */
#ifndef UTRACE_LIB_FPROFILE_H
#define UTRACE_LIB_FPROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

/*
 * The table of CPU cpu: the calls of d that entered at or after from_ns
 * and returned at or before to_ns (0: no end) on that CPU (the kernel
 * counts a call on the CPU it returns on), with the kernel's header; a
 * function whose average is under thresh_ns (tracing_thresh) is left out,
 * as the kernel's.
 */
int utrace_fprofile_print(struct utrace_dat *d, FILE *out, int cpu, uint64_t from_ns,
			  uint64_t to_ns, uint64_t thresh_ns, struct utrace_error *err);

/* The kernel's trace_print_graph_duration: "%lu.%03lu us " padded so
 * that the number takes at least 8 columns (ns). */
void utrace_fprofile_duration(FILE *out, uint64_t ns);

#endif
