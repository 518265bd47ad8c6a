/* SPDX-License-Identifier: MIT */
/*
 * report_select.h - what `utrace report`, `utrace graph`, `utrace dump`
 * and `utrace convert` share: the recording to read (-i FILE) and the
 * selection of its events (--tid --pid --cpu --comm -F -D -r --from --to,
 * report_filter.h), parsed in one getopt_long() loop with the command's
 * own options; the recording opened; the warnings about it, written to
 * the FILE the command gives.  Errors come back in a struct utrace_error,
 * for the command to print as "utrace CMD: MSG".
 */
#ifndef UTRACE_LIB_REPORT_SELECT_H
#define UTRACE_LIB_REPORT_SELECT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"
#include "lib/report/report_filter.h"

enum { UTRACE_SELECT_NO_OPERANDS, UTRACE_SELECT_OPERANDS, UTRACE_SELECT_FILE };

/* getopt_long()'s value for the long selection options; a command's
 * own long-only options take values above it. */
#define SELECT_OPT 256

/* What a command adds to the shared options. */
struct utrace_select_cmd {
	const char *name;	       /* "report": messages start "utrace report: " */
	const char *shortopts;	       /* its own short options, getopt's way: "O:ts:f:" */
	const struct option *longopts; /* its own long options, ended by a NULL name */
	/* Takes one of its own options (c as getopt_long() returns it):
	 * 0, or <0 with err set if value is wrong. */
	int (*option)(void *arg, int c, const char *value, struct utrace_error *err);
	void *arg;
	/* what may follow the options: UTRACE_SELECT_NO_OPERANDS (refused),
	 * UTRACE_SELECT_OPERANDS (the command's own), UTRACE_SELECT_FILE (one
	 * operand is the recording, as -i; trace-cmd report FILE) */
	int operands;
	/* called with argc, argv and the merged options before they are
	 * parsed (the command line's completion lists them), or NULL */
	void (*tables)(int argc, char **argv, const char *shortopts,
		       const struct option *longopts);
};

struct utrace_select_opts {
	const char *cmd;		     /* the command's name */
	const char *path;		     /* -i (default: UTRACE_DAT_DEFAULT) */
	bool path_given;		     /* by -i or as the operand */
	struct utrace_report_filter *filter; /* NULL if nothing is selected */
};

/*
 * Parses argv: -i, the selection and -h here, the rest through
 * cmd->option.  0: go on, optind at the first operand, so filled.  Else
 * the command is done and so empty: 1 at -h or --help (the command prints
 * its help, exit status 0), <0 with err set (exit status 1).
 */
int utrace_select_parse(struct utrace_select_opts *so, const struct utrace_select_cmd *cmd,
			int argc, char **argv, struct utrace_error *err);

/* Opens so->path; on an error frees so and returns <0, err about the file
 * (utrace_select_about). */
int utrace_select_open(struct utrace_select_opts *so, struct utrace_dat **d,
		       struct utrace_error *err);
/* Refuses (<0, err says why) a recording that is not function_graph's:
 * what it needs is said as "WHY: record with -p function_graph ...". */
int utrace_select_need_graph(const struct utrace_select_opts *so, struct utrace_dat *d,
			     const char *why, struct utrace_error *err);
/* Makes err's message say which file it is about ("PATH: MSG") if it
 * does not yet; returns that message. */
const char *utrace_select_about(const struct utrace_select_opts *so, struct utrace_error *err);
/* Writes the warnings of the recording to f, then the sub-buffers a pass
 * found cut short at a bad record (damaged, the first one's message). */
void utrace_select_warn(const struct utrace_select_opts *so, struct utrace_dat *d,
			uint64_t damaged, const char *first, FILE *f);
/* Writes to f the summary's line "N records could not be read" of those
 * sub-buffers (utrace_dat_iter_unread); nothing when none was damaged. */
/* "N kernel events were utrace's own start-up and exit, not shown" (none:
 * nothing). */
void utrace_select_own(const char *cmd, uint64_t own, FILE *f);
void utrace_select_unread(const char *cmd, uint64_t damaged, uint64_t unread, uint64_t unknown,
			  FILE *f);
/* Frees the selection and closes d (if not NULL). */
void utrace_select_close(struct utrace_select_opts *so, struct utrace_dat *d);

#endif
