/* SPDX-License-Identifier: MIT */
/*
 * report_select.c - the options and messages `utrace report`, `utrace
 * graph`, `utrace dump` and `utrace convert` share (report_select.h).
 */
#include <inttypes.h>
#include <string.h>

#include "lib/report/report_select.h"

/* The shared short options: -i FILE, the selection's -F -D -r, -h. */
#define SELECT_SHORTOPTS "i:F:D:r:h"

static int option_error(const char *cmd, const char *shortopts, char **argv,
			struct utrace_error *err)
{
	const char *p = optopt > 0 && optopt < SELECT_OPT ? strchr(shortopts, optopt) : NULL;

	/* values of long-only options are SELECT_OPT and above */
	if (optopt >= SELECT_OPT || (p && p[1] == ':'))
		return utrace_error_set(err, -1,
					"option '%s' needs an argument (see 'utrace %s --help')",
					argv[optind - 1], cmd);
	if (optopt)
		return utrace_error_set(err, -1, "unknown option '-%c' (see 'utrace %s --help')",
					optopt, cmd);
	return utrace_error_set(err, -1, "unknown option '%s' (see 'utrace %s --help')",
				argv[optind - 1], cmd);
}

/* -i FILE or the FILE operand: one of them, once. */
static int set_path(struct utrace_select_opts *so, const char *path, struct utrace_error *err)
{
	if (so->path_given)
		return utrace_error_set(err, -1, "two recordings given: '%s' and '%s' (one file)",
					so->path, path);
	so->path = path;
	so->path_given = true;
	return 0;
}

/* 0 to go on, 1 at --help, <0 after an error (in err). */
static int parse(struct utrace_select_opts *so, const struct utrace_select_cmd *cmd, int argc,
		 char **argv, struct utrace_error *err)
{
	static const struct option shared[] = {
	    UTRACE_REPORT_FILTER_LONGOPTS(SELECT_OPT),
	    {"help", no_argument, NULL, 'h'},
	};
	size_t nown = 0, nshared = sizeof(shared) / sizeof(shared[0]);
	char shortopts[64];
	int c, idx, ret;

	while (cmd->longopts[nown].name)
		nown++;
	/* --input, the command's, the selection's, --help: an abbreviation
	 * two options share (--c: cpu, comm) is the first one's */
	struct option longopts[1 + nown + nshared + 1];

	longopts[0] = (struct option){"input", required_argument, NULL, 'i'};
	memcpy(longopts + 1, cmd->longopts, nown * sizeof(longopts[0]));
	memcpy(longopts + 1 + nown, shared, sizeof(shared));
	longopts[1 + nown + nshared] = (struct option){NULL, 0, NULL, 0};
	snprintf(shortopts, sizeof(shortopts), "+%s" SELECT_SHORTOPTS, cmd->shortopts);

	if (cmd->tables)
		cmd->tables(argc, argv, shortopts, longopts);
	optind = 0;
	opterr = 0;
again:
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		const char *key =
		    c == SELECT_OPT ? longopts[idx].name : utrace_report_filter_short_key(c);

		if (key) {
			ret = utrace_report_filter_add(so->filter, key, optarg, err);
		} else if (c == 'i') {
			ret = set_path(so, optarg, err);
		} else if (c == 'h') {
			return 1;
		} else if (c == '?') {
			return option_error(cmd->name, shortopts, argv, err);
		} else {
			ret = cmd->option(cmd->arg, c, optarg, err);
		}
		if (ret < 0)
			return -1;
	}
	/* the file as an operand, options before or after it */
	if (cmd->operands == UTRACE_SELECT_FILE && optind < argc) {
		if (set_path(so, argv[optind++], err) < 0)
			return -1;
		goto again;
	}
	if (cmd->operands != UTRACE_SELECT_OPERANDS && optind < argc)
		return utrace_error_set(err, -1,
					"unexpected argument '%s' (the file is given with -i)",
					argv[optind]);
	return 0;
}

