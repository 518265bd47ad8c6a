/* SPDX-License-Identifier: MIT */
/*
 * dump.c - `utrace dump`: a recorded trace for other tools, like
 * `uftrace dump`: Perfetto's protobuf trace (lib/export/export_perfetto.c),
 * Chrome trace-event JSON for Perfetto and chrome://tracing
 * (lib/export/export_chrome.c), folded stacks for flamegraph.pl
 * (lib/export/export_flame.c), or the raw events one per line.  The events can be
 * selected as for report (lib/report/report_filter.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/report/report_select.h"
#include "lib/base/private_file.h"
#include "lib/export/export_dump.h"
#include "lib/report/callgraph.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/export/export_chrome.h"
#include "lib/export/export_diff.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_perfetto.h"
#include "lib/export/export_pprof.h"
#include "lib/export/export_svg.h"
#include "lib/report/report_filter.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

enum {
	OPT_CHROME = SELECT_OPT + 1,
	OPT_FLAME,
	OPT_PERFETTO,
	OPT_PPROF,
	OPT_SVG,
	OPT_ICICLE,
	OPT_TITLE,
	OPT_DIFF,
	OPT_COMPLETE,
	OPT_UNIT,
	OPT_SOURCE,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace dump [-i FILE] [-o OUT] [SELECTION]...\n"
		"       utrace dump --chrome [--complete] [-i FILE] [-o OUT] [SELECTION]...\n"
		"       utrace dump --flame-graph [--flame-unit ns|us] [-i FILE] [-o OUT] ...\n"
		"       utrace dump --perfetto -o OUT.pftrace [-i FILE] [SELECTION]...\n"
		"       utrace dump --flame-graph --svg [--icicle] [--title T] [-i FILE] [-o "
		"OUT.svg] ...\n"
		"       utrace dump --flame-graph --svg --diff BASE [-i FILE] [-o OUT.svg] ...\n"
		"       utrace dump --pprof -o OUT.pb.gz [-i FILE] [SELECTION]...\n"
		"\n"
		"Write a recorded trace for other tools: Perfetto's protobuf trace or\n"
		"Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and\n"
		"chrome://tracing open; folded stacks for\n"
		"flamegraph.pl, weighted by self time in nanoseconds; or, by default, the\n"
		"raw events one per line.\n"
		"\n"
		"  -i, --input FILE       the recording (default: utrace.dat; or FILE as the\n"
		"                         operand: utrace dump FILE)\n"
		"  -o, --output OUT       write to OUT (default: standard output)\n"
		"      --chrome           Chrome trace-event JSON (B/E and X events)\n"
		"      --complete         with --chrome: one X event per call, at its return\n"
		"      --perfetto         Perfetto's protobuf trace (TrackEvent slices, interned "
		"names)\n"
		"      --pprof            a pprof profile (gzipped protobuf) for go tool pprof\n"
		"      --flame-graph      folded stacks: 'main;parse;lex 1234' per call path\n"
		"      --flame-unit UNIT  ns (default) or us\n"
		"      --source SRC       with --flame-graph or --pprof: what the stacks are:\n"
		"                         functions (the calls' durations) or samples (the\n"
		"                         stacks of record -F, weighted by CPU time); default:\n"
		"                         functions when the file has calls, else samples\n"
		"      --svg              with --flame-graph: an interactive SVG flame graph\n"
		"                         (tooltips, click to zoom, search)\n"
		"      --icicle           with --svg: roots at the top, callees below\n"
		"      --title TEXT       with --svg: the graph's title\n"
		"      --diff BASE        with --svg: a differential flame graph, FILE's widths\n"
		"                         coloured by each frame's self-time change from the\n"
		"                         recording BASE (red: grew, blue: shrank), as\n"
		"                         difffolded.pl and flamegraph.pl draw them\n"
		"%s"
		"  -h, --help             show this help\n",
		utrace_report_filter_help());
}

/* The samples of record -F that a format of events leaves out (Chrome
 * JSON and Perfetto carry them: export_chrome_samples.c,
 * export_perfetto_samples.c). */
