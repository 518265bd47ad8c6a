/* SPDX-License-Identifier: MIT */
/*
 * info.c - `utrace info [-i FILE | FILE]`: what a recording is, as uftrace
 * info and trace-cmd report --info show it (lib/report/info.c does the
 * work, from the file's index only).
 */
#include <getopt.h>
#include <stdio.h>

#include "cmds/cmds.h"
#include "lib/report/info.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_reader.h"

#define CMD "info"

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace info [-i FILE | FILE]\n"
		   "\n"
		   "Print what a recording is, without reading its events (uftrace info,\n"
		   "trace-cmd report --info): the command line, date, host, kernel, CPUs,\n"
		   "tracer and buffer options; the processes and threads with their names,\n"
		   "records and losses; the events, histograms, snapshots and notices it\n"
		   "holds; the file's size and whether the recording finished.\n"
		   "\n"
		   "  -i, --input FILE   the recording (default: utrace.dat; or FILE as the operand)\n"
		   "  -h, --help         show this help\n"
		   "\n"
		   "See man utrace-info.\n");
}

/* The recording's path from -i or the operand; NULL after saying why
 * (*status the exit status: 0 after --help). */
static const char *info_parse(int argc, char **argv, int *status)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *path = NULL;
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "i:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			*status = 0;
			return NULL;
		}
		if (c != 'i' || path) {
			*status = c == 'i' ? 2 : utrace_opt_error(CMD, "i:h", argv);
			if (c == 'i')
				utrace_die_msg(CMD, "two recordings given (one file)");
			return NULL;
		}
		path = optarg;
	}
	if (optind < argc && !path && optind + 1 == argc)
		return argv[optind];
	if (optind < argc) {
		utrace_die_msg(CMD, "unexpected argument '%s' (one file: -i FILE or FILE)",
			       argv[optind]);
		*status = 2;
		return NULL;
	}
	return path ? path : UTRACE_DAT_DEFAULT;
}

int cmd_info(int argc, char **argv)
{
	struct utrace_error err = {0};
	struct utrace_dat *d;
	int status = 1;
	const char *path = info_parse(argc, argv, &status);

	if (!path)
		return status;
	if (utrace_dat_open(path, &d, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		return 1;
	}
	status = utrace_info_print(d, stdout, &err) < 0;
	if (status)
		utrace_die_msg(CMD, "%s", err.msg);
	utrace_dat_close(d);
	return status;
}
