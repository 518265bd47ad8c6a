/* SPDX-License-Identifier: MIT */
/*
 * callgraph.h - the calls of a recorded trace aggregated by call path,
 * for `utrace graph` (uftrace graph's tree) and the flame graph export:
 * every distinct path (main -> parse -> next_token) is one node with its
 * number of calls and their total and self times.
 *
 * Feed it the events of a pass in the iterator's order (possibly
 * filtered, lib/report/report_filter.h), then finish, and print or walk it.
 * Memory grows with the distinct call paths, never with the events.
 * The paths come from the entries: a --thresh recording, which has only
 * returns, hangs its calls under "[unknown]" callers.
 */
#ifndef UTRACE_LIB_CALLGRAPH_H
#define UTRACE_LIB_CALLGRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"
#include "lib/report/profile.h"

struct utrace_callgraph;

/* Columns before the tree (-f) are lib/report/profile.h's fields but calls,
 * printed in uftrace graph's order: total self total-avg total-max
 * total-min self-avg self-max self-min. */
#define UTRACE_CALLGRAPH_DEFAULT_FIELDS UTRACE_PROFILE_TOTAL

/* Not a column: graph --color, the durations in the colours of their
 * overhead marks and the function names in bold, as report's. */
#define UTRACE_CALLGRAPH_COLOR (1u << 31)

/* The name of calls whose callers are not in the trace. */
#define UTRACE_CALLGRAPH_UNKNOWN "[unknown]"

int utrace_callgraph_new(struct utrace_dat *d, struct utrace_callgraph **out,
			 struct utrace_error *err);
void utrace_callgraph_free(struct utrace_callgraph *g);

int utrace_callgraph_add(struct utrace_callgraph *g, const struct utrace_event *ev,
			 struct utrace_error *err);
/* The end of the pass: calls still running are timed up to the last
 * event of their thread (as uftrace does). */
int utrace_callgraph_finish(struct utrace_callgraph *g, struct utrace_error *err);
/* Calls still running at the end of the trace. */
uint64_t utrace_callgraph_unfinished(const struct utrace_callgraph *g);

/* "total,self,total-avg": uftrace graph -f's names (total self total-avg
 * total-max total-min self-avg self-max self-min), "none" for no column. */
int utrace_callgraph_parse_fields(const char *s, uint32_t *fields, struct utrace_error *err);

/*
 * Prints uftrace graph's output for func: the call paths that lead to it
 * (BACKTRACE), then every call of func merged into one tree (FUNCTION
 * CALL GRAPH).  func NULL: "main" if the trace calls it, else the whole
 * graph from a root named after the program.  -ENOENT if func is never
 * called.  Trees deeper than max_levels (0: 1000) are cut, the cut nodes
 * marked with " ...".
 */
int utrace_callgraph_print(struct utrace_callgraph *g, FILE *out, const char *func, uint32_t fields,
			   unsigned max_levels, struct utrace_error *err);
/* The whole graph, every root, as with func NULL in a trace without main. */
int utrace_callgraph_print_all(struct utrace_callgraph *g, FILE *out, uint32_t fields,
			       unsigned max_levels, struct utrace_error *err);

/* Whether g is made of samples (utrace_samples_callgraph): its calls
 * are samples, its times CPU time. */
bool utrace_callgraph_sampled(const struct utrace_callgraph *g);

/* One node for utrace_callgraph_walk(): depth 0 is a root (a function
 * that nothing traced called). */
struct utrace_callgraph_node {
	const char *name;
	unsigned depth;
	uint64_t calls;
	uint64_t total; /* ns */
	uint64_t self;	/* ns: total minus the callees' total */
	int has_children;
};

/* Calls fn for every node, depth first, callers before callees, callees
 * in the order they were first called.  fn returns 0 to go on, 1 to skip
 * the node's callees, <0 to stop (returned). */
int utrace_callgraph_walk(const struct utrace_callgraph *g,
			  int (*fn)(void *arg, const struct utrace_callgraph_node *node),
			  void *arg);

#endif
