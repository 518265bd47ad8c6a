/* SPDX-License-Identifier: MIT */
/*
 * report.c - `utrace report`: prints a utrace.dat in ftrace's text
 * formats (lib/report_text.c does the printing), or, with --profile, a
 * per-function profile (lib/profile.c), or, with --stat, the statistics
 * of each thread's buffer; the events can be selected by thread, CPU,
 * time and function (lib/report_filter.c).  Then, on stderr, what went
 * wrong while recording: warnings about a damaged or unfinished file, the
 * runtime's notices, and the events lost per thread.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/dat_reader.h"
#include "lib/profile.h"
#include "lib/report_filter.h"
#include "lib/report_text.h"

#define LOST_LINES_MAX 20

enum {
	OPT_SELECT = 256, /* a report_filter selection, named by the long option */
	OPT_STAT,
	OPT_PROFILE,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace report [-i FILE] [-O [no]OPTION]... [-t] [SELECTION]...\n"
		"       utrace report --profile [-s KEYS] [-f FIELDS] [SELECTION]...\n"
		"       utrace report --stat [SELECTION]...\n"
		"\n"
		"Print a recorded trace as the kernel prints /sys/kernel/tracing/trace:\n"
		"the function tracer's or function_graph's format, after the tracer the\n"
		"recording used; or a profile of the functions (uftrace report); or the\n"
		"statistics of each thread's buffer (trace-cmd report --stat).\n"
		"\n"
		"  -i, --input FILE       the recording (default: utrace.dat)\n"
		"  -O, --option OPT       set a trace option, or clear it with a 'no' prefix:\n"
		"                         %s\n"
		"  -t                     timestamps to the nanosecond (not rounded to the us)\n"
		"      --profile          per function: total time, self time, calls, ...\n"
		"  -s, --sort KEYS        profile order, comma-separated: total (default)\n"
		"                         self calls avg min max self-avg self-min self-max name\n"
		"  -f, --fields FIELDS    profile columns, comma-separated: total total-avg\n"
		"                         total-min total-max self self-avg self-min self-max\n"
		"                         call, or all (default: total,self,call and the\n"
		"                         sort keys)\n"
		"      --stat             per thread: records, lost events, pages, overrun\n"
		"%s"
		"  -h, --help             show this help\n",
		utrace_report_option_names(), utrace_report_filter_help());
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

/* One pass over the selected events into the profile; counts the losses
 * and damaged sub-buffers into sum as utrace_report_print() does. */
static int profile_pass(struct utrace_dat *d, struct utrace_report_filter *f,
			struct utrace_profile *p, struct utrace_report_summary *sum,
			struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int ret;

	memset(sum, 0, sizeof(*sum));
	sum->nr_bufs = utrace_dat_buffer_count(d);
	sum->buf_lost = calloc(sum->nr_bufs ? sum->nr_bufs : 1, sizeof(*sum->buf_lost));
	if (!sum->buf_lost)
		return utrace_error_set(err, -1, "%s: out of memory", utrace_dat_path(d));
	ret = utrace_report_filter_begin(f, d, err);
	if (ret < 0)
		return ret;
	ret = utrace_dat_iter_open(d, &it, err);
	if (ret < 0)
		return ret;
	while ((ret = utrace_report_filter_next(f, it, &ev, err)) > 0) {
		if (ev.kind == UTRACE_EV_LOST) {
			if (ev.flags & UTRACE_EVF_LOST_UNKNOWN) {
				sum->lost_unknown++;
			} else {
				sum->lost += ev.lost;
				sum->buf_lost[ev.buf] += ev.lost;
			}
			continue;
		}
		sum->events++;
		ret = utrace_profile_add(p, &ev, err);
		if (ret < 0)
			break;
	}
	if (ret == 0 && (sum->warnings = utrace_dat_iter_warnings(it)))
		snprintf(sum->warning, sizeof(sum->warning), "%s", utrace_dat_iter_warning(it));
	utrace_dat_iter_close(it);
	return ret;
}

static int report_profile(struct utrace_dat *d, struct utrace_report_filter *f, const char *keys,
			  uint32_t fields, struct utrace_report_summary *sum,
			  struct utrace_error *err)
{
	struct utrace_profile *p;
	int ret;

