/* SPDX-License-Identifier: MIT */
/*
 * graph.c - `utrace graph [FUNC]`: the calls below a function aggregated
 * by call path, with call counts and times, as `uftrace graph` prints
 * them (lib/report/callgraph.c).  The events can be selected as for report
 * (lib/report/report_filter.c).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/report/report_select.h"
#include "lib/report/callgraph.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/report/report_filter.h"

enum {
	OPT_LEVELS = SELECT_OPT + 1,
	OPT_NO_PAGER,
	OPT_COLOR,
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
		"      --no-pager         on a terminal too, no pager ($UTRACE_PAGER, $PAGER,\n"
		"                         less: the default there)\n"
		"      --color[=WHEN]     colour the durations by their overhead marks and the\n"
		"                         function names: auto (default: on a terminal,\n"
		"                         unless $NO_COLOR), always (--color), never\n"
		"%s"
		"  -h, --help             show this help\n",
		utrace_report_filter_help());
}

static void print_notes(const struct utrace_select_opts *so, struct utrace_dat *d,
			const struct utrace_pass_stats *st, uint64_t unfinished)
{
	utrace_select_warn(so, d, st->damaged, st->damaged_first, stderr);
	utrace_select_unread(so->cmd, st->damaged, st->unread, st->unread_unknown, stderr);
	utrace_select_own(so->cmd, st->own, stderr);
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

/* What the options set, besides the trace and the selection. */
struct graph_args {
	uint32_t fields; /* -f */
	int all;	 /* --all */
	unsigned levels; /* --levels */
	bool no_pager;	 /* --no-pager */
	int color;	 /* --color: enum utrace_color */
};

static int graph_option(void *arg, int c, const char *value, struct utrace_error *err)
{
	struct graph_args *a = arg;
	unsigned long v;
	char *end;

	switch (c) {
	case 'f':
		return utrace_callgraph_parse_fields(value, &a->fields, err);
	case 'a':
		a->all = 1;
		return 0;
	case OPT_NO_PAGER:
		a->no_pager = true;
		return 0;
	case OPT_COLOR:
		return utrace_color_parse(value, &a->color, err);
	default: /* OPT_LEVELS */
		v = strtoul(value, &end, 10);
		a->levels = (unsigned)v;
		if (*end || !v || v > 1000000)
			return utrace_error_set(err, -1, "--levels '%s': expected 1 to 1000000",
						value);
		return 0;
	}
}

int cmd_graph(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"fields", required_argument, NULL, 'f'},
	    {"all", no_argument, NULL, 'a'},
	    {"levels", required_argument, NULL, OPT_LEVELS},
	    {"no-pager", no_argument, NULL, OPT_NO_PAGER},
	    {"color", optional_argument, NULL, OPT_COLOR},
	    {NULL, 0, NULL, 0},
	};
	struct graph_args a = {UTRACE_CALLGRAPH_DEFAULT_FIELDS, 0, 0, false, UTRACE_COLOR_AUTO};
	const struct utrace_select_cmd cmd = {"graph", "f:a", longopts, graph_option, &a,
					      UTRACE_SELECT_OPERANDS, utrace_complete_check};
	struct utrace_select_opts so;
	struct utrace_error err = {0};
	struct utrace_pass_stats st;
	struct utrace_callgraph *g;
	const char *func = NULL;
	struct utrace_dat *d;
	int ret;

	ret = utrace_select_parse(&so, &cmd, argc, argv, &err);
	if (ret > 0)
		usage(stdout);
	else if (ret < 0)
		utrace_die_msg("graph", "%s", err.msg);
	if (ret)
		return ret < 0 ? utrace_usage_status(&err) : 0;
	if (optind < argc)
		func = argv[optind++];
	if (optind < argc || (func && a.all)) {
		utrace_die_msg("graph", "unexpected argument '%s' (one FUNC, or --all)",
			       optind < argc ? argv[optind] : func);
		utrace_select_close(&so, NULL);
		return 2;
	}
	if (utrace_select_open(&so, &d, &err) < 0) {
		utrace_die_msg("graph", "%s", err.msg);
		return 1;
	}
	/* decided on the terminal, before a pager takes the output */
	if (utrace_color_on(a.color))
		a.fields |= UTRACE_CALLGRAPH_COLOR;
	utrace_pager_start(a.no_pager);

	if (utrace_select_need_graph(&so, d, "a call graph needs entries and returns", &err) < 0) {
		utrace_die_msg("graph", "%s", err.msg);
		utrace_select_close(&so, d);
		return 1;
	}
	ret = utrace_callgraph_new(d, &g, &err);
	if (ret == 0) {
		struct utrace_progress *pg = utrace_progress_start("graph", d, NULL);

		ret = utrace_report_filter_run(so.filter, d, add_event, g, &st, &err);
		if (ret == 0)
			ret = utrace_callgraph_finish(g, &err);
		utrace_progress_stop(pg);
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
		if (ret == 0 && a.all)
			ret = utrace_callgraph_print_all(g, stdout, a.fields, a.levels, &err);
		else if (ret == 0)
			ret = utrace_callgraph_print(g, stdout, func, a.fields, a.levels, &err);
		if (ret == 0 && fflush(stdout) == EOF)
			ret = utrace_error_set(&err, -1, "writing the graph failed");
		if (ret == 0)
			print_notes(&so, d, &st, utrace_callgraph_unfinished(g));
		utrace_callgraph_free(g);
	}
	if (ret < 0)
		utrace_die_msg("graph", "%s", utrace_select_about(&so, &err));
	utrace_select_close(&so, d);
	return ret < 0;
}
