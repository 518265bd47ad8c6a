/* SPDX-License-Identifier: MIT */
/*
 * bt_error.c - bpftrace's error layout for a program's parse and check
 * errors, one table of texts (BT_ERRORS in bt_ast.h):
 *
 *   stdin:1:14-22: ERROR: count() requires no arguments (1 provided)
 *   BEGIN { @x = count(1); }
 *                ~~~~~~~~
 *
 * The three lines go into the error's message (no final newline), the
 * command prints them as they are.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"

static const char *const bt_err_text[] = {
#define BT_ERR_TEXT(name, text) text,
    BT_ERRORS(BT_ERR_TEXT)
#undef BT_ERR_TEXT
};

/* The source's line `line` (1-based): its start and length. */
static const char *err_line(const char *src, unsigned line, size_t *len)
{
	for (unsigned l = 1; l < line && *src; src++)
		if (*src == '\n')
			l++;
	*len = strcspn(src, "\n");
	return src;
}

void bt_diag_text(char *buf, size_t size, const struct bt_program *p, struct bt_loc loc,
		  const char *level, const char *text)
{
	char carets[2048];
	size_t n = 0, len, room;
	const char *line = err_line(p->src, loc.line, &len);
	int head = snprintf(buf, size, "%s:%u:%u-%u: %s: %s\n", p->name, loc.line, loc.col,
			    loc.end, level, text);

	if (head < 0 || (size_t)head + 2 >= size)
		return;
	/* the whole line, as bpftrace prints it, where buf holds it twice
	 * (the line and its carets); else as much of it as does */
	room = (size - (size_t)head - 2) / 2;
	if (room >= sizeof(carets))
		room = sizeof(carets) - 1;
	if (len > room)
		len = room;
	for (unsigned c = 1; c < loc.col && n < len; c++)
		carets[n++] = ' ';
	for (unsigned c = loc.col; c < loc.end && n < len; c++)
		carets[n++] = '~';
	carets[n] = 0;
	snprintf(buf + head, size - (size_t)head, "%.*s\n%s", (int)len, line, carets);
}

/* diag and a newline at the end of the program's warnings */
static void warning_add(struct bt_program *p, const char *diag)
{
	size_t old = p->warnings ? strlen(p->warnings) : 0, n = strlen(diag);
	char *w;

	if (!(w = realloc(p->warnings, old + n + 2)))
		return; /* the warning is lost, not the run */
	memcpy(w + old, diag, n);
	w[old + n] = '\n';
	w[old + n + 1] = 0;
	p->warnings = w;
}

void bt_warning(struct bt_program *p, struct bt_loc loc, const char *text)
{
	char diag[4096];

	bt_diag_text(diag, sizeof(diag), p, loc, "WARNING", text);
	warning_add(p, diag);
}

void bt_warning_line(struct bt_program *p, const char *text)
{
	char diag[1024];

	snprintf(diag, sizeof(diag), "WARNING: %s", text);
	warning_add(p, diag);
}

int bt_error(struct utrace_error *err, const struct bt_program *p, struct bt_loc loc,
	     enum bt_err code, ...)
{
	char text[256], msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, code);
	vsnprintf(text, sizeof(text), bt_err_text[code], ap);
	va_end(ap);
	bt_diag_text(msg, sizeof(msg), p, loc, "ERROR", text);
	utrace_error_set(err, -EINVAL, "%s", msg);
	err->column = (int)loc.col;
	return -EINVAL;
}
