/* SPDX-License-Identifier: MIT */
/*
 * session.c - one recording (lib/session/session.h): run a command with
 * libutrace.so preloaded and save what it traces, like `trace-cmd
 * record` does for the kernel.
 *
 *   utrace_session_start  -e/--probe split into user events, kernel
 *                         events and uprobes, filters checked before
 *                         anything runs (session_events.c); the
 *                         recorder's socket, the kernel header, the
 *                         command started held, kernel tracing on its
 *                         pid, then exec (session_spawn.c,
 *                         session_kernel.c)
 *   utrace_session_run    poll the buffers (tracefs, samples) until every
 *                         traced process has gone, or only daemons are
 *                         left (session_daemons.c), or Ctrl-C
 *   utrace_session_stop   drain, write the file's last records, the
 *                         summary (session_summary.c)
 *
 * With -P the processes already run: session_attach.c checks them,
 * injects the runtime instead of session_spawn, ends the loop at
 * --duration or their exit, and detaches before the file is finished.
 *
 * The command runs in our process group with our stdin/stdout/stderr, and
 * its wait status is kept for the command line to end as it ended.
 * Ctrl-C stops the recording (tracing_on = 0 everywhere), saves the file,
 * then waits for the command.
 *
 * Kernel events (-e SYSTEM:EVENT of a system in tracefs) go through a
 * tracefs instance of our own (lib/kernel/kernel_trace.c): created before the
 * command runs (a bad kernel filter stops us there), scoped to the
 * command's pid while the child waits on a pipe before its exec, read
 * along with the user buffers, removed on every way out.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/runtime_path.h"
#include "lib/base/spawn.h"
#include "lib/hist/hist.h"
#include "lib/session/session_attach.h"
#include "lib/session/session_internal.h"
#include "lib/session/session_live.h"
#include "lib/session/session_probes.h"
#include "lib/session/session_synth.h"

static volatile sig_atomic_t session_interrupted;

static void session_on_signal(int sig)
{
	session_interrupted = sig;
}

int utrace_session_signal(void)
{
	return session_interrupted;
}

static void session_notice(void *arg, int pid, const char *text)
{
	session_log(arg, "pid %d: %s", pid, text);
}

/* Ctrl-C, SIGTERM and SIGHUP end the recording, as they end trace-cmd
 * and perf record, even where the shell had SIGINT ignored (a background
 * job: `kill -INT` is how one stops it).  But a SIGHUP utrace was started
 * ignoring (nohup) the recording ignores too, as the command does (it
 * gets utrace's dispositions back, lib/base/spawn.h): a hang-up ends
 * neither.  SIGPIPE is ignored for our own writes only: the command's
 * stays as it was. */
