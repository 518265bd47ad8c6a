/* SPDX-License-Identifier: MIT */
/*
 * record_attach.h - `utrace record -P PID`: the processes attached to
 * rather than started (cmds/record_attach.c, lib/attach/), served by the
 * recording of cmds/record_run.c.
 */
#ifndef UTRACE_CMDS_RECORD_ATTACH_H
#define UTRACE_CMDS_RECORD_ATTACH_H

#include <stdbool.h>

#include "cmds/record.h"

struct record_attach;

/* Every -P checked before anything touches it (runtime: libutrace.so's
 * path); o->argv becomes the first process's program, for the event
 * lookups.  NULL (said) on failure, *status the exit status. */
struct record_attach *record_attach_check(struct record_opts *o, const char *runtime, int *status);
/* Injects the runtime into each process and waits until each says it is
 * attached.  0, or the exit status (said). */
int record_attach_start(struct record_attach *a, struct utrace_recorder *r);
/* Between two polls: whether the recording is over (--duration, or every
 * process gone). */
bool record_attach_over(struct record_attach *a);
/* Every process put back (before the file is finished); said. */
void record_attach_detach(struct record_attach *a, struct utrace_recorder *r);
/* 0 if every process was attached and detached, else 1. */
int record_attach_status(const struct record_attach *a);
void record_attach_free(struct record_attach *a);

#endif
