/* SPDX-License-Identifier: MIT */
/*
 * private_file.h - creating a file that holds trace data: readable by its
 * owner only, as perf creates perf.data 0600.  A trace holds function
 * arguments, strings and kernel events of the traced program.
 */
#ifndef UTRACE_LIB_PRIVATE_FILE_H
#define UTRACE_LIB_PRIVATE_FILE_H

/* open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600); a
 * regular file that was there already and that we own loses its group
 * and other bits too (the umask and the old mode may only narrow 0600).
 * The descriptor, or -1 with errno set. */
int utrace_create_private(const char *path, int flags);

#endif
