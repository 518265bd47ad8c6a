/* SPDX-License-Identifier: MIT */
/*
 * report.c - `utrace report`: prints a utrace.dat in ftrace's text
 * formats (lib/report/report_text.c does the printing), or, with --profile, a
 * per-function profile (lib/report/profile.c), or, with --stat, the statistics
 * of each thread's buffer; the events can be selected by thread, CPU,
 * time and function (lib/report/report_filter.c).  Then, on stderr, what went
 * wrong while recording: warnings about a damaged or unfinished file, the
 * runtime's notices, and the events lost per thread.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/report/report_select.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/report/profile.h"
#include "lib/report/report_hist.h"
#include "lib/report/report_profile.h"
#include "lib/report/report_snapshot.h"
#include "lib/report/report_summary.h"
#include "lib/report/samples.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"

enum {
	OPT_STAT = SELECT_OPT + 1,
	OPT_PROFILE,
	OPT_SAMPLES,
	OPT_HIST,
	OPT_CHILDREN,
	OPT_SNAPSHOT,
	OPT_NO_PAGER,
	OPT_COLOR,
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: utrace report [-i FILE] [-O [no]OPTION]... [-t] [SELECTION]...\n"
	    "       utrace report --profile [-s KEYS] [-f FIELDS] [SELECTION]...\n"
	    "       utrace report --stat [SELECTION]...\n"
	    "       utrace report --samples [--sort comm,dso,sym] [-g [caller|callee]]\n"
	    "                     [--children] [-i FILE]\n"
	    "       utrace report --hist [-i FILE]\n"
	    "       utrace report --snapshot [-i FILE] [-O [no]OPTION]... [-t]\n"
	    "\n"
	    "Print a recorded trace as the kernel prints /sys/kernel/tracing/trace:\n"
	    "the function tracer's or function_graph's format, after the tracer the\n"
	    "recording used; or a profile of the functions (uftrace report); or the\n"
	    "statistics of each thread's buffer (trace-cmd report --stat).\n"
	    "\n"
	    "  -i, --input FILE       the recording (default: utrace.dat; or FILE as the\n"
	    "                         operand: utrace report FILE)\n"
	    "  -O, --option OPT       set a trace option, or clear it with a 'no' prefix:\n"
	    "                         %s\n"
	    "                         (funcgraph-proc is on when the recording has more\n"
	    "                         than one thread)\n"
	    "  -t                     timestamps to the nanosecond (not rounded to the us)\n"
	    "      --profile          per function: total time, self time, calls, ...\n"
	    "  -s, --sort KEYS        profile order, comma-separated: total (default)\n"
	    "                         self calls avg min max self-avg self-min self-max name\n"
	    "  -f, --fields FIELDS    profile columns, comma-separated: total total-avg\n"
	    "                         total-min total-max self self-avg self-min self-max\n"
	    "                         call, or all (default: total,self,call and the\n"
	    "                         sort keys)\n"
	    "      --stat             per thread: records, lost events, pages, overrun\n"
	    "      --hist             the histograms of record -R 'hist:...', as the kernel's\n"
	    "                         events/SYSTEM/EVENT/hist files\n"
	    "      --snapshot         the snapshots of record -R snapshot, as the kernel's\n"
	    "                         snapshot file (a line before each when several)\n"
	    "      --samples          the samples of record -F, as perf report --stdio; with\n"
	    "                         --sort KEYS of comm, dso, sym, pid (default comm,dso,sym)\n"
	    "  -g [caller|callee]     with --samples: the call chains under each entry, as\n"
	    "                         perf report -g graph,0.5 (record with --call-graph fp);\n"
	    "                         caller (outermost frame first) by default, or\n"
	    "                         callee (the sampled function first)\n"
	    "      --children         with --samples: each function also gets the samples\n"
	    "                         of what it called (Children and Self columns)\n"
	    "      --no-pager         on a terminal too, no pager ($UTRACE_PAGER, $PAGER,\n"
	    "                         less: the default there)\n"
	    "      --color[=WHEN]     colour the overhead marks and durations and the\n"
	    "                         function names: auto (default: on a terminal,\n"
	    "                         unless $NO_COLOR), always (--color), never\n"
	    "%s"
	    "  -h, --help             show this help\n",
	    utrace_report_option_names(), utrace_report_filter_help());
}

/* What the options set, besides the trace and the selection. */
struct report_args {
	struct utrace_report_opts opts;
	const char *keys; /* -s */
	uint32_t fields;  /* -f */
	int profile, stat, samples, hist, snapshot;
	bool no_pager;
	bool proc_given; /* -O [no]funcgraph-proc: else on for more than one thread */
	int color;	 /* enum utrace_color */
	struct utrace_samples_opts so; /* -g, --children */
	char **argv;
};

