/* SPDX-License-Identifier: MIT */
/*
 * progname.c - the name the commands print their messages under, shared
 * by every command (cmds/cmds.h).  Kept apart from utrace.c, which calls
 * the commands, so that calls between the files go one way.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/base/error.h"

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

int utrace_opt_error(const char *cmd, const char *shortopts, char **argv)
{
	const char *arg = argv[optind - 1];
	bool is_long = arg[0] == '-' && arg[1] == '-';
	int len = (int)strcspn(arg, "=");

	/* getopt_long() with opterr = 0: optopt is the option's value when it
	 * is known and lacks its argument, 0 for an unknown long option, the
	 * letter of an unknown short one */
	if (optopt && (is_long || strchr(shortopts, optopt)))
		utrace_die_msg(cmd, "option '%.*s' needs a value (see 'utrace %s --help')",
			       is_long ? len : 2, is_long ? arg : (char[]){'-', (char)optopt}, cmd);
	else if (optopt)
		utrace_die_msg(cmd, "unknown option '-%c' (see 'utrace %s --help')", optopt, cmd);
	else
		utrace_die_msg(cmd, "unknown option '%.*s' (see 'utrace %s --help')", len, arg, cmd);
	return 2;
}

int utrace_usage_status(const struct utrace_error *err)
{
	return err->code == -ENOMEM ? 1 : 2;
}

int utrace_flush_stdout(const char *cmd)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	utrace_die_msg(cmd, "write error: %s", strerror(errno));
	return 1;
}
