/* SPDX-License-Identifier: MIT */
/*
 * record_live.h - the live tracefs of `utrace record --tracefs DIR`
 * (cmds/record_live.c): mounted before the command starts, served while
 * the loop yields to it, unmounted before the file is finished.
 */
#ifndef UTRACE_CMDS_RECORD_LIVE_H
#define UTRACE_CMDS_RECORD_LIVE_H

#include "cmds/record.h"

struct record_live;

/* Mounts DIR; NULL (said) on failure.  The caller holds the recorder
 * from now on, letting go of it in record_live_yield. */
struct record_live *record_live_start(struct utrace_recorder *r, const char *dir,
				      const struct record_opts *o);
/* Between two polls: the FUSE threads that wait get the recorder. */
void record_live_yield(struct record_live *rl);
/* Unmounts and frees (NULL: nothing). */
void record_live_stop(struct record_live *rl);

#endif
