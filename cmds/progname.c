/* SPDX-License-Identifier: MIT */
/*
 * progname.c - the name the commands print their messages under, shared
 * by every command (cmds/cmds.h).  Kept apart from utrace.c, which calls
 * the commands, so that calls between the files go one way.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cmds/cmds.h"

const char *utrace_progname(void)
{
	return "utrace";
}

void utrace_die_msg(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "utrace %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
