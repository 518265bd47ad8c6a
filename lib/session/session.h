/* SPDX-License-Identifier: MIT */
/*
 * lib/session - one recording: the command spawned (or the processes
 * attached to), the recorder and its loop, the kernel instance, the
 * sampler, the live tracefs, the summary; and the folder of `utrace
 * start`'s session (session_folder.h).  May use: lib/record, lib/sample,
 * lib/report, lib/hist, lib/probes, lib/kernel, lib/tracefile, lib/tracefs,
 * lib/events, lib/attach, lib/elf, lib/base.
 *
 * session.h - a recording as a plain struct of options that a command
 * fills (utrace record, start, stream, latency, sched-latency) and an
 * opaque session made from it, as libtracefs's instance API serves
 * trace-cmd's commands:
 *
 *   utrace_session_new     the session of the options (nothing runs yet)
 *   utrace_session_start   events checked, the recorder, the kernel
 *                          instance, the tracefs, the command started
 *                          (or the processes attached to)
 *   utrace_session_run     record until the command and its traced
 *                          processes end, --duration, or Ctrl-C
 *   utrace_session_stop    drain, the file's last records, the summary,
 *                          the command waited for
 *   utrace_session_free    everything released, on every way out
 *
 * What the recording says while it runs and at its end (notices of the
 * processes, warnings, the summary) is written to o->log, the command's
 * stderr; a failure that stops it is returned (lib/base/error.h).
 */
#ifndef UTRACE_SESSION_H
#define UTRACE_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/record/recorder.h"
#include "lib/sample/sampler.h"

#define UTRACE_SESSION_BUFFER_KB 16384 /* -b: each thread's buffer */
#define UTRACE_SESSION_DUMP_CALLS 20	/* --dump-on-crash: calls dumped per thread */

struct utrace_session;
struct utrace_session_opts {
	/* output, tracer, buffer, depth, threshold, threads, overwrite; the
	 * command line and the function filter are set by utrace_session_start */
	struct utrace_recorder_opts rec;
	bool output_given; /* -o given (rec.output is UTRACE_DAT_DEFAULT if not) */
	struct utrace_func_filter *filter; /* -l -n -g --graph-notrace */
	struct utrace_event_spec *specs;   /* -e with its -f and -R, in order */
	unsigned nspecs, cap_specs; /* (cap_*: the arrays' UTRACE_GROW capacities) */
	bool excluding;		 /* -v given: the -e after it are not recorded (triggers only) */
	const char **probe_defs; /* --probe */
	unsigned nprobes, cap_probes;
	const char **synth_defs; /* --synthetic */
	unsigned nsynth, cap_synth;
	bool children;			   /* -c: kernel events of the command's children too */
	bool system_wide;		   /* -a: kernel events of every process */
	struct utrace_sampler_opts sample; /* -F, --call-graph; freq 0: no sampling */
	const char *sample_event;	   /* -e cpu-clock[:u], NULL if not given */
	char **argv;			   /* the command, NULL-terminated */
	const char *tracefs;		   /* --tracefs DIR: the live tracefs, else NULL */
	int libcall; /* --libcall 1, --no-libcall 0, else -1: on unless a sanitizer runtime is linked in */
	int *pids;	 /* -P: processes (or threads) to attach to instead of argv */
	unsigned npids, cap_pids;
	double duration; /* --duration SEC: with -P, detach after SEC seconds (0: Ctrl-C) */
	/* --dump-on-crash[=N|=all]: when the command dies of a crash signal,
	 * the last dump_calls calls of the thread that took it (of every
	 * thread: dump_all) on log; 0: off */
	unsigned dump_calls;
	bool dump_all;
	bool follow_daemons; /* --follow-daemons: wait for the traced processes that
			      * left the command's session too (session_daemons.c) */

	/* For commands that record on their own behalf (utrace latency),
	 * whose output is something else than the file: */
	bool quiet; /* no line saying what was saved (warnings stay) */
	bool own_command; /* argv is the caller's own placeholder (utrace bt's
			   * waiter, no program of the user's): nothing is
			   * said of how it ends */
	/* if not NULL, one flag per filter expression (the numbering of
	 * utrace_func_filter_expr), set when a positive one matched no
	 * function: the caller says so in its own terms, record does not */
	bool *unmatched;
	/* if not NULL, called once the tracefs (--tracefs) is served, before
	 * the command starts (utrace stream opens its trace_pipe then) */
	void (*live_ready)(void *arg, const char *dir);
	void *live_ready_arg;
	/* if not NULL, called about twice a second while recording, with
	 * what is saved so far and the seconds since the start (record's
	 * progress line), and once more with secs < 0 at the end */
	void (*progress)(void *arg, const struct utrace_recorder_progress *p, double secs);
	void *progress_arg;
	/* if not NULL, called at every turn of the recording's loop (a
	 * few ms apart), to read what is recorded so far (utrace bt's live
	 * replay: utrace_session_sync, then the file); true ends the
	 * recording: the command is sent SIGTERM and waited for, processes
	 * attached to are let go (bt's exit()) */
	bool (*step)(void *arg, struct utrace_session *s);
	void *step_arg;
	/* where the recording says what it does (the notices of the
	 * processes, warnings, the summary): the command's stderr; must
	 * be set */
	FILE *log;
};

