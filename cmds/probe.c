/* SPDX-License-Identifier: MIT */
/*
 * probe.c - `utrace probe -V POINT` and `-L FUNC`: what a probe at a point
 * of a program can read and which lines it can be put on, from the
 * program's DWARF, in perf probe -V / -L's layouts.  Options fill a
 * struct; the work is lib/probes/dwarf_list.c's.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/probes/dwarf.h"

struct probe_opts {
	const char *vars;  /* -V POINT */
	const char *lines; /* -L FUNC */
	const char *exec;  /* -x PATH, or the program after -- */
};

static void probe_usage(FILE *f)
{
	fprintf(f, "usage: utrace probe -V POINT [-x PATH | -- PROG]\n"
		   "       utrace probe -L FUNC [-x PATH | -- PROG]\n"
		   "\n"
		   "What a dynamic probe (--probe, see utrace-probes(7)) can see, from the\n"
		   "program's DWARF (build it with -g; debuginfod is asked when\n"
		   "DEBUGINFOD_URLS is set), as perf probe -V and -L print it.\n"
		   "\n"
		   "  -V, --vars=POINT  the variables a probe at POINT can read: FUNC,\n"
		   "                    FUNC+OFFS, FUNC:LINE (LINE as -L numbers it) or\n"
		   "                    FILE:LINE\n"
		   "  -L, --line=FUNC   FUNC's source; the numbered lines can take a probe\n"
		   "                    (FUNC:LINE)\n"
		   "  -x, --exec=PATH   the executable or shared library to read\n"
		   "  -h, --help        this text\n"
		   "\n"
		   "See man utrace-probe.\n");
}

/* PROG as given if it has a '/', else from $PATH. */
static char *find_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(prog, '/'))
		return strdup(prog);
	for (path = path ? path : "/usr/bin:/bin"; *path;) {
		size_t len = strcspn(path, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, prog);
		if (len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return strdup(buf);
		path += len + (path[len] == ':');
	}
	return NULL;
}

static int probe_parse(int argc, char **argv, struct probe_opts *o)
{
	static const struct option longopts[] = {
	    {"vars", required_argument, NULL, 'V'},
	    {"line", required_argument, NULL, 'L'},
	    {"exec", required_argument, NULL, 'x'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+V:L:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			o->vars = optarg;
			break;
		case 'L':
			o->lines = optarg;
			break;
		case 'x':
			o->exec = optarg;
			break;
		case 'h':
			probe_usage(stdout);
			return 1;
		default:
			utrace_die_msg("probe", "%s '%s' (see 'utrace probe --help')",
				       c == ':' ? "missing value for" : "unknown option",
				       argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc && !o->exec)
		o->exec = argv[optind++];
	if (optind < argc || !o->exec || !o->vars == !o->lines) {
		utrace_die_msg("probe", "%s (see 'utrace probe --help')",
			       optind < argc ? "too many arguments"
			       : !o->exec    ? "which program? -x PATH or -- PROG"
					     : "one of -V POINT or -L FUNC");
		return -1;
	}
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_opts o = {0};
	struct utrace_error err = {0};
	struct utrace_dwarf *d;
	char *path;
	int ret = probe_parse(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	path = find_program(o.exec);
	if (!path) {
		utrace_die_msg("probe", "%s: not found in $PATH", o.exec);
		return 2;
	}
	ret = utrace_dwarf_open(path, &d, &err);
	free(path);
	if (ret == 0)
		ret = o.vars ? utrace_dwarf_list_vars(d, o.vars, stdout, &err)
			     : utrace_dwarf_list_lines(d, o.lines, stdout, &err);
	utrace_dwarf_close(d);
	if (ret < 0) {
		utrace_die_msg("probe", "%s", err.msg);
		return 2;
	}
	return 0;
}