static void samples_note(struct utrace_dat *d, enum utrace_dump_format fmt)
{
	struct utrace_error err;
	uint64_t n;

	if (fmt != UTRACE_DUMP_RAW || utrace_dat_sample_count(d, &n, &err) < 0 || !n)
		return;
	fprintf(stderr,
		"utrace dump: %" PRIu64 " samples (record -F) left out: the event dump carries no "
		"samples; --chrome, --perfetto, --pprof and --flame-graph draw them\n",
		n);
}

static void print_notes(const struct utrace_select_opts *so, struct utrace_dat *d,
			const struct utrace_pass_stats *st)
{
	utrace_select_warn(so, d, st->damaged, st->damaged_first, stderr);
	utrace_select_unread(so->cmd, st->damaged, st->unread, st->unread_unknown, stderr);
	utrace_select_own(so->cmd, st->own, stderr);
	if (st->lost || st->lost_unknown)
		fprintf(stderr, "utrace dump: warning: events were lost (%" PRIu64 "%s)\n",
			st->lost, st->lost_unknown ? " and more" : "");
}

static int dump_option(void *arg, int c, const char *value, struct utrace_error *err)
{
	struct utrace_dump_opts *a = arg;
	enum utrace_dump_format want = c == OPT_CHROME	   ? UTRACE_DUMP_CHROME
				       : c == OPT_PERFETTO ? UTRACE_DUMP_PERFETTO
				       : c == OPT_PPROF	   ? UTRACE_DUMP_PPROF
							   : UTRACE_DUMP_FLAME;

	switch (c) {
	case 'o':
		a->outpath = value;
		return 0;
	case OPT_CHROME:
	case OPT_FLAME:
	case OPT_PERFETTO:
	case OPT_PPROF:
		if (a->fmt != UTRACE_DUMP_RAW && a->fmt != want)
			return utrace_error_set(
			    err, -1, "one of --chrome, --flame-graph, --perfetto and --pprof");
		a->fmt = want;
		return 0;
	case OPT_COMPLETE:
		a->chrome_flags |= UTRACE_CHROME_COMPLETE;
		return 0;
	case OPT_SVG:
		a->svg = true;
		return 0;
	case OPT_ICICLE:
		a->svg_opts.icicle = true;
		return 0;
	case OPT_TITLE:
		a->svg_opts.title = value;
		return 0;
	case OPT_DIFF:
		a->diff = value;
		return 0;
	case OPT_SOURCE:
		if (!strcmp(value, "functions"))
			a->source = UTRACE_DUMP_FUNCTIONS;
		else if (!strcmp(value, "samples"))
			a->source = UTRACE_DUMP_SAMPLES;
		else
			return utrace_error_set(err, -1, "--source '%s': functions or samples",
						value);
		return 0;
	default: /* OPT_UNIT */
		if (!strcmp(value, "ns"))
			a->unit = UTRACE_FLAME_NS;
		else if (!strcmp(value, "us"))
			a->unit = UTRACE_FLAME_US;
		else
			return utrace_error_set(err, -1, "--flame-unit '%s': ns or us", value);
		return 0;
	}
}

