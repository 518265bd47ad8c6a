/* SPDX-License-Identifier: MIT */
/*
 * latency.c - `utrace latency -T FUNC -- COMMAND`: perf ftrace latency for
 * a user program.  Runs COMMAND with only the -T functions patched, under
 * function_graph (lib/session, through record_run), into a temporary utrace.dat
 * (or -o FILE), then prints the histogram of their call durations in
 * perf's layout (lib/report/latency.c) after the command's own output.
 *
 * As for record, the command's stdout, stderr and exit status (or the
 * signal that ended it) are passed on unchanged.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/session/session.h"
#include "lib/report/latency.h"
#include "lib/tracefile/dat_reader.h"

#define CMD "latency"

enum {
	OPT_BUCKET_RANGE = 256,
	OPT_MIN_LATENCY,
	OPT_MAX_LATENCY,
	OPT_HIDE_EMPTY,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace latency -T FUNC [-T FUNC]... [OPTIONS] [--] COMMAND [ARGS...]\n"
		"\n"
		"Run COMMAND (built with `utrace cflags`) with only the calls of FUNC traced,\n"
		"and print a histogram of their durations after it ends, as perf ftrace\n"
		"latency does for kernel functions.\n"
		"\n"
		"  -T, --trace-funcs FUNC   the function to time (a glob, as record -l;\n"
		"                           repeatable: one histogram of all their calls)\n"
		"  -n, --use-nsec           nanosecond buckets (default: microseconds)\n"
		"      --bucket-range N     linear buckets N units wide (default: log2)\n"
		"      --min-latency N      with --bucket-range: the first bucket's upper\n"
		"                           edge (default N of --bucket-range)\n"
		"      --max-latency N      with --bucket-range: the last bucket's lower edge\n"
		"                           (default 20 buckets above --min-latency)\n"
		"      --hide-empty         leave out the buckets that counted nothing\n"
		"  -o, --output FILE        keep the recording in FILE (utrace report reads it)\n"
		"  -b, --use-bpf            perf's: refused, utrace times the calls in the\n"
		"                           program itself, without BPF\n"
		"  -h, --help               this text\n"
		"\n"
		"The exit status is COMMAND's.  See man utrace-latency.\n");
}

/* What the options set. */
struct latency_args {
	struct utrace_latency_opts hist;
	struct utrace_func_filter *funcs; /* -T */
	const char *output;		  /* -o, NULL: a temporary file */
	char **argv;
};

static int latency_uint(const char *opt, const char *s, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || v > 1000000000) {
		utrace_die_msg(CMD, "%s: '%s' is not a number from 0 to 1000000000", opt, s);
		return 2;
	}
	*out = (unsigned)v;
	return -1;
}

/* One option; -1 to go on, else the exit status. */
static int latency_opt(struct latency_args *a, int c, char **argv)
{
	struct utrace_error err = {0};

	switch (c) {
	case 'T':
		if (utrace_func_filter_add(a->funcs, UTRACE_FILTER, optarg, &err) < 0) {
			utrace_die_msg(CMD, "-T: %s", err.msg);
			return 2;
		}
		return -1;
	case 'n':
		a->hist.use_nsec = true;
		return -1;
	case 'b':
		utrace_die_msg(CMD, "-b: no BPF here: utrace times the calls inside the program "
				    "itself, without it (leave -b out)");
		return 2;
	case OPT_BUCKET_RANGE:
		return latency_uint("--bucket-range", optarg, &a->hist.bucket_range);
	case OPT_MIN_LATENCY:
		return latency_uint("--min-latency", optarg, &a->hist.min_latency);
	case OPT_MAX_LATENCY:
		return latency_uint("--max-latency", optarg, &a->hist.max_latency);
	case OPT_HIDE_EMPTY:
		a->hist.hide_empty = true;
		return -1;
	case 'o':
		a->output = optarg;
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	default:
		if (c == '?' && optopt && strchr("To", optopt))
			utrace_die_msg(CMD, "-%c needs an argument (see 'utrace latency --help')",
				       optopt);
		else
			utrace_die_msg(CMD, "unknown option '%s' (see 'utrace latency --help')",
				       argv[optind - 1]);
		return 2;
	}
}

