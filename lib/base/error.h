/* SPDX-License-Identifier: MIT */
/*
 * lib/base - what every library stands on: errors (this file),
 * shell globs (glob.h), starting a command held before its exec
 * (spawn.h), trace files made 0600 (private_file.h), growable arrays
 * (grow.h).  May use: libc only.
 *
 * error.h - how the libraries report failure.
 *
 * Libraries never print and never exit: a failing call returns a negative
 * value and fills a struct utrace_error with one line that says what and
 * where.  Only the command line (cmds/) prints it and chooses the exit code.
 */
#ifndef UTRACE_LIB_ERROR_H
#define UTRACE_LIB_ERROR_H

#include <stddef.h>

struct utrace_error {
	int code;      /* negative errno, or -1 */
	int column;    /* 1-based column for expression errors, 0 if none */
	char msg[512]; /* one line, no trailing newline */
};

/* Formats msg, sets code, returns code (so: return utrace_error_set(...)). */
int utrace_error_set(struct utrace_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
