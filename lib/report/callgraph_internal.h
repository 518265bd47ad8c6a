/* SPDX-License-Identifier: MIT */
/*
 * callgraph_internal.h - what lib/report/callgraph.c (building the tree from the
 * events) and lib/report/callgraph_print.c (uftrace graph's output) share: the
 * tree of call paths and the call graph object.
 */
#ifndef UTRACE_LIB_CALLGRAPH_INTERNAL_H
#define UTRACE_LIB_CALLGRAPH_INTERNAL_H

#include <stdint.h>

#include "lib/report/callgraph.h"
#include "lib/report/func_table.h"
#include "lib/report/stack_index.h"

#define CALLGRAPH_NONE UINT32_MAX

/* A call path: fn called from the path of parent; the sums of its calls.
 * Callees in a list (first, next) in the order they were first called. */
struct gnode {
	uint32_t parent, fn, first, last, next, nr_children;
	uint32_t memo_fn, memo_node; /* the child looked up last: its fn, node */
	uint64_t calls, timed, time, child_time;
	uint64_t tmin, tmax, smin, smax;
};

struct hslot {
	uint64_t key;
	uint32_t node; /* CALLGRAPH_NONE: free */
};

struct tree {
	struct gnode *n;
	uint32_t nr, cap;
	struct hslot *h;
	uint32_t hcap;
};

struct gthread; /* a thread's open calls (callgraph.c) */

struct utrace_callgraph {
	struct utrace_dat *d;
	struct utrace_func_table *ft;
	struct utrace_func_cache fc; /* in front of ft */
	struct tree t;
	uint32_t unknown_fn;
	struct gthread *th; /* per call stack: nr_buf threads', then coroutines' */
	unsigned nr_th, nr_buf;
	struct stack_index stacks;
	uint64_t unfinished;
	bool sampled; /* made of samples (samples_fold.c): calls are samples */
	struct utrace_report_sched *sched; /* off-CPU spans (report_sched.h), or NULL */
	uint32_t sched_fn;		   /* their name's number */
};

/* A tree with only its root, a node of root_fn; <0 out of memory. */
int callgraph_tree_init(struct tree *t, uint32_t root_fn);
void callgraph_tree_free(struct tree *t);
/* The node of fn called from parent, created if new; <0 out of memory. */
int callgraph_tree_child(struct tree *t, uint32_t parent, uint32_t fn, uint32_t *out);

static inline uint64_t callgraph_self_time(const struct gnode *n)
{
	return n->time > n->child_time ? n->time - n->child_time : 0;
}

#endif