/* --samples (perf report's view of the samples), --hist (the hist
 * triggers' tables, as the kernel's hist files), --snapshot (each as the
 * trace would print: none is an error, a flight recorder's script asks
 * whether it fired) or --stat, the first given: one call into lib/report.
 * Returns the command's exit status after printing what went wrong. */
static int report_mode(const struct report_args *a, struct utrace_select_opts *so,
		       struct utrace_dat *d)
{
	enum {
		SAMPLES,
		HIST,
		SNAPSHOT,
		STAT
	} m = a->samples    ? SAMPLES
	      : a->hist	    ? HIST
	      : a->snapshot ? SNAPSHOT
			    : STAT;
	struct utrace_error err = {0};
	int ret;

	if (m == SNAPSHOT || m == STAT)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (m == SAMPLES)
		ret = utrace_samples_report(d, &a->so, stdout, &err);
	else if (m == HIST)
		ret = utrace_report_print_hist(d, stdout, NULL, &err);
	else if (m == SNAPSHOT)
		ret = utrace_report_print_snapshots(d, stdout, &a->opts, &err);
	else
		ret = utrace_report_print_stat(d, stdout, so->filter, &err);
	if (ret == 0 && (m == HIST || m == SNAPSHOT))
		fprintf(stderr, "utrace report: %s holds no %s\n", utrace_dat_path(d),
			m == HIST ? "histogram (record with -e EVENT -R 'hist:keys=...')"
				  : "snapshot (record with -e EVENT -R 'snapshot', and --overwrite "
				    "for a flight recorder)");
	if (((m == SAMPLES && ret == 0) || (m == HIST && ret >= 0)) && fflush(stdout) == EOF)
		ret = utrace_error_set(&err, -1, "writing the report failed");
	if (ret < 0)
		utrace_die_msg("report", "%s", utrace_select_about(so, &err));
	utrace_select_close(so, d);
	/* none of what was asked is a failure, as for --samples */
	return m == SNAPSHOT || m == HIST ? ret <= 0 : ret < 0;
}

static int report_option(void *arg, int c, const char *value, struct utrace_error *err)
{
	struct report_args *a = arg;

	switch (c) {
	case 'O':
		a->proc_given |= !strcmp(value, "funcgraph-proc") || !strcmp(value, "nofuncgraph-proc");
		return utrace_report_set_option(&a->opts, value, err);
	case 't':
		a->opts.nsecs = 1;
		return 0;
	case OPT_PROFILE:
		a->profile = 1;
		return 0;
	case 's':
		a->keys = value; /* checked once the mode is known */
		return 0;
	case OPT_SAMPLES:
		a->samples = 1;
		return 0;
	case OPT_HIST:
		a->hist = 1;
		return 0;
	case OPT_SNAPSHOT:
		a->snapshot = 1;
		return 0;
	case 'g': /* [caller|callee]: perf takes the order as the next word too */
		if (!value && utrace_samples_graph_word(a->argv[optind]))
			value = a->argv[optind++];
		return utrace_samples_parse_graph(value, &a->so.graph, err);
	case OPT_CHILDREN:
		a->so.children = true;
		return 0;
	case OPT_NO_PAGER:
		a->no_pager = true;
		return 0;
	case OPT_COLOR:
		return utrace_color_parse(value, &a->color, err);
	case 'f':
		return utrace_profile_parse_fields(value, &a->fields, err);
	default: /* OPT_STAT */
		a->stat = 1;
		return 0;
	}
}

/* Options that do not go together: <0 with err saying which (a usage
 * error), else 0 with the --samples sort keys parsed. */
