/* SPDX-License-Identifier: MIT */
/*
 * session_crash.c - record --dump-on-crash: once the file is whole and
 * the command has died of a crash signal, its last calls on the log (the
 * kernel's ftrace_dump_on_oops prints to the console; the recorder's
 * stderr is ours).  The dump itself is lib/report/crash_dump.c's; this
 * only decides that there is one to print.
 *
 * Under --tracefs the option is the file options/dump-on-crash: the
 * runtimes write a crash signal's record only while it is 1
 * (runtime/crash.c), so the dump is printed when the file holds such a
 * record, whatever the command line said.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "lib/report/report_signal.h"
#include "lib/session/session_internal.h"

static bool session_crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT;
}

void session_crash_dump(struct utrace_session *s)
{
	struct utrace_crash_dump_opts co = {0};
	struct utrace_error err = {0};
	struct utrace_dat *d;

	bool live = s->o->tracefs != NULL;

	if ((!s->o->dump_calls && !live) || s->attach || !WIFSIGNALED(s->status) ||
	    !session_crash_signal(WTERMSIG(s->status)))
		return;
	co.pid = s->pid;
	co.sig = WTERMSIG(s->status);
	co.calls = s->o->dump_calls ? s->o->dump_calls : UTRACE_SESSION_DUMP_CALLS;
	co.need_signal = live;
	co.all = s->o->dump_all;
	if (utrace_dat_open(s->o->rec.output, &d, &err) < 0) {
		session_log(s->o->log, "no dump on crash: %s", err.msg);
		return;
	}
	if (utrace_report_crash_dump(d, s->o->log, &co, &err) < 0)
		session_log(s->o->log, "no dump on crash: %s", err.msg);
	utrace_dat_close(d);
}
