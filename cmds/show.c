/* SPDX-License-Identifier: MIT */
/*
 * show.c - `utrace show`: trace-cmd show over the session of utrace
 * start (lib/session/session_folder.h): prints `trace` (or, with -p, the consuming
 * `trace_pipe`, until interrupted), a CPU's, or one of the other files
 * trace-cmd show names with its options.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/session/session_folder.h"

static void show_usage(FILE *f)
{
	fprintf(f, "usage: utrace show [OPTIONS]\n"
		   "\n"
		   "Print the trace of the utrace start session: what the buffers hold\n"
		   "(trace-cmd show).\n"
		   "\n"
		   "  -p                   trace_pipe: consume and print the records as they come\n"
		   "  -c CPU               only CPU's records (per_cpu/cpuCPU/trace)\n"
		   "  -f                   print the path of the file shown first\n"
		   "      --tracing_on     print tracing_on\n"
		   "      --current_tracer print current_tracer\n"
		   "      --buffer_size    print buffer_size_kb\n"
		   "      --ftrace_filter  print set_ftrace_filter\n"
		   "      --ftrace_notrace print set_ftrace_notrace\n"
		   "      --graph_function print set_graph_function\n"
		   "      --graph_notrace  print set_graph_notrace\n"
		   "      --tracefs DIR    the session served at DIR (default: utrace start's)\n"
		   "  -h, --help           this text\n"
		   "\n"
		   "See man utrace-show.\n");
}

/* The long options that name a file: their index is the value - 256. */
static const char *const show_files[] = {
    "tracing_on",	 "current_tracer",     "buffer_size_kb",    "set_ftrace_filter",
    "set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
};

struct show_opts {
	const char *file, *dir;
	bool pipe, path;
	long cpu;
};

/* One option into so; -1 to go on, else the exit status. */
static int show_opt(struct show_opts *so, int c, char **argv)
{
	char *end;

	if (c >= 256) {
		so->file = show_files[c - 256];
		return -1;
	}
	switch (c) {
	case 'p':
		so->pipe = true;
		return -1;
	case 'f':
		so->path = true;
		return -1;
	case 'M':
		so->dir = optarg;
		return -1;
	case 'c':
		so->cpu = strtol(optarg, &end, 10);
		if (*end || !*optarg || so->cpu < 0 || so->cpu > 4095) {
			utrace_die_msg("show", "-c %s: not a CPU number", optarg);
			return 2;
		}
		return -1;
	case 'h':
		show_usage(stdout);
		return 0;
	default:
		utrace_die_msg("show", "unknown option '%s' (see 'utrace show --help')",
			       argv[optind - 1]);
		return 2;
	}
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"tracing_on", no_argument, NULL, 256},	{"current_tracer", no_argument, NULL, 257},
	    {"buffer_size", no_argument, NULL, 258},	{"ftrace_filter", no_argument, NULL, 259},
	    {"ftrace_notrace", no_argument, NULL, 260}, {"graph_function", no_argument, NULL, 261},
	    {"graph_notrace", no_argument, NULL, 262},	{"tracefs", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	struct show_opts so = {.cpu = -1};
	char name[64];
	struct utrace_session_folder s;
	struct utrace_error err = {0};
	int c, ret;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+pfc:h", longopts, NULL)) != -1)
		if ((ret = show_opt(&so, c, argv)) >= 0)
			return ret;
	if (optind < argc) {
		utrace_die_msg("show", "unexpected argument '%s' (see 'utrace show --help')",
			       argv[optind]);
		return 2;
	}
	if (utrace_session_folder_find(so.dir, &s, &err) <= 0) {
		utrace_die_msg("show", "%s", err.msg);
		return 1;
	}
	if (so.file)
		snprintf(name, sizeof(name), "%s", so.file);
	else if (so.cpu >= 0)
		snprintf(name, sizeof(name), "per_cpu/cpu%ld/%s", so.cpu,
			 so.pipe ? "trace_pipe" : "trace");
	else
		snprintf(name, sizeof(name), "%s", so.pipe ? "trace_pipe" : "trace");
	if (so.path)
		printf("%s/%s\n", s.tracefs, name);
	if (utrace_session_cat(&s, name, stdout, &err) < 0) {
		utrace_die_msg("show", "%s", err.msg);
		return 1;
	}
	return 0;
}
