/* SPDX-License-Identifier: MIT */
/*
 * cmds.h - the subcommands of utrace, one file each under cmds/.
 *
 * UTRACE_COMMANDS is the single list: utrace.c builds its dispatch table
 * and the top-level --help from it, so adding a command is one line here
 * plus its file.  A '_' in a command's name is spelled '-' on the command
 * line and in --help (sched_latency: `utrace sched-latency`).
 */
#ifndef UTRACE_CMDS_H
#define UTRACE_CMDS_H

#include <stdbool.h>

#define UTRACE_COMMANDS(C)                                                                         \
	C(record, "run a command and record its function calls into utrace.dat")                   \
	C(report, "print a recorded trace in ftrace's text formats")                               \
	C(graph, "print the calls below a function merged by path, like uftrace graph")            \
	C(dump, "write a trace as Chrome JSON (Perfetto) or folded stacks (flame graphs)")         \
	C(info, "print what a recording is: command, system, threads, events, file")              \
	C(list, "list the traceable functions or tracepoints of a program")                        \
	C(cflags, "print the compiler flags that make a program traceable")                        \
	C(stat, "run a command and count perf events, like perf stat")                             \
	C(top, "sample the CPU live and show the functions that take it, like perf top")           \
	C(latency, "histogram of a function's durations, like perf ftrace latency")                \
	C(probe, "show the variables and lines a dynamic probe can use (perf probe -V, -L)")       \
	C(sched_latency, "per-task wakeup-to-run delays, like perf sched latency")                 \
	C(convert, "write a trace-cmd trace.dat file (for trace-cmd report, KernelShark)")         \
	C(start, "run a command traced in the background, into buffers only (trace-cmd start)")   \
	C(stop, "stop writing records in the utrace start session (tracing_on 0)")                 \
	C(restart, "write records again in the utrace start session (tracing_on 1)")               \
	C(show, "print the trace of the utrace start session (trace, trace_pipe, other files)")    \
	C(extract, "save what the utrace start session's buffers hold as a utrace.dat")            \
	C(stream, "run a command traced and print its events as they come, saving nothing")        \
	C(bt, "run a bpftrace program (bpftrace's language) on utrace's probes")                   \
	C(reset, "end the utrace start session; remove what a killed recorder left behind")

#define UTRACE_CMD_DECL(name, help) int cmd_##name(int argc, char **argv);
UTRACE_COMMANDS(UTRACE_CMD_DECL)
#undef UTRACE_CMD_DECL

/* Helpers shared by the commands. */
const char *utrace_progname(void);
/* Prints "utrace NAME: MSG" on stderr. */
void utrace_die_msg(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct utrace_error;
struct option;
/* getopt_long(), and `utrace CMD --complete-options`: the options of
 * shortopts and longopts printed for the completion, then exit 0
 * (cmds/complete.c).  Every command parses its options through it. */
int utrace_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		  int *idx);
/* The check alone, for a command whose library parses (report, dump,
 * graph: lib/report/report_select.h calls it with the merged tables). */
void utrace_complete_check(int argc, char **argv, const char *shortopts,
			   const struct option *longopts);
/* Standard output flushed: 0, or 1 after "utrace CMD: write error: ...". */
int utrace_flush_stdout(const char *cmd);
/* The exit status of an option a library refused (err): 2, a usage
 * error, but 1 when it ran out of memory.  utrace(1), EXIT STATUS. */
int utrace_usage_status(const struct utrace_error *err);
/* After getopt_long() (opterr = 0) returned '?' or ':': prints "utrace
 * CMD: unknown option 'X'" or "option 'X' needs a value", with where the
 * help is; returns 2, the exit status of a usage error. */
int utrace_opt_error(const char *cmd, const char *shortopts, char **argv);
/* --color[=WHEN]: auto (the default), always (no WHEN), never. */
enum utrace_color { UTRACE_COLOR_AUTO, UTRACE_COLOR_ALWAYS, UTRACE_COLOR_NEVER };
/* WHEN into *color: 0, or <0 with err set. */
int utrace_color_parse(const char *when, int *color, struct utrace_error *err);
/* Whether to colour standard output: always, or auto on a terminal
 * without $NO_COLOR and not TERM=dumb (call before utrace_pager_start). */
bool utrace_color_on(int color);
/* On a terminal, standard output (and error) from here on go through
 * the user's pager (cmds/pager.c), unless no_pager. */
void utrace_pager_start(bool no_pager);
/* The progress line of a reading of d (cmds/progress.c), on the terminal
 * of standard error when the output (out_path, a -o FILE, or NULL for
 * standard output) is a file; NULL when there is none.  _stop erases it
 * (NULL: nothing), before anything else goes to standard error. */
struct utrace_progress;
struct utrace_dat;
struct utrace_progress *utrace_progress_start(const char *cmd, const struct utrace_dat *d,
					      const char *out_path);
void utrace_progress_stop(struct utrace_progress *p);
/* End as the command ended, from its wait status: the same signal raised
 * on ourselves (core dumps off), else its exit status, returned for main
 * to exit with (cmds/exit_like.c). */
int utrace_exit_like(int status);

/* utrace record's options (cmds/record.c), taken by start and stream
 * too: into o for the command name (messages name it); -1 to go on, -2
 * for --help of a command other than record (its own usage), else the
 * exit status. */
struct utrace_session_opts;
int record_parse(const char *name, int argc, char **argv, struct utrace_session_opts *o);
/* The recording of o (lib/session/session.h), its errors said: the exit
 * status to end with, the command's as it ended (utrace_exit_like), or,
 * with status, UTRACE_SESSION_RAN and the command's wait status in
 * *status once it ran; else 1 (a failure), 2 (bad input) or 127 (the
 * command could not start). */
int record_run(struct utrace_session_opts *o, int *status);

#endif