/* utrace_session_stop: the command ran (its wait status:
 * utrace_session_status) */
#define UTRACE_SESSION_RAN (-1)

struct utrace_session;

/* record's defaults in o (log: stderr); -ENOMEM.  What the options
 * allocated (the filter, the arrays of -e, --probe, ... and -P), freed. */
int utrace_session_opts_init(struct utrace_session_opts *o);
void utrace_session_opts_free(struct utrace_session_opts *o);
/* One option of utrace record (start, stream), by its long name ("v"
 * for -v) and its argument (NULL if it takes none; kept, not copied):
 * checked and stored in o.  0, or the exit status (1, 2) with err in the
 * command line's words ("" for a -P 0, which says nothing). */
int utrace_session_opts_set(struct utrace_session_opts *o, const char *name, const char *arg,
			    struct utrace_error *err);
/* Once the options are parsed: the defaults that depend on the others
 * (--libcall, the samples' :u) and
 * the checks that span options; -EINVAL with err (the words of
 * record's command line) when they disagree. */
int utrace_session_opts_finish(struct utrace_session_opts *o, struct utrace_error *err);


/* A session of o, which must outlive it (its fields may be set by the
 * session: the recorder's command, filter and events); -ENOMEM, or
 * -EINVAL without o->log. */
int utrace_session_new(struct utrace_session_opts *o, struct utrace_session **out);
/*
 * Everything up to the command running: the events split and checked,
 * the recorder, the kernel instance, the tracefs served, the command
 * started held and let go (or the -P processes checked and attached to).
 * 0, or the exit status to end with, err said what ("" if nothing is to
 * be said: interrupted): 1 (a failure), 2 (bad input), 127 (the command
 * could not start); utrace_session_error_tail
 * has the lines to print after err's.  SIGINT, SIGTERM and SIGHUP (unless
 * ignored when utrace started) end the recording from here on, one
 * session per process; SIGPIPE is ignored.
 */
int utrace_session_start(struct utrace_session *s, struct utrace_error *err);
/* The signal (SIGINT, SIGTERM, SIGHUP) that is ending this process's
 * recording, or 0: one session per process, so no session is named. */
int utrace_session_signal(void);
/* Records until the command and every traced process it started have
 * gone (daemons aside), --duration, or SIGINT/SIGTERM/SIGHUP. */
void utrace_session_run(struct utrace_session *s);
/* Drains, writes the file's last records and the summary (to o->log),
 * waits for the command.  UTRACE_SESSION_RAN once the command ran; with
 * -P, 0, or 1 if a process could not be attached to or detached from. */
int utrace_session_stop(struct utrace_session *s);
/* From o->step: every record the traced threads (and the kernel) have
 * committed so far saved and the file flushed, so that a reader of the
 * output sees them (lib/session/session_step.c).  0 or <0 with err. */
int utrace_session_sync(struct utrace_session *s, struct utrace_error *err);
/* The command's pid (0 before it started, or with -P). */
int utrace_session_pid(const struct utrace_session *s);

/* Whether utrace's runtime can be preloaded into program prog (as a
 * command names it, found on PATH): not into a statically linked one
 * (Go's default build), nor into one set-user-ID or set-group-ID to
 * someone else (the dynamic loader's secure mode ignores LD_PRELOAD). */
enum utrace_preload {
	UTRACE_PRELOAD_OK,
	UTRACE_PRELOAD_STATIC,
	UTRACE_PRELOAD_STATIC_GO,
	UTRACE_PRELOAD_SETUID,
	UTRACE_PRELOAD_SETGID,
};
enum utrace_preload utrace_program_preload(const char *prog);
/* The caller ends the command (a process of its own that only holds the
 * recording: utrace bt's): SIGTERM, which is not reported as a kill. */
void utrace_session_end_command(struct utrace_session *s);
/* The command's wait status, once utrace_session_stop returned
 * UTRACE_SESSION_RAN. */
int utrace_session_status(const struct utrace_session *s);
/* What to print after the error of utrace_session_start ("" if nothing):
 * the expression at fault with a caret under err's column, or how an
 * attached process that ended in the middle ended. */
const char *utrace_session_error_tail(const struct utrace_session *s);
/* Stops what still runs (the tracefs, the kernel instance, probes),
 * frees; NULL: nothing. */
void utrace_session_free(struct utrace_session *s);

#endif