static void session_catch_signals(void)
{
	signal(SIGINT, session_on_signal);
	signal(SIGTERM, session_on_signal);
	if (!utrace_spawn_signal_ignored(SIGHUP))
		signal(SIGHUP, session_on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* The command line as one string, for the file's metadata. */
static char *session_command_line(char **argv)
{
	size_t len = 1;
	char *command;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	command = calloc(1, len);
	for (int i = 0; command && argv[i]; i++) {
		strcat(command, argv[i]);
		if (argv[i + 1])
			strcat(command, " ");
	}
	return command;
}

/* -P -F: the process's threads sampled from now on, after the records
 * that name what it mapped and its threads before. */
static int session_attach_sample(struct utrace_session *s)
{
	struct utrace_sampler_opts so = *s->k.sopts;
	struct utrace_error err = {0};
	size_t len;
	void *buf;

	so.target = UTRACE_SAMPLE_PROCESS;
	if (utrace_sampler_open(s->o->pids[0], &so, &s->k.sampler, &err) < 0 ||
	    utrace_sampler_synthesize(s->o->pids[0], &buf, &len, &err) < 0)
		return session_failf(&s->fail, 1, "%s", err.msg);
	if (session_perf_attr(s->r, s->k.sampler, so.user_only, &err) < 0 ||
	    (len && session_perf(s->r, 0, buf, len, &err) < 0))
		session_log(s->o->log, "%s: %s (the samples will not be readable)",
			    s->o->rec.output, err.msg);
	free(buf);
	return 0;
}

/* -P: kernel tracing and sampling on the first process, the runtime
 * injected. */
static int session_attach_begin(struct utrace_session *s)
{
	if (s->k.kt && session_kernel_start(&s->k, s->o->pids[0]) < 0)
		return session_failf(&s->fail, 1, "%s", s->k.err.msg);
	if (s->k.sopts && session_attach_sample(s))
		return 1;
	return session_attach_start(s->attach, s->r, &s->fail);
}

/* The recorder, the kernel header and formats, the command started.
 * 0, or the exit status. */
static int session_begin(struct utrace_session *s)
{
	struct utrace_recorder_opts *ro = &s->o->rec;
	struct utrace_error err = {0};

	if (utrace_recorder_new(ro, &s->r, &err) < 0)
		return session_failf(&s->fail, 1, "%s", err.msg);
	if (s->k.kt) {
		const char *clock, *hpage, *hevent;
		uint32_t subbuf;

		utrace_ktrace_header(s->k.kt, &clock, &subbuf, &hpage, &hevent);
		if (utrace_recorder_write_kheader(s->r, clock, subbuf, hpage, hevent, &err) < 0 ||
		    utrace_ktrace_formats(s->k.kt, session_kformat, s->r, &err) < 0 ||
		    utrace_recorder_kready(s->r, &err) < 0)
			return session_failf(&s->fail, 1, "%s: %s", ro->output, err.msg);
	}
	if (s->o->tracefs && !(s->live = session_live_start(s->r, s->o->tracefs, s->o, &err)))
		return session_failf(&s->fail, 1, "%s", err.msg);
	session_live_kernel(s->live, s->k.kt);
	if (s->live && s->o->live_ready)
		s->o->live_ready(s->o->live_ready_arg, s->o->tracefs);
	if (session_interrupted)
		return 1;
	if (s->attach)
		return session_attach_begin(s);
	s->pid = session_spawn(s->o->argv, utrace_recorder_sock_path(s->r), s->runtime, ro->libcall,
			       &s->k, &err);
	if (s->pid == -2)
		return session_failf(&s->fail, 1, "%s", s->k.err.msg);
	if (s->pid < 0)
		return session_failf(&s->fail, 127, "%s", err.msg);
	if (s->k.kt && utrace_recorder_write_own(s->r, s->pid, UTRACE_OWN_SPAWN, 0, s->k.go_tsc,
						 &err) < 0)
		return session_failf(&s->fail, 1, "%s: %s", ro->output, err.msg);
	if (s->k.sampler && session_perf_attr(s->r, s->k.sampler, s->o->sample.user_only, &err) < 0)
		session_log(s->o->log, "%s: %s (the samples will not be readable)", ro->output,
			    err.msg);
	return 0;
}

/* A read of the kernel's CPUs; after a whole round, the triggers the
 * recorder runs on kernel events get the records it made safe to run. */
static int session_kpoll(struct utrace_session *s, struct utrace_error *err)
{
	int ret = utrace_ktrace_poll(s->k.kt, false, session_kpage, s->r, err);

	return ret > 0 ? utrace_recorder_kround(s->r, err) : ret;
}

/*
 * An error of the recording, said once, in one line that names the file
 * (err's message names it already if the writer made it; about_file: the
 * error is the file's).  A failed write (a full disk) is sticky: every
 * later write fails with the same code, and is not said again.
 */
static void session_said(struct utrace_session *s, const struct utrace_error *err, bool about_file,
			 const char *tail)
{
	const char *out = s->o->rec.output;
	size_t n = strlen(out);

	if (s->failed && err->code == s->failed)
		return;
	if (!s->failed)
		s->failed = err->code;
	if (!about_file || (!strncmp(err->msg, out, n) && err->msg[n] == ':'))
		session_log(s->o->log, "%s%s", err->msg, tail);
	else
		session_log(s->o->log, "%s: %s%s", out, err->msg, tail);
}

/* The loop ends at an error: said; if the file cannot be written (a full
 * disk), tracing goes off in the processes, which run on untraced
 * instead of filling buffers nobody saves. */
static void session_stop_on(struct utrace_session *s, const struct utrace_error *err)
{
	bool unwritable = utrace_recorder_write_failed(s->r) != 0;

	session_said(s, err, false,
		     unwritable ? "; recording stopped, the program runs on untraced, utrace "
				  "report reads what the file holds"
				: " (stopping; what was recorded is saved)");
	if (unwritable)
		utrace_recorder_stop(s->r);
}

static double session_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The caller's progress line, every half second (o->progress). */
static void session_progress(struct utrace_session *s, double t0, double *next)
{
	struct utrace_recorder_progress p;
	double now;

	if (!s->o->progress || (now = session_now()) < *next)
		return;
	*next = now + 0.5;
	utrace_recorder_progress(s->r, &p);
	s->o->progress(s->o->progress_arg, &p, now - t0);
}

/* Record until the command and every process it started that is traced
 * have gone (but daemons: session_daemons.c), or until interrupted. */
void utrace_session_run(struct utrace_session *s)
{
	struct utrace_error err = {0};
	double t0 = session_now(), next = t0 + 0.5;
	int end;

	for (;;) {
		session_progress(s, t0, &next);
		if (utrace_recorder_poll(s->r, 1, &err) < 0 ||
		    (s->k.kt && session_kpoll(s, &err) < 0) ||
		    (s->k.sampler && utrace_sampler_drain(s->k.sampler, session_perf,
							  session_offcpu, false, s->r, &err) < 0)) {
			session_stop_on(s, &err);
			break;
		}
		if (s->o->step && !s->step_killed && s->o->step(s->o->step_arg, s)) {
			s->step_killed = true;
			if (s->attach)
				break;
			if (!s->exited)
				kill(s->pid, SIGTERM);
		}
		if (s->attach && session_attach_over(s->attach))
			break;
		if (!s->attach)
			session_daemons_watch(s);
		if (!s->attach && !s->exited && waitpid(s->pid, &s->status, WNOHANG) == s->pid)
			s->exited = true;
		if (s->exited && (end = session_daemons_end_check(s))) {
			if (end == SESSION_DAEMONS_LEFT)
				session_daemons_end(s);
			break;
		}
		if (session_interrupted)
			break;
		session_live_yield(s->live);
	}
	if (s->o->progress)
		s->o->progress(s->o->progress_arg, NULL, -1);
	if (session_interrupted && !s->exited && !s->attach) {
		utrace_recorder_stop(s->r);
		s->stopped = true;
		/* give the processes a moment to close their connections */
		for (int i = 0; i < 100 && !utrace_recorder_idle(s->r); i++)
			utrace_recorder_poll(s->r, 1, &err);
	}
}

/* Drain, write the last records, print the summary, close the kernel
 * side, wait for the command. */
static void session_end(struct utrace_session *s)
{
	struct utrace_recorder_stats st;
	struct utrace_error err = {0};

	if (s->k.kt) {
		const struct utrace_dat_ktask *tasks;
		size_t ntasks;

		if (utrace_ktrace_stop(s->k.kt, session_kpage, s->r, &err) < 0)
			session_said(s, &err, false, " (what was recorded is saved)");
		tasks = utrace_ktrace_tasks(s->k.kt, &ntasks);
		if (utrace_recorder_write_ktasks(s->r, tasks, ntasks, &err) < 0 ||
		    session_kstack_syms(s->k.kt, s->r, &err) < 0)
			session_said(s, &err, true, "");
	}
	if (s->k.sampler &&
	    utrace_sampler_drain(s->k.sampler, session_perf, session_offcpu, true, s->r, &err) < 0)
		session_said(s, &err, true, "");
	if (s->k.sampler && session_ksyms(s->r, s->k.sampler, &err) < 0)
		session_said(s, &err, true, " (the kernel's frames will not be named)");
	if (s->attach)
		session_attach_detach(s->attach, s->r);
	session_live_stop(s->live); /* the tracefs reads the file: before it is closed */
	s->live = NULL;
	if (utrace_recorder_finish(s->r, &st, &err) < 0)
		session_said(s, &err, true, "; utrace report reads what the file holds");
	else
		session_summary(s, &st);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		session_log(s->o->log, "%s", err.msg);
	s->k.kt = NULL;
	session_probes_free(s->rp, s->o->log); /* after the instance: enabled probes stay */
	s->rp = NULL;
	if (s->stopped && !s->o->own_command)
		session_log(s->o->log, "interrupted; waiting for %s to exit", s->o->argv[0]);
	if (!s->exited && !s->attach) {
		/* the command goes on untraced: a process of it that starts
		 * now (a runtime waiting in connect for its CONFIG) must be
		 * reset, not left waiting on a socket nobody serves while we
		 * wait for the command */
		utrace_recorder_refuse(s->r);
		if (!utrace_spawn_signal_ignored(SIGINT))
			signal(SIGINT, SIG_DFL);
		while (waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
			;
	}
	if (!s->attach) {
		session_say_killed(s);
		session_crash_dump(s);
	}
}

int utrace_session_stop(struct utrace_session *s)
{
	if (!s->started)
		return 1;
	session_end(s);
	return s->attach ? session_attach_status(s->attach) : UTRACE_SESSION_RAN;
}

int utrace_session_status(const struct utrace_session *s)
{
	return s->status;
}

const char *utrace_session_error_tail(const struct utrace_session *s)
{
	return s && s->fail.tail ? s->fail.tail : "";
}

int utrace_session_new(struct utrace_session_opts *o, struct utrace_session **out)
{
	*out = NULL;
	if (!o->log)
		return -EINVAL; /* the library says nothing on its own */
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->o = o;
	return 0;
}

/* What the options give the recorder and the kernel side. */
static int session_prepare(struct utrace_session *s)
{
	struct utrace_session_opts *o = s->o;
	int ret;

	if (utrace_runtime_path(s->runtime, sizeof(s->runtime)) < 0)
		return session_failf(&s->fail, 1,
				     "cannot find libutrace.so next to utrace (set UTRACE_LIB)");
	if (!o->rec.notice) {
		o->rec.notice = session_notice;
		o->rec.notice_arg = o->log;
	}
	if (o->npids && !(s->attach = session_attach_check(o, s->runtime, &s->fail, &ret)))
		return ret;
	s->command = session_command_line(o->argv);
	o->rec.command = s->command;
	o->rec.filter = o->filter;
	/* sampled call chains hold the return trampoline where a traced
	 * call's return was hooked: the entries say what it replaced */
	o->rec.funcgraph_retaddr =
	    o->sample.freq && (o->sample.callchain || o->sample.stack_size);
	s->k.children = o->children;
	s->k.system_wide = o->system_wide;
	s->k.sopts = o->sample.freq ? &o->sample : NULL;
	return 0;
}

int utrace_session_start(struct utrace_session *s, struct utrace_error *err)
{
	int ret = session_prepare(s);

	if (!ret) {
		session_catch_signals();
		ret = session_split_events(s);
	}
	if (!ret)
		ret = session_open_events(s);
	if (!ret)
		ret = session_begin(s);
	s->started = !ret;
	if (ret)
		*err = s->fail.err;
	return ret;
}

void utrace_session_free(struct utrace_session *s)
{
	struct utrace_error err = {0};

	if (!s)
		return;
	session_live_stop(s->live);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		session_log(s->o->log, "%s", err.msg);
	session_probes_free(s->rp, s->o->log);
	session_attach_free(s->attach);
	utrace_sampler_close(s->k.sampler);
	utrace_recorder_free(s->r);
	free(s->command);
	utrace_event_select_free(s->events);
	record_synth_free(s->synths, s->o->nsynth);
	for (unsigned i = 0; s->uspecs && i < s->nuspecs; i++)
		utrace_trigger_free_kept(&s->uspecs[i]); /* the check's programs */
	free(s->uspecs);
	free(s->kspecs);
	for (unsigned i = 0; i < s->nr_target_names; i++)
		free(s->target_names[i]);
	free(s->target_names);
	session_fail_free(&s->fail);
	free(s);
}