	ret = utrace_profile_new(d, &p, err);
	if (ret < 0)
		return ret;
	ret = profile_pass(d, f, p, sum, err);
	if (ret == 0)
		ret = utrace_profile_finish(p, err);
	if (ret == 0 && keys)
		ret = utrace_profile_sort(p, keys, err);
	if (ret == 0)
		ret = utrace_profile_print(p, stdout, fields, err);
	if (ret == 0 && fflush(stdout) == EOF)
		ret =
		    utrace_error_set(err, -1, "%s: writing the profile failed", utrace_dat_path(d));
	if (ret == 0 && utrace_profile_unfinished(p))
		fprintf(stderr,
			"utrace report: %" PRIu64 " call%s still running when the trace ends, "
			"timed up to their thread's last event\n",
			utrace_profile_unfinished(p),
			utrace_profile_unfinished(p) == 1 ? " was" : "s were");
	utrace_profile_free(p);
	return ret;
}

static int usage_error(int c, char **argv)
{
	if (optopt >= OPT_SELECT || (optopt && strchr("iOsfFDr", optopt)))
		utrace_die_msg("report",
			       "option '%s' needs an argument (see 'utrace report --help')",
			       argv[optind - 1]);
	else if (optopt)
		utrace_die_msg("report", "unknown option '-%c' (see 'utrace report --help')",
			       optopt);
	else
		utrace_die_msg("report", "unknown option '%s' (see 'utrace report --help')",
			       argv[optind - 1]);
	return 1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"option", required_argument, NULL, 'O'},
	    {"profile", no_argument, NULL, OPT_PROFILE},
	    {"sort", required_argument, NULL, 's'},
	    {"fields", required_argument, NULL, 'f'},
	    {"stat", no_argument, NULL, OPT_STAT},
	    UTRACE_REPORT_FILTER_LONGOPTS(OPT_SELECT),
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_report_filter *filter = NULL;
	const char *path = "utrace.dat", *keys = NULL;
	int c, ret, idx, profile = 0, stat = 0;
	struct utrace_report_summary sum;
	struct utrace_report_opts opts;
	struct utrace_error err = {0};
	uint32_t fields = 0;
	struct utrace_dat *d;

	utrace_report_opts_init(&opts);
	if (utrace_report_filter_new(&filter, &err) < 0) {
		utrace_die_msg("report", "%s", err.msg);
		return 1;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:O:ts:f:F:D:r:h", longopts, &idx)) != -1) {
		const char *key =
		    c == OPT_SELECT ? longopts[idx].name : utrace_report_filter_short_key(c);

		ret = 0;
		if (key) {
			ret = utrace_report_filter_add(filter, key, optarg, &err);
		} else if (c == 'i') {
			path = optarg;
		} else if (c == 'O') {
			ret = utrace_report_set_option(&opts, optarg, &err);
		} else if (c == 't') {
			opts.nsecs = 1;
		} else if (c == OPT_PROFILE) {
			profile = 1;
		} else if (c == 's') {
			keys = optarg;
			ret = utrace_profile_check_sort(keys, &err);
		} else if (c == 'f') {
			ret = utrace_profile_parse_fields(optarg, &fields, &err);
		} else if (c == OPT_STAT) {
			stat = 1;
		} else if (c == 'h') {
			usage(stdout);
			utrace_report_filter_free(filter);
			return 0;
		} else {
			utrace_report_filter_free(filter);
			return usage_error(c, argv);
		}
		if (ret < 0) {
			utrace_die_msg("report", "%s", err.msg);
			utrace_report_filter_free(filter);
			return 1;
		}
	}
	if (optind < argc) {
		utrace_die_msg("report", "unexpected argument '%s' (the file is given with -i)",
			       argv[optind]);
		utrace_report_filter_free(filter);
		return 1;
	}
	if ((keys || fields) && !profile) {
		utrace_die_msg("report", "-s and -f are options of --profile");
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
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (stat) {
		ret = utrace_report_print_stat(d, stdout, filter, &err);
		utrace_report_filter_free(filter);
		if (ret < 0)
			fail(path, &err);
		utrace_dat_close(d);
		return ret < 0;
	}
	if (profile) {
		const char *tracer = utrace_dat_meta(d, "tracer");

		/* the function tracer has no durations: only the calls */
		if (!fields && tracer && strcmp(tracer, "function_graph"))
			fields = UTRACE_PROFILE_CALLS;
		if (!fields)
			fields = UTRACE_PROFILE_DEFAULT_FIELDS |
				 (keys ? utrace_profile_sort_fields(keys) : 0);
		ret = report_profile(d, filter, keys, fields, &sum, &err);
	} else {
		opts.filter = filter;
		ret = utrace_report_print(d, stdout, &opts, &sum, &err);
	}
	utrace_report_filter_free(filter);
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