static int report_check(struct report_args *a, const struct utrace_select_opts *so,
			struct utrace_error *err)
{
	if (((a->keys && !a->samples) || a->fields) && !a->profile)
		return utrace_error_set(err, -EINVAL,
					"-s and -f are options of --profile (and -s of --samples)");
	if (a->profile && a->keys && utrace_profile_check_sort(a->keys, err) < 0)
		return -EINVAL;
	if ((a->so.graph || a->so.children) && !a->samples)
		return utrace_error_set(err, -EINVAL, "-g and --children are options of --samples");
	if (a->samples && utrace_samples_parse_sort(a->keys ? a->keys : "comm,dso,sym",
						    a->so.order, &a->so.n, err) < 0)
		return -EINVAL;
	if (a->snapshot && !a->samples && !a->hist && so->filter)
		return utrace_error_set(err, -EINVAL,
					"--snapshot prints whole snapshots: no selection");
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"option", required_argument, NULL, 'O'},
	    {"profile", no_argument, NULL, OPT_PROFILE},
	    {"sort", required_argument, NULL, 's'},
	    {"fields", required_argument, NULL, 'f'},
	    {"stat", no_argument, NULL, OPT_STAT},
	    {"samples", no_argument, NULL, OPT_SAMPLES},
	    {"hist", no_argument, NULL, OPT_HIST},
	    {"snapshot", no_argument, NULL, OPT_SNAPSHOT},
	    {"children", no_argument, NULL, OPT_CHILDREN},
	    {"no-pager", no_argument, NULL, OPT_NO_PAGER},
	    {"color", optional_argument, NULL, OPT_COLOR},
	    {NULL, 0, NULL, 0},
	};
	struct report_args a = {.keys = NULL};
	const struct utrace_select_cmd cmd = {"report", "O:ts:f:g::", longopts, report_option,
					      &a, UTRACE_SELECT_FILE, utrace_complete_check};
	struct utrace_select_opts so;
	struct utrace_report_summary sum;
	struct utrace_error err = {0};
	struct utrace_progress *pg;
	struct utrace_dat *d;
	uint64_t unfinished;
	int ret;

	utrace_report_opts_init(&a.opts);
	a.argv = argv;
	ret = utrace_select_parse(&so, &cmd, argc, argv, &err);
	if (ret > 0)
		usage(stdout);
	else if (ret < 0)
		utrace_die_msg("report", "%s", err.msg);
	if (ret)
		return ret < 0 ? utrace_usage_status(&err) : 0;
	if (report_check(&a, &so, &err) < 0) {
		utrace_die_msg("report", "%s", err.msg);
		utrace_select_close(&so, NULL);
		return 2;
	}
	if (utrace_select_open(&so, &d, &err) < 0) {
		utrace_die_msg("report", "%s", err.msg);
		return 1;
	}
	/* decided on the terminal, before a pager takes the output */
	if (utrace_color_on(a.color))
		a.opts.flags |= UTRACE_REPORT_COLOR;
	utrace_dat_show_own(d, a.opts.flags & UTRACE_REPORT_OWN); /* every mode */
	utrace_pager_start(a.no_pager);
	if (a.samples || a.hist || a.snapshot || a.stat)
		return report_mode(&a, &so, d);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	pg = utrace_progress_start("report", d, NULL);
	if (a.profile) {
		ret = utrace_report_profile(d, so.filter, a.keys, a.fields, stdout, &sum,
					    &unfinished, &err);
		utrace_progress_stop(pg);
		pg = NULL;
		if (unfinished)
			fprintf(stderr,
				"utrace report: %" PRIu64 " call%s still running when the trace "
				"ends, timed up to their thread's last event\n",
				unfinished, unfinished == 1 ? " was" : "s were");
	} else {
		a.opts.filter = so.filter;
		/* uftrace shows the thread on every line: the task column when
		 * the graph interleaves threads */
		if (!a.proc_given && utrace_report_many_threads(d, so.filter))
			a.opts.flags |= UTRACE_REPORT_PROC;
		ret = utrace_report_print(d, stdout, &a.opts, &sum, &err);
	}
	utrace_progress_stop(pg);
	if (ret < 0) {
		fflush(stdout);
		utrace_die_msg("report", "%s", utrace_select_about(&so, &err));
		utrace_report_summary_free(&sum);
		utrace_select_close(&so, d);
		return 1;
	}
	utrace_report_summary_write(&so, d, &sum, stderr);
	utrace_report_summary_free(&sum);
	utrace_select_close(&so, d);
	return 0;
}
