/* SPDX-License-Identifier: MIT */
/*
 * session_live.h - the live tracefs of `utrace record --tracefs DIR`
 * (lib/session/session_live.c): mounted before the command starts, served while
 * the loop yields to it, unmounted before the file is finished.
 */
#ifndef UTRACE_SESSION_LIVE_H
#define UTRACE_SESSION_LIVE_H

#include "lib/session/session.h"

struct session_live;

/* Mounts DIR; NULL (err says why) on failure.  The caller holds the recorder
 * from now on, letting go of it in session_live_yield. */
struct session_live *session_live_start(struct utrace_recorder *r, const char *dir,
					const struct utrace_session_opts *o,
					struct utrace_error *err);
/* The kernel's instance of the recording (NULL: none): a read of the
 * file written so far reads its pages first, so that it holds the
 * kernel's records too, and their triggers have run. */
struct utrace_ktrace;
void session_live_kernel(struct session_live *rl, struct utrace_ktrace *kt);
/* Between two polls: the FUSE threads that wait get the recorder. */
void session_live_yield(struct session_live *rl);
/* Unmounts and frees (NULL: nothing). */
void session_live_stop(struct session_live *rl);

#endif
