/* SPDX-License-Identifier: MIT */
/*
 * spawn.h - starting a command held before its exec, for utrace record
 * and utrace stat (lib/perf/perf_counter.c).
 *
 * utrace_spawn_held() forks; the child runs in_child(arg), then blocks
 * reading a "go" pipe.  Meanwhile the caller sets up what must be in place
 * from the command's first instruction (a tracefs instance scoped to its
 * pid, perf counters opened on it), then lets it go: the child calls
 * execvp(), or on failure writes its errno to a close-on-exec pipe and
 * _exit(127)s.  End of file on that pipe means the exec happened.
 */
#ifndef UTRACE_LIB_SPAWN_H
#define UTRACE_LIB_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/base/error.h"

/*
 * The signal dispositions and mask utrace was started with.  Every
 * command started here gets them back between fork and exec (exec keeps
 * only SIG_IGN and the mask, so those are what is saved): a SIG_IGN the
 * shell handed utrace (nohup, a background job ignoring SIGINT) reaches
 * the command, and what utrace itself catches or ignores (SIGPIPE for its
 * own writes) does not.  utrace_spawn_save_signals() runs first thing in
 * main, before anything changes one; without it nothing is restored.
 */
void utrace_spawn_save_signals(void);
/* sig was ignored when utrace started (false if nothing was saved): a
 * command that honours nohup does not catch it either. */
bool utrace_spawn_signal_ignored(int sig);
/* The saved dispositions and mask set again: async-signal-safe, for a
 * child between fork and exec. */
void utrace_spawn_restore_signals(void);

struct utrace_spawn {
	pid_t pid;	  /* the child; -1 once reaped by these functions */
	int go_fd;	  /* write end of the go pipe; -1 once written or closed */
	int err_fd;	  /* read end of the exec-error pipe; -1 once read */
	const char *name; /* argv[0], for messages */
};

/*
 * Forks argv (PATH searched) held before its exec; in_child (may be NULL)
 * runs in the child first, and may _exit(127) if it fails; then the
 * saved signal dispositions and mask are set again (see above).  0, or -errno
 * with "pipe: ..." / "fork: ..." in err and nothing left behind.
 */
int utrace_spawn_held(char *const argv[], void (*in_child)(void *), void *arg,
		      struct utrace_spawn *s, struct utrace_error *err);

/*
 * Lets the child exec, then waits until it has (0) or could not: then the
 * child is reaped and the result is -errno of execvp(), with "cannot run
 * 'NAME': ..." in err.  A child that died before the go is left to the
 * caller's waitpid(), which reports how it ended.
 */
int utrace_spawn_release(struct utrace_spawn *s, struct utrace_error *err);

/*
 * The two halves of utrace_spawn_release(), for a caller that must not
 * wait in between (utrace stat takes its start time at the go, and reads
 * the exec result only after reaping the command).  utrace_spawn_go()
 * writes the go byte and closes the pipe: 0, or -errno with "cannot start
 * 'NAME': ..." in err if the child could not be told.
 * utrace_spawn_exec_result() waits for the exec (or the child's end): 0 if
 * it happened, else -errno of execvp() with "cannot run 'NAME': ..." in
 * err (NULL: no message).  It does not reap.
 */
int utrace_spawn_go(struct utrace_spawn *s, struct utrace_error *err);
int utrace_spawn_exec_result(struct utrace_spawn *s, struct utrace_error *err);

/* Gives up on a held child: closes the go pipe (it reads end of file and
 * _exit(127)s) and reaps it. */
void utrace_spawn_abandon(struct utrace_spawn *s);

#endif