int utrace_select_parse(struct utrace_select_opts *so, const struct utrace_select_cmd *cmd,
			int argc, char **argv, struct utrace_error *err)
{
	int ret;

	so->cmd = cmd->name;
	so->path = UTRACE_DAT_DEFAULT;
	so->path_given = false;
	so->filter = NULL;
	if (utrace_report_filter_new(&so->filter, err) < 0)
		return -1;
	ret = parse(so, cmd, argc, argv, err);
	if (ret != 0 || !utrace_report_filter_active(so->filter)) {
		utrace_report_filter_free(so->filter);
		so->filter = NULL;
	}
	return ret;
}

int utrace_select_open(struct utrace_select_opts *so, struct utrace_dat **d,
		       struct utrace_error *err)
{
	if (utrace_dat_open(so->path, d, err) < 0) {
		utrace_select_about(so, err);
		utrace_select_close(so, NULL);
		return -1;
	}
	return 0;
}

int utrace_select_need_graph(const struct utrace_select_opts *so, struct utrace_dat *d,
			     const char *why, struct utrace_error *err)
{
	const char *tracer = utrace_dat_meta(d, "tracer");

	if (!tracer || !strcmp(tracer, "function_graph"))
		return 0;
	return utrace_error_set(
	    err, -1, "%s: %s: record with -p function_graph (this trace used the %s tracer)",
	    so->path, why, tracer);
}

/* err.msg starts with the file name when it is about the file */
const char *utrace_select_about(const struct utrace_select_opts *so, struct utrace_error *err)
{
	size_t n = strlen(so->path);
	char msg[sizeof(err->msg)];

	if (!strncmp(err->msg, so->path, n) && err->msg[n] == ':')
		return err->msg;
	memcpy(msg, err->msg, sizeof(msg));
	utrace_error_set(err, err->code, "%s: %s", so->path, msg);
	return err->msg;
}

/* The count of what the damaged sub-buffers held, as a summary line of
 * its own: a warning is easy to miss, a number that is not zero is not. */
void utrace_select_unread(const char *cmd, uint64_t damaged, uint64_t unread, uint64_t unknown,
			  FILE *f)
{
	if (!damaged)
		return;
	fprintf(f, "utrace %s: %" PRIu64 " record%s could not be read", cmd, unread + unknown,
		unread + unknown == 1 ? "" : "s");
	if (unknown)
		fprintf(f, " (at least: %" PRIu64 " sub-buffer%s did not count %s)", unknown,
			unknown == 1 ? "" : "s", unknown == 1 ? "its" : "theirs");
	fprintf(f, ", in %" PRIu64 " damaged sub-buffer%s\n", damaged, damaged == 1 ? "" : "s");
}

/* The kernel events of utrace's own work that were left out
 * (utrace_dat_iter_own), said so that a count is never silently short. */
void utrace_select_own(const char *cmd, uint64_t own, FILE *f)
{
	if (own)
		fprintf(f,
			"utrace %s: %" PRIu64 " kernel event%s %s utrace's own start-up and exit, "
			"not shown (%s-O utrace-own shows them)\n",
			cmd, own, own == 1 ? "" : "s", own == 1 ? "was" : "were",
			strcmp(cmd, "report") ? "utrace report " : "");
}

void utrace_select_warn(const struct utrace_select_opts *so, struct utrace_dat *d,
			uint64_t damaged, const char *first, FILE *f)
{
	unsigned nw = utrace_dat_warning_count(d), kept = 0;

	for (const char *w; kept < nw && (w = utrace_dat_warning(d, kept)); kept++)
		fprintf(f, "utrace %s: warning: %s\n", so->cmd, w);
	if (kept < nw)
		fprintf(f, "utrace %s: warning: ... and %u more warnings\n", so->cmd,
			nw - kept);
	if (damaged)
		fprintf(f,
			"utrace %s: warning: %" PRIu64 " sub-buffer%s cut short at a bad record; "
			"the first: %s\n",
			so->cmd, damaged, damaged == 1 ? "" : "s", first);
}

void utrace_select_close(struct utrace_select_opts *so, struct utrace_dat *d)
{
	utrace_report_filter_free(so->filter);
	so->filter = NULL;
	if (d)
		utrace_dat_close(d);
}
