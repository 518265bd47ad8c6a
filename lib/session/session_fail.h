/* SPDX-License-Identifier: MIT */
/*
 * session_fail.h - how the parts of a recording say what stopped it
 * (lib/session/session_fail.c): the error the command prints (one line,
 * lib/base/error.h) and the lines it prints after it (the expression at
 * fault with a caret under the column, as the kernel's error_log shows
 * it), returned up to utrace_session_start; and the lines a recording
 * says on its way (to the command's stderr, the session's log).
 */
#ifndef UTRACE_SESSION_FAIL_H
#define UTRACE_SESSION_FAIL_H

#include <stdio.h>

#include "lib/base/error.h"

struct session_fail {
	struct utrace_error err;
	char *tail; /* malloc'ed lines said after err's, NULL if none */
};

/* fmt as the failure (its code: -1); returns status, the exit status. */
int session_failf(struct session_fail *f, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "  EXPR\n  ^" with the caret under column (1-based; 0: nothing) added
 * to the lines said after the error. */
void session_fail_caret(struct session_fail *f, const char *expr, int column);
/* One line, fmt, added to them. */
void session_fail_line(struct session_fail *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void session_fail_free(struct session_fail *f);

/* "utrace record: " fmt "\n" on log, the command's stderr (NULL: nothing). */
void session_log(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
