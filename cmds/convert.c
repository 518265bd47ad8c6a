/* SPDX-License-Identifier: MIT */
/*
 * convert.c - `utrace convert`: writes a utrace.dat as a trace-cmd
 * trace.dat (lib/export/tracedat.c does the work), for `trace-cmd report` and
 * KernelShark; then says on stderr what it wrote and what the recording
 * lost.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/report/report_select.h"
#include "lib/tracefile/dat_reader.h"
#include "lib/export/tracedat.h"
#include "lib/tracefile/dat_samples.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace convert [-i FILE] [-o FILE] [--help]\n"
		   "\n"
		   "Write a recording as a trace-cmd trace.dat (file format version 6),\n"
		   "which `trace-cmd report` prints in its function_graph or function\n"
		   "layout and KernelShark opens.\n"
		   "\n"
		   "  -i, --input FILE     the recording (default: utrace.dat)\n"
		   "  -o, --output FILE    the trace.dat to write (default: trace.dat)\n"
		   "  -h, --help           show this help\n");
}

static int starts_with_path(const char *msg, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(msg, path, n) && msg[n] == ':';
}

/* err.msg starts with the file it is about, or is about the input */
static int fail(const char *in, const char *out, const struct utrace_error *err)
{
	if (starts_with_path(err->msg, in) || starts_with_path(err->msg, out))
		utrace_die_msg("convert", "%s", err->msg);
	else
		utrace_die_msg("convert", "%s: %s", in, err->msg);
	return 1;
}

/* The samples of record -F, which trace.dat does not carry. */
static void print_samples(struct utrace_dat *d)
{
	struct utrace_error err;
	uint64_t n;

	if (utrace_dat_sample_count(d, &n, &err) == 0 && n)
		fprintf(stderr,
			"utrace convert: %" PRIu64 " samples (record -F) left out: trace.dat "
			"carries no samples; utrace report --samples, dump --pprof and "
			"--flame-graph show them\n",
			n);
}

static void print_summary(struct utrace_dat *d, const char *out,
			  const struct utrace_tracedat_stats *st)
{
	unsigned nw = utrace_dat_warning_count(d), kept = 0;

	for (const char *w; kept < nw && (w = utrace_dat_warning(d, kept)); kept++)
		fprintf(stderr, "utrace convert: warning: %s\n", w);
	if (kept < nw)
		fprintf(stderr, "utrace convert: warning: ... and %u more warnings\n", nw - kept);
	if (st->warnings)
		fprintf(stderr,
			"utrace convert: warning: %" PRIu64 " sub-buffer%s cut short at a bad "
			"record; the first: %s\n",
			st->warnings, st->warnings == 1 ? "" : "s", st->warning);
	utrace_select_unread("convert", st->warnings, st->unread, st->unread_unknown, stderr);
	utrace_select_own("convert", st->own, stderr);
	fprintf(stderr,
		"utrace convert: %" PRIu64 " events of %u task%s on %u CPU%s, %u symbols, "
		"written to %s (%" PRIu64 " bytes)\n",
		st->events, st->nr_tasks, st->nr_tasks == 1 ? "" : "s", st->nr_cpus,
		st->nr_cpus == 1 ? "" : "s", st->nr_syms, out, st->file_bytes);
	if (st->tracepoints)
		fprintf(stderr,
			"utrace convert: %" PRIu64 " of them are tracepoint, kernel or text events\n",
			st->tracepoints);
	if (st->skipped)
		fprintf(stderr,
			"utrace convert: warning: %" PRIu64 " events left out: no format in the "
			"recording, or larger than a page\n",
			st->skipped);
	if (st->lost || st->lost_unknown)
		fprintf(stderr,
			"utrace convert: the recording lost %" PRIu64 " events%s (trace-cmd "
			"shows \"EVENTS DROPPED\")\n",
			st->lost, st->lost_unknown ? " and an unknown number more" : "");
	if (st->clamped)
		fprintf(stderr,
			"utrace convert: %" PRIu64 " events out of time order on their CPU were "
			"moved to the time of the event before them\n",
			st->clamped);
	print_samples(d);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *in = UTRACE_DAT_DEFAULT, *out = "trace.dat";
	struct utrace_tracedat_stats st;
	struct utrace_error err = {0};
	struct utrace_progress *pg;
	struct utrace_dat *d;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return utrace_opt_error("convert", "i:o:h", argv);
		}
	}
	if (optind < argc) {
		utrace_die_msg("convert",
			       "unexpected argument '%s' (the files are given with -i and -o)",
			       argv[optind]);
		return 2;
	}
	if (!*in || !*out) {
		utrace_die_msg("convert", "empty file name for -%c", *in ? 'o' : 'i');
		return 2;
	}

	if (utrace_dat_open(in, &d, &err) < 0)
		return fail(in, out, &err);
	pg = utrace_progress_start("convert", d, out);
	ret = utrace_tracedat_convert(d, out, &st, &err);
	utrace_progress_stop(pg);
	if (ret < 0) {
		fail(in, out, &err);
		utrace_dat_close(d);
		return 1;
	}
	print_summary(d, out, &st);
	utrace_dat_close(d);
	return 0;
}