/* Fills a from the command line; -1 to go on, else the exit status. */
static int latency_parse(int argc, char **argv, struct latency_args *a)
{
	static const struct option longopts[] = {
	    {"trace-funcs", required_argument, NULL, 'T'},
	    {"use-nsec", no_argument, NULL, 'n'},
	    {"use-bpf", no_argument, NULL, 'b'},
	    {"bucket-range", required_argument, NULL, OPT_BUCKET_RANGE},
	    {"min-latency", required_argument, NULL, OPT_MIN_LATENCY},
	    {"max-latency", required_argument, NULL, OPT_MAX_LATENCY},
	    {"hide-empty", no_argument, NULL, OPT_HIDE_EMPTY},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, ret;

	opterr = 0; /* our own one-line messages */
	while ((c = utrace_getopt(argc, argv, "+T:nbo:h", longopts, NULL)) != -1)
		if ((ret = latency_opt(a, c, argv)) >= 0)
			return ret;
	if (!utrace_func_filter_count(a->funcs, UTRACE_FILTER)) {
		utrace_die_msg(CMD, "no function to time (-T FUNC; see 'utrace latency --help')");
		return 2;
	}
	if (optind >= argc) {
		utrace_die_msg(CMD, "no command to run (usage: utrace latency -T FUNC -- COMMAND)");
		return 2;
	}
	a->argv = argv + optind;
	return -1;
}

/* Says which -T matched nothing, as record does for -l; true if one did. */
static bool latency_unmatched(const struct latency_args *a, const bool *unmatched)
{
	enum utrace_filter_list which;
	const char *expr;
	bool neg, any = false;

	for (size_t i = 0; (expr = utrace_func_filter_expr(a->funcs, i, &which, &neg)); i++) {
		if (!unmatched[i])
			continue;
		utrace_die_msg(CMD,
			       "-T '%s' matched no function of the traced programs (utrace list "
			       "-f %s shows them)",
			       expr, a->argv[0]);
		any = true;
	}
	return any;
}

/* Reads the recording into the histogram and prints it.  0, or 1. */
static int latency_report(const char *path, const struct utrace_latency_opts *o)
{
	struct utrace_error err = {0};
	struct utrace_latency h;
	struct utrace_dat *d;
	uint64_t lost = 0;
	int ret;

	if (utrace_latency_init(&h, o, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		return 1;
	}
	ret = utrace_dat_open(path, &d, &err);
	if (ret == 0) {
		ret = utrace_latency_add_dat(&h, d, &lost, &err);
		utrace_dat_close(d);
	}
	if (ret < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
	} else {
		/* after everything the command wrote, as perf prints it */
		fflush(stdout);
		utrace_latency_print(&h, stdout);
		if (fflush(stdout) == EOF)
			ret = -1;
		if (lost)
			utrace_die_msg(CMD,
				       "warning: %" PRIu64 " events were lost: the counts are low "
				       "(a bigger buffer would keep them)",
				       lost);
	}
	utrace_latency_free(&h);
	return ret < 0;
}

/* Records into o->rec.output and prints the histogram; the exit status. */
static int latency_run(struct latency_args *a, struct utrace_session_opts *o, int *status)
{
	struct utrace_latency h;
	struct utrace_error err = {0};
	bool *unmatched;
	int ret;

	/* the bucket options are checked before the command runs */
	if (utrace_latency_init(&h, &a->hist, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		return 2;
	}
	utrace_latency_free(&h);
	unmatched = calloc(utrace_func_filter_total(a->funcs) + 1, sizeof(*unmatched));
	if (!unmatched) {
		utrace_die_msg(CMD, "out of memory");
		return 1;
	}
	o->unmatched = unmatched;
	ret = record_run(o, status);
	if (ret == UTRACE_SESSION_RAN) {
		if (latency_unmatched(a, unmatched))
			ret = 2;
		else if (latency_report(o->rec.output, &a->hist))
			ret = 1;
		else
			ret = UTRACE_SESSION_RAN;
	}
	free(unmatched);
	return ret;
}

int cmd_latency(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmp[PATH_MAX];
	struct latency_args a = {.funcs = utrace_func_filter_new()};
	struct utrace_session_opts o = {
	    .rec = {.tracer = UTRACE_TRACER_FUNCTION_GRAPH, .buffer_kb = UTRACE_SESSION_BUFFER_KB},
	    .quiet = true,
	    .log = stderr,
	};
	int ret, fd = -1, status = 0;

	if (!a.funcs) {
		utrace_die_msg(CMD, "out of memory");
		return 1;
	}
	ret = latency_parse(argc, argv, &a);
	snprintf(tmp, sizeof(tmp), "%s/utrace-latency-XXXXXX.dat",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (ret < 0 && !a.output && (fd = mkstemps(tmp, 4)) < 0) {
		utrace_die_msg(CMD, "cannot create a temporary file %s: %s", tmp, strerror(errno));
		ret = 1;
	}
	if (ret < 0) {
		o.filter = a.funcs;
		o.argv = a.argv;
		o.rec.output = a.output ? a.output : tmp;
		ret = latency_run(&a, &o, &status);
	}
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	utrace_func_filter_free(a.funcs);
	/* end as the command ended, once the histogram is out */
	return ret == UTRACE_SESSION_RAN ? utrace_exit_like(status) : ret;
}
