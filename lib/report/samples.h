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
 *
 * With a graph (-g), each entry is followed by the tree of its call chains
 * as perf's default "graph,0.5" prints it (samples_graph.c); with children
 * (--children) each function of a chain gets an entry of its own, with the
 * Children (all samples under it) and Self columns.
 */
#ifndef UTRACE_LIB_REPORT_SAMPLES_H
#define UTRACE_LIB_REPORT_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
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

/* Which way -g prints each entry's call chains (perf report -g ORDER). */
enum utrace_sample_graph {
	UTRACE_GRAPH_NONE,
	UTRACE_GRAPH_DEFAULT, /* perf report -g's: caller */
	UTRACE_GRAPH_CALLER,  /* outermost frame first */
	UTRACE_GRAPH_CALLEE,  /* the sampled function first */
};

/* perf report -g's ORDER: NULL (the default), "caller" or "callee";
 * 0, or <0 with err. */
int utrace_samples_parse_graph(const char *order, enum utrace_sample_graph *graph,
			       struct utrace_error *err);
/* Whether word is one of -g's orders (perf takes it as the next word). */
bool utrace_samples_graph_word(const char *word);

struct utrace_samples_opts {
	enum utrace_sample_key order[4]; /* the sort keys, utrace_samples_parse_sort */
	unsigned n;
	enum utrace_sample_graph graph;
	/* perf's --children: each function also gets the time of the
	 * functions it called (the Children column, Self beside it) */
	bool children;
};

/* Prints the report of d's samples to out; -ENOENT (err filled) when d
 * holds none, -EINVAL when a graph is asked of samples without chains. */
int utrace_samples_report(struct utrace_dat *d, const struct utrace_samples_opts *o, FILE *out,
			  struct utrace_error *err);

/*
 * The cpu-clock samples' stacks as a call graph (lib/report/callgraph.h),
 * for the flame graph exports (samples_fold.c): one path per distinct
 * stack, outermost frame first, each frame named by its symbol
 * ("[unknown]" without one); a node's calls are its samples, its total
 * and self times their periods (ns of CPU time).  -ENOENT (err filled)
 * when d holds no samples.
 */
struct utrace_callgraph;
int utrace_samples_callgraph(struct utrace_dat *d, struct utrace_callgraph **out,
			     struct utrace_error *err);

/*
 * The same on-CPU stacks one sample at a time, for exports that keep
 * addresses (pprof): fn gets the n frames innermost first (a caller's ip
 * is its return address, see .at), each named as report --samples names it and
 * with the mapping that holds it, and the sample (its time, thread, CPU
 * and period: ns of CPU time).
 */
struct utrace_sample_frame {
	uint64_t ip;
	const char *name; /* the function, NULL if no symbol holds ip */
	const char *path; /* the mapped file ("[kernel.kallsyms]"), NULL if none */
	uint64_t map_start, map_len, map_pgoff; /* its mapping (0 for the kernel) */
	bool kernel;
	bool at; /* ip is where the thread was (the leaf, or the user ip under
		  * the kernel's frames), not a return address */
};
struct utrace_dat_sample;
int utrace_samples_stacks(struct utrace_dat *d,
			  int (*fn)(void *arg, const struct utrace_dat_sample *s,
				    const struct utrace_sample_frame *v, uint32_t n,
				    struct utrace_error *err),
			  void *arg, struct utrace_error *err);

#endif
