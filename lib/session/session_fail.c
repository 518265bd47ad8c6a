/* SPDX-License-Identifier: MIT */
/*
 * session_fail.c - the failure that stops a recording, kept for the
 * command to print, and the lines the recording says on its way
 * (lib/session/session_fail.h).  The library never prints on its own:
 * the log is the FILE the command handed it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session/session_fail.h"

int session_failf(struct session_fail *f, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err.msg, sizeof(f->err.msg), fmt, ap);
	va_end(ap);
	f->err.code = -1;
	return status;
}

static void fail_append(struct session_fail *f, const char *text)
{
	size_t old = f->tail ? strlen(f->tail) : 0, n = strlen(text);
	char *t = realloc(f->tail, old + n + 1);

	if (!t)
		return;
	memcpy(t + old, text, n + 1);
	f->tail = t;
}

void session_fail_caret(struct session_fail *f, const char *expr, int column)
{
	char *line;

	if (column <= 0 || asprintf(&line, "  %s\n  %*s^\n", expr, column - 1, "") < 0)
		return;
	fail_append(f, line);
	free(line);
}

void session_fail_line(struct session_fail *f, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fail_append(f, line);
	fail_append(f, "\n");
	free(line);
}

void session_fail_free(struct session_fail *f)
{
	free(f->tail);
	f->tail = NULL;
}

void session_log(FILE *log, const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	fputs("utrace record: ", log);
	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	fputc('\n', log);
}
