/* SPDX-License-Identifier: MIT */
/*
 * graph.c - `utrace graph [FUNC]`: the calls below a function aggregated
 * by call path, with call counts and times, as `uftrace graph` prints
 * them (lib/callgraph.c).  The events can be selected as for report
 * (lib/report_filter.c).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/callgraph.h"
#include "lib/dat_reader.h"
#include "lib/report_filter.h"

enum {
	OPT_SELECT = 256,
	OPT_ALL,
	OPT_LEVELS,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace graph [-i FILE] [-f FIELDS] [--all] [SELECTION]... [FUNC]\n"
		"\n"
		"Print the calls made below FUNC (default: main, or every function nothing\n"
		"traced called if there is no main) merged by call path, with the number of\n"
		"calls and their total time, as uftrace graph does; first the call paths\n"
		"that lead to FUNC (BACKTRACE).\n"
		"\n"
		"  -i, --input FILE       the recording (default: utrace.dat)\n"
		"  -f, --fields FIELDS    columns before the tree, comma-separated: total\n"
		"                         (default) self total-avg total-max total-min\n"
		"                         self-avg self-max self-min, or none\n"
		"  -a, --all              the whole graph, every root, even if there is main\n"
		"      --levels N         print at most N levels of calls (default 1000)\n"
		"%s"
		"  -h, --help             show this help\n",
		utrace_report_filter_help());
}

static int fail(const char *path, const struct utrace_error *err)
{
	size_t n = strlen(path);

	if (!strncmp(err->msg, path, n) && err->msg[n] == ':')
		utrace_die_msg("graph", "%s", err->msg);
	else
		utrace_die_msg("graph", "%s: %s", path, err->msg);
	return 1;
}

static void print_notes(struct utrace_dat *d, const struct utrace_pass_stats *st,
			uint64_t unfinished)
{
	unsigned nw = utrace_dat_warning_count(d), kept = 0;

	for (const char *w; kept < nw && (w = utrace_dat_warning(d, kept)); kept++)
		fprintf(stderr, "utrace graph: warning: %s\n", w);
	if (kept < nw)
		fprintf(stderr, "utrace graph: warning: ... and %u more warnings\n", nw - kept);
	if (st->damaged)
		fprintf(stderr,
			"utrace graph: warning: %" PRIu64
			" sub-buffer%s cut short at a bad record; "
			"the first: %s\n",
			st->damaged, st->damaged == 1 ? "" : "s", st->damaged_first);
	if (st->lost || st->lost_unknown)
		fprintf(stderr,
			"utrace graph: warning: events were lost (%" PRIu64
			"%s): counts and times are low ('utrace report' shows where)\n",
			st->lost, st->lost_unknown ? " and more" : "");
	if (unfinished)
		fprintf(stderr,
			"utrace graph: %" PRIu64 " call%s still running when the trace ends, "
			"timed up to their thread's last event\n",
			unfinished, unfinished == 1 ? " was" : "s were");
}

static int add_event(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_callgraph_add(arg, ev, err);
}

int cmd_graph(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"fields", required_argument, NULL, 'f'},
	    {"all", no_argument, NULL, 'a'},
	    {"levels", required_argument, NULL, OPT_LEVELS},
	    UTRACE_REPORT_FILTER_LONGOPTS(OPT_SELECT),
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint32_t fields = UTRACE_CALLGRAPH_DEFAULT_FIELDS;
	const char *path = "utrace.dat", *func = NULL, *tracer;
	struct utrace_report_filter *filter = NULL;
	struct utrace_error err = {0};
	struct utrace_pass_stats st;
	struct utrace_callgraph *g;
	int c, idx, ret, all = 0;
	unsigned levels = 0;
	struct utrace_dat *d;

	if (utrace_report_filter_new(&filter, &err) < 0) {
		utrace_die_msg("graph", "%s", err.msg);
		return 1;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:f:aF:D:r:h", longopts, &idx)) != -1) {
		const char *key =
		    c == OPT_SELECT ? longopts[idx].name : utrace_report_filter_short_key(c);
		char *end;

		ret = 0;
		if (key) {
			ret = utrace_report_filter_add(filter, key, optarg, &err);
		} else if (c == 'i') {
			path = optarg;
		} else if (c == 'f') {
			ret = utrace_callgraph_parse_fields(optarg, &fields, &err);
		} else if (c == 'a') {
			all = 1;
		} else if (c == OPT_LEVELS) {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > 1000000)
				ret = utrace_error_set(
				    &err, -1, "--levels '%s': expected 1 to 1000000", optarg);
			levels = (unsigned)v;
		} else if (c == 'h') {
			usage(stdout);
			utrace_report_filter_free(filter);
			return 0;
		} else {
			if (optopt >= OPT_SELECT || (optopt && strchr("ifFDr", optopt)))
				utrace_die_msg("graph",
					       "option '%s' needs an argument (see 'utrace graph "
					       "--help')",
					       argv[optind - 1]);
			else if (optopt)
				utrace_die_msg("graph",
					       "unknown option '-%c' (see 'utrace graph --help')",
					       optopt);
			else
				utrace_die_msg("graph",
					       "unknown option '%s' (see 'utrace graph --help')",
					       argv[optind - 1]);
			utrace_report_filter_free(filter);
			return 1;
		}
		if (ret < 0) {
			utrace_die_msg("graph", "%s", err.msg);
			utrace_report_filter_free(filter);
			return 1;
		}
	}
	if (optind < argc)
		func = argv[optind++];
	if (optind < argc || (func && all)) {
		utrace_die_msg("graph", "unexpected argument '%s' (one FUNC, or --all)",
			       optind < argc ? argv[optind] : func);
		utrace_report_filter_free(filter);
		return 1;
	}
	if (!utrace_report_filter_active(filter)) {
		utrace_report_filter_free(filter);
		filter = NULL;
	}

	if (utrace_dat_open(path, &d, &err) < 0) {
		utrace_report_filter_free(filter);
		return fail(path, &err);
	}
	tracer = utrace_dat_meta(d, "tracer");
	if (tracer && strcmp(tracer, "function_graph")) {
		utrace_die_msg("graph",
			       "%s: a call graph needs entries and returns: record with -p "
			       "function_graph (this trace used the %s tracer)",
			       path, tracer);
		utrace_report_filter_free(filter);
		utrace_dat_close(d);
		return 1;
	}
	ret = utrace_callgraph_new(d, &g, &err);
	if (ret == 0) {
		ret = utrace_report_filter_run(filter, d, add_event, g, &st, &err);
		if (ret == 0)
			ret = utrace_callgraph_finish(g, &err);
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
		if (ret == 0 && all)
			ret = utrace_callgraph_print_all(g, stdout, fields, levels, &err);
		else if (ret == 0)
			ret = utrace_callgraph_print(g, stdout, func, fields, levels, &err);
		if (ret == 0 && fflush(stdout) == EOF)
			ret = utrace_error_set(&err, -1, "writing the graph failed");
		if (ret == 0)
			print_notes(d, &st, utrace_callgraph_unfinished(g));
		utrace_callgraph_free(g);
	}
	utrace_report_filter_free(filter);
	if (ret < 0)
		fail(path, &err);
	utrace_dat_close(d);
	return ret < 0;
}
