/* SPDX-License-Identifier: MIT */
/*
 * report.c - `utrace report`: prints a utrace.dat in ftrace's text
 * formats (lib/report_text.c does the printing), then, on stderr, what
 * went wrong while recording: warnings about a damaged or unfinished
 * file, the runtime's notices, and the events lost per thread.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/dat_reader.h"
#include "lib/report_text.h"

#define LOST_LINES_MAX 20

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace report [-i FILE] [-O [no]OPTION]... [--help]\n"
		"\n"
		"Print a recorded trace as the kernel prints /sys/kernel/tracing/trace:\n"
		"the function tracer's or function_graph's format, after the tracer the\n"
		"recording used.\n"
		"\n"
		"  -i, --input FILE     the recording (default: utrace.dat)\n"
		"  -O, --option OPT     set a trace option, or clear it with a 'no' prefix:\n"
		"                       %s\n"
		"  -h, --help           show this help\n",
		utrace_report_option_names());
}

/* err.msg starts with the file name when it is about the file */
static int fail(const char *path, const struct utrace_error *err)
{
	size_t n = strlen(path);

	if (!strncmp(err->msg, path, n) && err->msg[n] == ':')
		utrace_die_msg("report", "%s", err->msg);
	else
		utrace_die_msg("report", "%s: %s", path, err->msg);
	return 1;
}

static void print_summary(struct utrace_dat *d, const struct utrace_report_summary *sum)
{
	unsigned nw = utrace_dat_warning_count(d), kept = 0, shown = 0, threads = 0;

	for (const char *w; kept < nw && (w = utrace_dat_warning(d, kept)); kept++)
		fprintf(stderr, "utrace report: warning: %s\n", w);
	if (kept < nw)
		fprintf(stderr, "utrace report: warning: ... and %u more warnings\n", nw - kept);
	if (sum->warnings)
		fprintf(stderr,
			"utrace report: warning: %" PRIu64 " sub-buffer%s cut short at a bad "
			"record; the first: %s\n",
			sum->warnings, sum->warnings == 1 ? "" : "s", sum->warning);
	for (unsigned i = 0; i < utrace_dat_notice_count(d); i++)
		fprintf(stderr, "utrace report: notice: %s\n", utrace_dat_notice(d, i));

	for (unsigned i = 0; i < sum->nr_bufs; i++)
		threads += sum->buf_lost[i] != 0;
	if (sum->lost)
		fprintf(stderr, "utrace report: %" PRIu64 " event%s lost in %u thread%s:\n",
			sum->lost, sum->lost == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
	for (unsigned i = 0; i < sum->nr_bufs; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);

		if (!sum->buf_lost[i])
			continue;
		if (shown++ == LOST_LINES_MAX) {
			fprintf(stderr, "  ... and %u more threads\n", threads - LOST_LINES_MAX);
			break;
		}
		fprintf(stderr, "  %s-%d: %" PRIu64 " events lost\n", bi->comm, bi->tid,
			sum->buf_lost[i]);
	}
	if (sum->lost_unknown)
		fprintf(stderr,
			"utrace report: %" PRIu64 " time%s, an unknown number of events was lost "
			"(sub-buffers missing)\n",
			sum->lost_unknown, sum->lost_unknown == 1 ? "" : "s");
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"option", required_argument, NULL, 'O'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_report_summary sum;
	struct utrace_report_opts opts;
	const char *path = "utrace.dat";
	struct utrace_error err = {0};
	struct utrace_dat *d;
	int c, ret;

	utrace_report_opts_init(&opts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:O:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case 'O':
			if (utrace_report_set_option(&opts, optarg, &err) < 0) {
				utrace_die_msg("report", "%s", err.msg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("iO", optopt))
				utrace_die_msg("report",
					       "option -%c needs an argument (see 'utrace "
					       "report --help')",
					       optopt);
			else if (optopt)
				utrace_die_msg("report",
					       "unknown option '-%c' (see 'utrace report --help')",
					       optopt);
			else
				utrace_die_msg("report",
					       "unknown option '%s' (see 'utrace report --help')",
					       argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		utrace_die_msg("report", "unexpected argument '%s' (the file is given with -i)",
			       argv[optind]);
		return 1;
	}

	if (utrace_dat_open(path, &d, &err) < 0)
		return fail(path, &err);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	ret = utrace_report_print(d, stdout, &opts, &sum, &err);
	if (ret < 0) {
		fflush(stdout);
		fail(path, &err);
		utrace_report_summary_free(&sum);
		utrace_dat_close(d);
		return 1;
	}
	print_summary(d, &sum);
	utrace_report_summary_free(&sum);
	utrace_dat_close(d);
	return 0;
}