/* -o FILE: trace data, so 0600 as utrace.dat (lib/base/private_file.h). */
static FILE *dump_create(const char *path)
{
	int fd = utrace_create_private(path, 0);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"chrome", no_argument, NULL, OPT_CHROME},
	    {"complete", no_argument, NULL, OPT_COMPLETE},
	    {"flame-graph", no_argument, NULL, OPT_FLAME},
	    {"flame-unit", required_argument, NULL, OPT_UNIT},
	    {"perfetto", no_argument, NULL, OPT_PERFETTO},
	    {"pprof", no_argument, NULL, OPT_PPROF},
	    {"svg", no_argument, NULL, OPT_SVG},
	    {"icicle", no_argument, NULL, OPT_ICICLE},
	    {"title", required_argument, NULL, OPT_TITLE},
	    {"diff", required_argument, NULL, OPT_DIFF},
	    {"source", required_argument, NULL, OPT_SOURCE},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_dump_opts a = {.fmt = UTRACE_DUMP_RAW, .unit = UTRACE_FLAME_NS};
	const struct utrace_select_cmd cmd = {"dump", "o:", longopts, dump_option, &a,
					      UTRACE_SELECT_FILE, utrace_complete_check};
	struct utrace_select_opts so;
	struct utrace_error err = {0};
	struct utrace_pass_stats st;
	struct utrace_progress *pg;
	struct utrace_dat *d;
	FILE *out = stdout;
	int ret;

	ret = utrace_select_parse(&so, &cmd, argc, argv, &err);
	if (ret > 0)
		usage(stdout);
	else if (ret < 0)
		utrace_die_msg("dump", "%s", err.msg);
	if (ret)
		return ret < 0 ? utrace_usage_status(&err) : 0;
	if ((a.svg && a.fmt != UTRACE_DUMP_FLAME) ||
	    ((a.svg_opts.icicle || a.svg_opts.title || a.diff) && !a.svg)) {
		utrace_die_msg("dump", "%s goes with %s (see 'utrace dump --help')",
			       a.svg		   ? "--svg"
			       : a.svg_opts.icicle ? "--icicle"
			       : a.diff		   ? "--diff"
						   : "--title",
			       a.svg ? "--flame-graph" : "--flame-graph --svg");
		return 2;
	}
	if (a.source && a.fmt != UTRACE_DUMP_FLAME && a.fmt != UTRACE_DUMP_PPROF) {
		utrace_die_msg("dump", "--source goes with --flame-graph or --pprof");
		return 2;
	}
	if (utrace_select_open(&so, &d, &err) < 0) {
		utrace_die_msg("dump", "%s", err.msg);
		return 1;
	}
	/* durations need function_graph; samples do not */
	if ((a.fmt == UTRACE_DUMP_FLAME || a.fmt == UTRACE_DUMP_PPROF) &&
	    (a.source == UTRACE_DUMP_FUNCTIONS ||
	     (a.source == UTRACE_DUMP_AUTO && !utrace_dat_has_samples(d, NULL, NULL))) &&
	    utrace_select_need_graph(&so, d,
				     a.fmt == UTRACE_DUMP_FLAME
					 ? "--flame-graph needs call durations"
					 : "--pprof needs call durations",
				     &err) < 0) {
		utrace_die_msg("dump", "%s", err.msg);
		utrace_select_close(&so, d);
		return 1;
	}
	if (a.fmt == UTRACE_DUMP_PERFETTO && !a.outpath && isatty(STDOUT_FILENO)) {
		utrace_die_msg("dump",
			       "--perfetto writes binary protobuf: give -o FILE or redirect "
			       "standard output");
		utrace_select_close(&so, d);
		return 1;
	}
	if (a.outpath && !(out = dump_create(a.outpath))) {
		utrace_die_msg("dump", "%s: %s", a.outpath, strerror(errno));
		utrace_select_close(&so, d);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	pg = utrace_progress_start("dump", d, a.outpath);
	ret = utrace_export_dump(d, so.filter, &a, out, &st, &err);
	utrace_progress_stop(pg);
	if (ret == 0 && (fflush(out) == EOF || ferror(out)))
		ret = utrace_error_set(&err, -1, "writing %s: %s",
				       a.outpath ? a.outpath : "the dump", strerror(errno));
	if (out != stdout && fclose(out) == EOF && ret == 0)
		ret = utrace_error_set(&err, -1, "writing %s: %s", a.outpath, strerror(errno));
	if (ret < 0)
		utrace_die_msg("dump", "%s", utrace_select_about(&so, &err));
	else
		print_notes(&so, d, &st);
	if (ret == 0)
		samples_note(d, a.fmt);
	utrace_select_close(&so, d);
	return ret < 0;
}
