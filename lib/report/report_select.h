/* SPDX-License-Identifier: MIT */
/*
 * select_opts.h - what `utrace report`, `utrace graph` and `utrace dump`
 * share: the recording to read (-i FILE) and the selection of its events
 * (--tid --pid --cpu --comm -F -D -r --from --to, lib/report/report_filter.h),
 * parsed in one getopt_long() loop with the command's own options; the
 * recording opened; the messages about it on stderr.
 */
#ifndef UTRACE_CMDS_SELECT_OPTS_H
#define UTRACE_CMDS_SELECT_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"
#include "lib/report/report_filter.h"

/* getopt_long()'s value for the long selection options; a command's
 * own long-only options take values above it. */
#define SELECT_OPT 256

/* What a command adds to the shared options. */
struct utrace_select_cmd {
	const char *name;	       /* "report": messages start "utrace report: " */
	const char *shortopts;	       /* its own short options, getopt's way: "O:ts:f:" */
	const struct option *longopts; /* its own long options, ended by a NULL name */
	void (*usage)(FILE *f);	       /* prints --help */
	/* Takes one of its own options (c as getopt_long() returns it):
	 * 0, or <0 with err set if value is wrong. */
	int (*option)(void *arg, int c, const char *value, struct utrace_error *err);
	void *arg;
	int operands; /* nonzero: arguments after the options are its (else refused) */
};

struct utrace_select_opts {
	const char *cmd;		     /* the command's name */
	const char *path;		     /* -i (default: utrace.dat) */
	struct utrace_report_filter *filter; /* NULL if nothing is selected */
};

/*
 * Parses argv: -i, the selection and -h here, the rest through
 * cmd->option.  0: go on, optind at the first operand, so filled.  Else
 * the command is done and so empty: 1 after --help (exit status 0), -1
 * after an error, printed (exit status 1).
 */
int select_opts_parse(struct utrace_select_opts *so, const struct utrace_select_cmd *cmd, int argc,
		      char **argv);

/* Opens so->path; on an error prints it, frees so and returns <0. */
int select_opts_open(struct utrace_select_opts *so, struct utrace_dat **d);
/* Refuses (prints why, <0) a recording that is not function_graph's:
 * what it needs is said as "WHY: record with -p function_graph ...". */
int select_opts_need_graph(const struct utrace_select_opts *so, struct utrace_dat *d,
			   const char *why);
/* Prints err, about so->path, as "utrace CMD: PATH: MSG". */
void select_opts_fail(const struct utrace_select_opts *so, const struct utrace_error *err);
/* Prints the warnings of the recording, then the sub-buffers a pass found
 * cut short at a bad record (damaged, the first one's message). */
void select_opts_warn(const struct utrace_select_opts *so, struct utrace_dat *d, uint64_t damaged,
		      const char *first);
/* The summary's line "N records could not be read" of those sub-buffers
 * (utrace_dat_iter_unread); nothing when none was damaged. */
void select_opts_unread(const char *cmd, uint64_t damaged, uint64_t unread, uint64_t unknown);
/* Frees the selection and closes d (if not NULL). */
void select_opts_close(struct utrace_select_opts *so, struct utrace_dat *d);

#endif
