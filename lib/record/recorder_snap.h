/* SPDX-License-Identifier: MIT */
/*
 * recorder_snap.h - the recorder's snapshots the runtime asks for on the
 * control page (recorder_snap.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_SNAP_H
#define UTRACE_LIB_RECORDER_SNAP_H

#include <stdint.h>

struct utrace_recorder;
struct utrace_error;
struct utrace_dat_snapshot;

/* The state of this file, made with the recorder (-ENOMEM), freed with
 * it; the next snapshot's id (the kernel's, recorder_kmerge.c) */
int rec_snap_new(struct utrace_recorder *r);
void rec_snap_free(struct utrace_recorder *r);
uint32_t rec_snap_new_id(struct utrace_recorder *r);
/* An instance's reader is free again: its snapshots so far are said to
 * be of UTRACE_READERS (a removed one's), not of the reader's next holder */
void rec_snap_reader_drop(struct utrace_recorder *r, unsigned reader);
/* recorder_snap.c: the snapshots asked for since the last call, taken */
int rec_snap_poll(struct utrace_recorder *r, struct utrace_error *err);
/* Every live thread's ring into snapshot s (its SNAP_PAGEs, s->pages and
 * s->torn counted), the sub-buffers up to s->tsc; the caller writes the
 * SNAPSHOT record. */
int rec_snap_threads(struct utrace_recorder *r, struct utrace_dat_snapshot *s,
		     struct utrace_error *err);

#endif
