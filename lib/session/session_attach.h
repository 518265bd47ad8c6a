/* SPDX-License-Identifier: MIT */
/*
 * session_attach.h - `utrace record -P PID`: the processes attached to
 * rather than started (lib/session/session_attach.c, lib/attach/), served
 * by the recording of lib/session/session.c.
 */
#ifndef UTRACE_SESSION_ATTACH_H
#define UTRACE_SESSION_ATTACH_H

#include <stdbool.h>

#include "lib/session/session.h"
#include "lib/session/session_fail.h"

struct session_attach;

/* Every -P checked before anything touches it (runtime: libutrace.so's
 * path); o->argv becomes the first process's program, for the event
 * lookups.  NULL on failure (f says why), *status the exit status. */
struct session_attach *session_attach_check(struct utrace_session_opts *o, const char *runtime,
					    struct session_fail *f, int *status);
/* Injects the runtime into each process and waits until each says it is
 * attached.  0, or the exit status (f says why). */
int session_attach_start(struct session_attach *a, struct utrace_recorder *r,
			 struct session_fail *f);
/* Between two polls: whether the recording is over (--duration, or every
 * process gone). */
bool session_attach_over(struct session_attach *a);
/* Every process put back (before the file is finished); said (o->log). */
void session_attach_detach(struct session_attach *a, struct utrace_recorder *r);
/* 0 if every process was attached and detached, else 1. */
int session_attach_status(const struct session_attach *a);
void session_attach_free(struct session_attach *a);

#endif
