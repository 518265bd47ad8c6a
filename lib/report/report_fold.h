/* SPDX-License-Identifier: MIT */
/*
 * report_fold.h - a call at the depth limit shown as one line (internal
 * to lib/report/report_filter.c).
 *
 * `-D N` hides everything deeper than N levels, so a call at level N
 * whose callees are hidden would print as "f() {" then "}".  As
 * `record --max-graph-depth` and `uftrace replay -D` show it, it must be
 * "f();" with its duration: its ENTRY and EXIT folded into one LEAF.
 *
 * The EXIT comes later in the stream, after other threads' events, so the
 * fold holds the ENTRY (and whatever passes meanwhile, in order, their
 * data copied) until it knows: the thread's next shown event is the EXIT
 * at the same depth (fold), or something else (no fold).  At most
 * FOLD_MAX events wait; past that the oldest ENTRY is let through as it
 * is, so memory stays bounded.
 */
#ifndef UTRACE_LIB_REPORT_FOLD_H
#define UTRACE_LIB_REPORT_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

#define FOLD_MAX 4096

struct fold_slot {
	struct utrace_event ev;
	bool pending; /* an ENTRY that may still become a LEAF */
	void *data;   /* a copy of ev.data */
	uint32_t cap;
};

struct report_fold {
	uint32_t max_depth; /* the filter's, after rebasing: ENTRY at max_depth - 1 folds */
	struct fold_slot *q;
	uint32_t head, n; /* ring of FOLD_MAX slots */
	bool done;	  /* the stream under it ended */
};

/* The next event of the stream pull() gives, folded; 1, 0 at the end, <0. */
typedef int (*report_fold_pull)(void *arg, struct utrace_event *ev, struct utrace_error *err);
int report_fold_next(struct report_fold *f, report_fold_pull pull, void *arg,
		     struct utrace_event *out, struct utrace_error *err);
void report_fold_reset(struct report_fold *f, uint32_t max_depth);
void report_fold_free(struct report_fold *f);

#endif
