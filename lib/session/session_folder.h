/* SPDX-License-Identifier: MIT */
/*
 * session_folder.h - the session of `utrace start` that the other verbs
 * (stop, restart, show, extract, reset) and `utrace stream` reach
 * (lib/session/session_folder.c).
 *
 * One session per user at a time, as the kernel has one tracefs: its
 * files are in the session directory, $XDG_RUNTIME_DIR/utrace or else
 * /tmp/utrace-UID (mode 0700, owned by the user; utrace_session_folder_open
 * refuses one that is not, or is a link: another user may have made it
 * first):
 *   tracefs/      where the live tracefs is mounted (unless --tracefs DIR)
 *   session       "PID\nDIR\n": the recorder's pid and the mount
 *   spool-PID.dat the recorder's own file while it runs (metadata: the
 *                 records stay in the buffers, docs/utrace-start.md)
 *   last.dat      the spool of a session whose program ended: what the
 *                 buffers held then (utrace extract reads it, reset
 *                 removes it)
 */
#ifndef UTRACE_SESSION_FOLDER_H
#define UTRACE_SESSION_FOLDER_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/base/error.h"

struct utrace_session_folder {
	char dir[PATH_MAX];	/* the session directory */
	char tracefs[PATH_MAX]; /* the mount */
	pid_t pid;		/* the recorder, 0 if none */
};

/* The session directory into s->dir, made if missing; -1 (err) if it
 * cannot be. */
int utrace_session_folder_open(struct utrace_session_folder *s, struct utrace_error *err);
/* fopen of a session file, never through a symbolic link (O_NOFOLLOW),
 * made 0600 if O_CREAT; NULL with errno if it cannot be. */
FILE *utrace_session_fopen(const char *path, int flags);
/* s->dir/NAME into buf. */
void utrace_session_folder_path(const struct utrace_session_folder *s, const char *name, char *buf,
				size_t size);
/* The session that runs: s->pid, s->tracefs from the session file, or
 * tracefs (--tracefs) if not NULL.  1 if one runs; 0 if none does, err
 * saying so; < 0 (err) if the directory cannot be used. */
int utrace_session_folder_find(const char *tracefs, struct utrace_session_folder *s,
			       struct utrace_error *err);
/* Whether a live utrace tracefs answers at dir. */
bool utrace_session_mounted(const char *dir);
/* Copies file NAME of the mount to out; 0, or < 0 (err). */
int utrace_session_cat(const struct utrace_session_folder *s, const char *name, FILE *out,
		       struct utrace_error *err);
/* Writes text into file NAME of the mount; 0, or < 0 (err). */
int utrace_session_write(const struct utrace_session_folder *s, const char *name, const char *text,
			 struct utrace_error *err);
/* Ends a session's recorder if it runs (SIGTERM: tracing off, the mount
 * removed, the program left running untraced) and frees its buffers (the
 * spool and last.dat) and files; true if a recorder was ended.  A
 * recorder that is gone (killed) is not signalled: its pid may be
 * another process's by now; nor is a pid that is not a utrace start
 * recorder of this user (the file may name any). */
bool utrace_session_end(struct utrace_session_folder *s, bool running);

#endif
