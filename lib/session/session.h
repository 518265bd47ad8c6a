/* SPDX-License-Identifier: MIT */
/*
 * record.h - a recording session of `utrace record`, as a plain struct
 * that option parsing fills (cmds/record.c) and a function that does the
 * work (cmds/record_run.c), so that other commands (attaching to a running
 * process, live control) can start a recording without going through
 * argv.
 */
#ifndef UTRACE_CMDS_RECORD_H
#define UTRACE_CMDS_RECORD_H

#include <stdbool.h>

#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/record/recorder.h"
#include "lib/sample/sampler.h"

#define RECORD_DEFAULT_BUFFER_KB 16384

struct record_opts {
	/* output, tracer, buffer, depth, threshold, threads, overwrite; the
	 * command line and the function filter are set by record_run */
	struct utrace_recorder_opts rec;
	struct utrace_func_filter *filter; /* -l -n -g --graph-notrace */
	struct utrace_event_spec *specs;   /* -e with its -f and -R, in order */
	unsigned nspecs;
	bool excluding;		 /* -v given: the -e after it are not recorded (triggers only) */
	const char **probe_defs; /* --probe */
	unsigned nprobes;
	const char **synth_defs; /* --synthetic */
	unsigned nsynth;
	bool children;			   /* -c: kernel events of the command's children too */
	bool system_wide;		   /* -a: kernel events of every process */
	struct utrace_sampler_opts sample; /* -F, --call-graph; freq 0: no sampling */
	const char *sample_event;	   /* -e cpu-clock[:u], NULL if not given */
	char **argv;			   /* the command, NULL-terminated */
	const char *tracefs;		   /* --tracefs DIR: the live tracefs, else NULL */
	int libcall; /* --libcall 1, --no-libcall 0, else -1: on if the program has no sites */
	int *pids;	 /* -P: processes (or threads) to attach to instead of argv */
	unsigned npids;
	double duration; /* --duration SEC: with -P, detach after SEC seconds (0: Ctrl-C) */
	bool follow_daemons; /* --follow-daemons: wait for the traced processes that
			      * left the command's session too (record_daemons.c) */

	/* For commands that record on their own behalf (utrace latency),
	 * whose output is something else than the file: */
	bool quiet; /* no line saying what was saved (warnings stay) */
	/* if not NULL, one flag per filter expression (the numbering of
	 * utrace_func_filter_expr), set when a positive one matched no
	 * function: the caller says so in its own terms, record does not */
	bool *unmatched;
	/* return RECORD_RAN with the command's wait status in status once
	 * it ran, rather than ending as it ended: the caller has more to
	 * do, then utrace_exit_like(status) */
	bool keep_status;
	int status;
	/* if not NULL, called once the tracefs (--tracefs) is served, before
	 * the command starts (utrace stream opens its trace_pipe then) */
	void (*live_ready)(void *arg, const char *dir);
	void *live_ready_arg;
};

#define RECORD_RAN (-1)

/* record's defaults (0; -1, said, if out of memory), and what parsing
 * allocated, freed. */
int record_opts_init(struct record_opts *o);
void record_opts_free(struct record_opts *o);
/* record's options and command into o, for the command name (utrace
 * start, stream take them too; messages name it): -1 to go on, -2 for
 * --help of a command other than record (its own usage), else the exit
 * status. */
int record_parse(const char *name, int argc, char **argv, struct record_opts *o);

/* The file execvp would run for name (malloc'ed), or NULL. */
char *record_which(const char *name);

/* Runs o->argv traced and saves the file.  Prints its own messages;
 * returns the exit status to end with: the command's when it ran (see
 * utrace_exit_like; RECORD_RAN with keep_status), else 1 (a failure),
 * 2 (bad input) or 127 (the command could not start). */
int record_run(struct record_opts *o);

#endif
