/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - file access to the kernel's tracefs, for lib/kernel/kernel_trace.c
 * and lib/kernel/kernel_reset.c.  Paths are PATH_MAX buffers.
 */
#ifndef UTRACE_LIB_TRACEFS_H
#define UTRACE_LIB_TRACEFS_H

#include <stdbool.h>

/* Where tracefs is mounted (mounting it at /sys/kernel/tracing if it is
 * not, which needs root), or NULL. */
const char *utrace_tracefs_root(void);
/* Writes text to path in one write(); flags: O_TRUNC (a file holding a
 * list: replace it) or O_APPEND (add to it).  0 or -errno. */
int utrace_tracefs_write(const char *path, const char *text, int flags);
/* The whole file, NUL-terminated (malloc'd), or NULL with errno set. */
char *utrace_tracefs_read(const char *path);
/* "dir/" + fmt..., written to buf (PATH_MAX bytes); returns buf. */
const char *utrace_tracefs_path(char *buf, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool utrace_tracefs_is_dir(const char *path);
/* An instance directory: tracing off, events off, rmdir (EBUSY, from a
 * file just closed, is retried for a while).  0, or -errno. */
int utrace_tracefs_remove_instance(const char *dir);

#endif
