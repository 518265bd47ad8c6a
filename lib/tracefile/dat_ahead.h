/* SPDX-License-Identifier: MIT */
/*
 * dat_ahead.h - the buffers of a utrace.dat decoded ahead by worker
 * threads (dat_ahead.c), for the iterator (dat_iter.c) to merge.
 */
#ifndef UTRACE_LIB_TRACEFILE_DAT_AHEAD_H
#define UTRACE_LIB_TRACEFILE_DAT_AHEAD_H

#include "lib/tracefile/dat_decode.h"

/* Decodes cursor i's next event into *ev (its data may point into the
 * cursor's page): 1, 0 at its end, <0 with err set.  Damaged sub-buffers
 * are counted into *warn.  Called by one worker thread per cursor. */
typedef int (*dat_ahead_fill)(void *ctx, size_t i, struct utrace_event *ev,
			      struct dat_warnings *warn, struct utrace_error *err);

struct dat_ahead;

/* Up to this many cursors are decoded ahead; past it, the iterator
 * decodes as it merges (memory: 4 batches of 512 events, 380 KB, a
 * cursor). */
#define DAT_AHEAD_MAX_CURSORS 16

/* Workers (as many as utrace_dat_read_threads() allows, at most one a
 * cursor) decoding the cursors listed in idx[0, n) ahead, each into its
 * own bounded queue.  NULL if none are allowed, or threads cannot be
 * made: then the iterator decodes itself. */
struct dat_ahead *dat_ahead_start(dat_ahead_fill fill, void *ctx, const size_t *idx, size_t n);
/* Whether cursor i is decoded ahead. */
int dat_ahead_has(const struct dat_ahead *a, size_t i);
/* Cursor i's next event into *ev, as fill gives them, in order, its
 * data valid until the next call for i; the warnings met before it are
 * added to *warn, as if decoded here. */
int dat_ahead_next(struct dat_ahead *a, size_t i, struct utrace_event *ev,
		   struct dat_warnings *warn, struct utrace_error *err);
/* Stops and joins the workers, frees the queues. */
void dat_ahead_stop(struct dat_ahead *a);

#endif
