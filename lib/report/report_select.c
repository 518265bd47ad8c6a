/* SPDX-License-Identifier: MIT */
/*
 * select_opts.c - the options and messages `utrace report`, `utrace
 * graph` and `utrace dump` share (cmds/select_opts.h).
 */
#include <inttypes.h>
#include <string.h>

#include "cmds/cmds.h"
#include "cmds/select_opts.h"

/* The shared short options: -i FILE, the selection's -F -D -r, -h. */
#define SELECT_SHORTOPTS "i:F:D:r:h"

static int option_error(const char *cmd, const char *shortopts, char **argv)
{
	const char *p = optopt > 0 && optopt < SELECT_OPT ? strchr(shortopts, optopt) : NULL;

	/* values of long-only options are SELECT_OPT and above */
	if (optopt >= SELECT_OPT || (p && p[1] == ':'))
		utrace_die_msg(cmd, "option '%s' needs an argument (see 'utrace %s --help')",
			       argv[optind - 1], cmd);
	else if (optopt)
		utrace_die_msg(cmd, "unknown option '-%c' (see 'utrace %s --help')", optopt, cmd);
	else
		utrace_die_msg(cmd, "unknown option '%s' (see 'utrace %s --help')",
			       argv[optind - 1], cmd);
	return -1;
}

/* 0 to go on, 1 after --help, -1 after an error (printed). */
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

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		const char *key =
		    c == SELECT_OPT ? longopts[idx].name : utrace_report_filter_short_key(c);

		if (key) {
			ret = utrace_report_filter_add(so->filter, key, optarg, err);
		} else if (c == 'i') {
			so->path = optarg;
			ret = 0;
		} else if (c == 'h') {
			cmd->usage(stdout);
			return 1;
		} else if (c == '?') {
			return option_error(cmd->name, shortopts, argv);
		} else {
			ret = cmd->option(cmd->arg, c, optarg, err);
		}
		if (ret < 0) {
			utrace_die_msg(cmd->name, "%s", err->msg);
			return -1;
		}
	}
	if (!cmd->operands && optind < argc) {
		utrace_die_msg(cmd->name, "unexpected argument '%s' (the file is given with -i)",
			       argv[optind]);
		return -1;
	}
	return 0;
}

int select_opts_parse(struct utrace_select_opts *so, const struct utrace_select_cmd *cmd, int argc,
		      char **argv)
{
	struct utrace_error err = {0};
	int ret;

	so->cmd = cmd->name;
	so->path = "utrace.dat";
	so->filter = NULL;
	if (utrace_report_filter_new(&so->filter, &err) < 0) {
		utrace_die_msg(cmd->name, "%s", err.msg);
		return -1;
	}
	ret = parse(so, cmd, argc, argv, &err);
	if (ret != 0 || !utrace_report_filter_active(so->filter)) {
		utrace_report_filter_free(so->filter);
		so->filter = NULL;
	}
	return ret;
}

int select_opts_open(struct utrace_select_opts *so, struct utrace_dat **d)
{
	struct utrace_error err = {0};

	if (utrace_dat_open(so->path, d, &err) < 0) {
		select_opts_fail(so, &err);
		select_opts_close(so, NULL);
		return -1;
	}
	return 0;
}

int select_opts_need_graph(const struct utrace_select_opts *so, struct utrace_dat *d,
			   const char *why)
{
	const char *tracer = utrace_dat_meta(d, "tracer");

	if (!tracer || !strcmp(tracer, "function_graph"))
		return 0;
	utrace_die_msg(so->cmd,
		       "%s: %s: record with -p function_graph (this trace used the %s tracer)",
		       so->path, why, tracer);
	return -1;
}

/* err.msg starts with the file name when it is about the file */
void select_opts_fail(const struct utrace_select_opts *so, const struct utrace_error *err)
{
	size_t n = strlen(so->path);

	if (!strncmp(err->msg, so->path, n) && err->msg[n] == ':')
		utrace_die_msg(so->cmd, "%s", err->msg);
	else
		utrace_die_msg(so->cmd, "%s: %s", so->path, err->msg);
}

/* The count of what the damaged sub-buffers held, as a summary line of
 * its own: a warning is easy to miss, a number that is not zero is not. */
void select_opts_unread(const char *cmd, uint64_t damaged, uint64_t unread, uint64_t unknown)
{
	if (!damaged)
		return;
	fprintf(stderr, "utrace %s: %" PRIu64 " record%s could not be read", cmd, unread + unknown,
		unread + unknown == 1 ? "" : "s");
	if (unknown)
		fprintf(stderr, " (at least: %" PRIu64 " sub-buffer%s did not count %s)", unknown,
			unknown == 1 ? "" : "s", unknown == 1 ? "its" : "theirs");
	fprintf(stderr, ", in %" PRIu64 " damaged sub-buffer%s\n", damaged, damaged == 1 ? "" : "s");
}

void select_opts_warn(const struct utrace_select_opts *so, struct utrace_dat *d, uint64_t damaged,
		      const char *first)
{
	unsigned nw = utrace_dat_warning_count(d), kept = 0;

	for (const char *w; kept < nw && (w = utrace_dat_warning(d, kept)); kept++)
		fprintf(stderr, "utrace %s: warning: %s\n", so->cmd, w);
	if (kept < nw)
		fprintf(stderr, "utrace %s: warning: ... and %u more warnings\n", so->cmd,
			nw - kept);
	if (damaged)
		fprintf(stderr,
			"utrace %s: warning: %" PRIu64 " sub-buffer%s cut short at a bad record; "
			"the first: %s\n",
			so->cmd, damaged, damaged == 1 ? "" : "s", first);
}

void select_opts_close(struct utrace_select_opts *so, struct utrace_dat *d)
{
	utrace_report_filter_free(so->filter);
	so->filter = NULL;
	if (d)
		utrace_dat_close(d);
}
