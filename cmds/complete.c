/* SPDX-License-Identifier: MIT */
/*
 * complete.c - the options a command parses, for the bash completion
 * (scripts/utrace-completion.bash) and the test that holds --help and
 * the man pages to them: `utrace CMD --complete-options` prints the very
 * tables the command gives getopt_long(), one option a line, "NAME ARG"
 * with ARG 0 (no value), 1 (a value) or 2 (an optional value), so no list
 * is scraped from help prose or kept by hand.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"

static void print_options(const char *shortopts, const struct option *longopts)
{
	for (const char *p = shortopts; *p; p++) {
		if (*p == '+' || *p == '-' || *p == ':')
			continue;
		printf("-%c %d\n", *p, p[1] != ':' ? 0 : p[2] == ':' ? 2 : 1);
	}
	for (const struct option *l = longopts; l && l->name; l++)
		printf("--%s %d\n", l->name,
		       l->has_arg == required_argument	 ? 1
		       : l->has_arg == optional_argument ? 2
							 : 0);
}

void utrace_complete_check(int argc, char **argv, const char *shortopts,
			   const struct option *longopts)
{
	if (argc != 2 || strcmp(argv[1], "--complete-options"))
		return;
	print_options(shortopts, longopts);
	/* the command line's own exit: nothing else of the command runs */
	exit(fflush(stdout) == 0 ? 0 : 1);
}

int utrace_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		  int *idx)
{
	utrace_complete_check(argc, argv, shortopts, longopts);
	return getopt_long(argc, argv, shortopts, longopts, idx);
}
