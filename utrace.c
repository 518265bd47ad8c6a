/* SPDX-License-Identifier: MIT */
/*
 * utrace.c - the command line: dispatches to cmds/<name>.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"

#ifndef UTRACE_VERSION /* set by the Makefile from the file VERSION */
#define UTRACE_VERSION "unknown"
#endif

struct utrace_cmd {
	const char *name;
	const char *help;
	int (*fn)(int argc, char **argv);
};

#define UTRACE_CMD_ENTRY(n, h) {#n, h, cmd_##n},
static const struct utrace_cmd commands[] = {UTRACE_COMMANDS(UTRACE_CMD_ENTRY)};
#undef UTRACE_CMD_ENTRY

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

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace COMMAND [OPTIONS] [ARGS]\n\n"
		   "Function tracing for user programs, modelled on ftrace and trace-cmd.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun 'utrace COMMAND --help' for a command's options,\n"
		   "'utrace --version' for the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version")) {
		printf("utrace %s\n", UTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "utrace: '%s' is not a command (see 'utrace --help')\n", argv[1]);
	return 2;
}
