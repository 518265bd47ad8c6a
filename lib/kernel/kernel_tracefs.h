/* SPDX-License-Identifier: MIT */
/*
 * kernel_tracefs.h - file access to the kernel's tracefs, for lib/kernel/kernel_trace.c,
 * kernel_trigger.c and kernel_reset.c.  Paths are PATH_MAX buffers.
 */
#ifndef UTRACE_LIB_TRACEFS_H
#define UTRACE_LIB_TRACEFS_H

#include <stdbool.h>

#include "lib/base/error.h"

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
/* The last entry of dir's error_log, the kernel's reason for refusing a
 * filter or trigger written to SYSTEM:NAME: err->msg "SYSTEM:NAME: its
 * message", err->column the caret's column in the text written (1 if it
 * has none).  Returns code. */
int utrace_tracefs_error_log(const char *dir, const char *system, const char *name, int code,
			     struct utrace_error *err);

#endif
