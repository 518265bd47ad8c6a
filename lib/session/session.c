/* SPDX-License-Identifier: MIT */
/*
 * record_run.c - the work of `utrace record` (cmds/record.h): run a
 * command with libutrace.so preloaded and save what it traces, like
 * `trace-cmd record` does for the kernel.
 *
 *   record_events   -e/--probe split into user events, kernel events and
 *                   uprobes; filters checked before anything runs
 *                   (cmds/record_events.c)
 *   record_start    the recorder's socket, the kernel header, the command
 *                   started held, kernel tracing on its pid, then exec
 *                   (cmds/record_spawn.c, cmds/record_kernel.c)
 *   record_loop     poll the buffers (tracefs, samples) until every traced
 *                   process has gone, or only daemons are left
 *                   (cmds/record_daemons.c), or Ctrl-C
 *   record_end      drain, write the file's last records, the summary
 *                   (cmds/record_summary.c)
 *
 * With -P the processes already run: cmds/record_attach.c checks them,
 * injects the runtime instead of record_spawn, ends the loop at
 * --duration or their exit, and detaches before the file is finished.
 *
 * The command runs in our process group with our stdin/stdout/stderr, and
 * we end as it ended: the same exit status, or the same signal raised on
 * ourselves, so a shell sees no difference.  Ctrl-C stops the recording
 * (tracing_on = 0 everywhere), saves the file, then waits for the command.
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
#include <unistd.h>

#include "cmds/cmds.h"
#include "cmds/record_attach.h"
#include "cmds/record_live.h"
#include "cmds/record_probes.h"
#include "cmds/record_run_internal.h"
#include "cmds/record_synth.h"
#include "lib/base/spawn.h"

static volatile sig_atomic_t record_interrupted;

static void record_on_signal(int sig)
{
	record_interrupted = sig;
}

static void record_notice(void *arg, int pid, const char *text)
{
	fprintf(stderr, "utrace record: pid %d: %s\n", pid, text);
}

/* Ctrl-C, SIGTERM and SIGHUP end the recording, as they end trace-cmd
 * and perf record, even where the shell had SIGINT ignored (a background
 * job: `kill -INT` is how one stops it).  But a SIGHUP utrace was started
 * ignoring (nohup) the recording ignores too, as the command does (it
 * gets utrace's dispositions back, lib/base/spawn.h): a hang-up ends
 * neither.  SIGPIPE is ignored for our own writes only: the command's
 * stays as it was. */
static void record_catch_signals(void)
{
	signal(SIGINT, record_on_signal);
	signal(SIGTERM, record_on_signal);
	if (!utrace_spawn_signal_ignored(SIGHUP))
		signal(SIGHUP, record_on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* The command line as one string, for the file's metadata. */
static char *record_command_line(char **argv)
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
static int record_attach_sample(struct record_session *s)
{
	struct utrace_sampler_opts so = *s->k.sopts;
	struct utrace_error err = {0};
	size_t len;
	void *buf;

	so.target = UTRACE_SAMPLE_PROCESS;
	if (utrace_sampler_open(s->o->pids[0], &so, &s->k.sampler, &err) < 0 ||
	    utrace_sampler_synthesize(s->o->pids[0], &buf, &len, &err) < 0) {
		utrace_die_msg("record", "%s", err.msg);
		return 1;
	}
	if (record_perf_attr(s->r, s->k.sampler, so.user_only, &err) < 0 ||
	    (len && record_perf(s->r, 0, buf, len, &err) < 0))
		utrace_die_msg("record", "%s: %s (the samples will not be readable)",
			       s->o->rec.output, err.msg);
	free(buf);
	return 0;
}

/* -P: kernel tracing and sampling on the first process, the runtime
 * injected. */
static int record_attach_begin(struct record_session *s)
{
	if (s->k.kt && record_kernel_start(&s->k, s->o->pids[0]) < 0) {
		utrace_die_msg("record", "%s", s->k.err.msg);
		return 1;
	}
	if (s->k.sopts && record_attach_sample(s))
		return 1;
	return record_attach_start(s->attach, s->r);
}

/* The recorder, the kernel header and formats, the command started.
 * 0, or the exit status. */
static int record_start(struct record_session *s)
{
	struct utrace_recorder_opts *ro = &s->o->rec;
	struct utrace_error err = {0};

	if (utrace_recorder_new(ro, &s->r, &err) < 0) {
		utrace_die_msg("record", "%s", err.msg);
		return 1;
	}
	if (s->k.kt) {
		const char *clock, *hpage, *hevent;
		uint32_t subbuf;

		utrace_ktrace_header(s->k.kt, &clock, &subbuf, &hpage, &hevent);
		if (utrace_recorder_write_kheader(s->r, clock, subbuf, hpage, hevent, &err) < 0 ||
		    utrace_ktrace_formats(s->k.kt, record_kformat, s->r, &err) < 0 ||
		    utrace_recorder_kready(s->r, &err) < 0) {
			utrace_die_msg("record", "%s: %s", ro->output, err.msg);
			return 1;
		}
	}
	if (s->o->tracefs && !(s->live = record_live_start(s->r, s->o->tracefs, s->o)))
		return 1;
	if (s->live && s->o->live_ready)
		s->o->live_ready(s->o->live_ready_arg, s->o->tracefs);
	if (record_interrupted)
		return 1;
	if (s->attach)
		return record_attach_begin(s);
	s->pid = record_spawn(s->o->argv, utrace_recorder_sock_path(s->r), s->runtime, ro->libcall,
			      &s->k, &err);
	if (s->pid == -2) {
		utrace_die_msg("record", "%s", s->k.err.msg);
		return 1;
	}
	if (s->pid < 0) {
		utrace_die_msg("record", "%s", err.msg);
		return 127;
	}
	if (s->k.sampler && record_perf_attr(s->r, s->k.sampler, s->o->sample.user_only, &err) < 0)
		utrace_die_msg("record", "%s: %s (the samples will not be readable)", ro->output,
			       err.msg);
	return 0;
}

/* A read of the kernel's CPUs; after a whole round, the triggers the
 * recorder runs on kernel events get the records it made safe to run. */
static int record_kpoll(struct record_session *s, struct utrace_error *err)
{
	int ret = utrace_ktrace_poll(s->k.kt, false, record_kpage, s->r, err);

	return ret > 0 ? utrace_recorder_kround(s->r, err) : ret;
}

/*
 * An error of the recording, said once, in one line that names the file
 * (err's message names it already if the writer made it; about_file: the
 * error is the file's).  A failed write (a full disk) is sticky: every
 * later write fails with the same code, and is not said again.
 */
static void record_fail(struct record_session *s, const struct utrace_error *err,
			bool about_file, const char *tail)
{
	const char *out = s->o->rec.output;
	size_t n = strlen(out);

	if (s->failed && err->code == s->failed)
		return;
	if (!s->failed)
		s->failed = err->code;
	if (!about_file || (!strncmp(err->msg, out, n) && err->msg[n] == ':'))
		utrace_die_msg("record", "%s%s", err->msg, tail);
	else
		utrace_die_msg("record", "%s: %s%s", out, err->msg, tail);
}

/* The loop ends at an error: said; if the file cannot be written (a full
 * disk), tracing goes off in the processes, which run on untraced
 * instead of filling buffers nobody saves. */
static void record_stop_on(struct record_session *s, const struct utrace_error *err)
{
	bool unwritable = utrace_recorder_write_failed(s->r) != 0;

	record_fail(s, err, false,
		    unwritable ? "; recording stopped, the program runs on untraced, utrace "
				 "report reads what the file holds"
			       : " (stopping; what was recorded is saved)");
	if (unwritable)
		utrace_recorder_stop(s->r);
}

/* Record until the command and every process it started that is traced
 * have gone (but daemons: record_daemons.c), or until interrupted. */
static void record_loop(struct record_session *s)
{
	struct utrace_error err = {0};
	int end;

	for (;;) {
		if (utrace_recorder_poll(s->r, 1, &err) < 0 ||
		    (s->k.kt && record_kpoll(s, &err) < 0) ||
		    (s->k.sampler && utrace_sampler_drain(s->k.sampler, record_perf, record_offcpu,
							  false, s->r, &err) < 0)) {
			record_stop_on(s, &err);
			break;
		}
		if (s->attach && record_attach_over(s->attach))
			break;
		if (!s->attach)
			record_daemons_watch(s);
		if (!s->attach && !s->exited && waitpid(s->pid, &s->status, WNOHANG) == s->pid)
			s->exited = true;
		if (s->exited && (end = record_daemons_end_check(s))) {
			if (end == RECORD_DAEMONS_LEFT)
				record_daemons_end(s);
			break;
		}
		if (record_interrupted)
			break;
		record_live_yield(s->live);
	}
	if (record_interrupted && !s->exited && !s->attach) {
		utrace_recorder_stop(s->r);
		s->stopped = true;
		/* give the processes a moment to close their connections */
		for (int i = 0; i < 100 && !utrace_recorder_idle(s->r); i++)
			utrace_recorder_poll(s->r, 1, &err);
	}
}

/* Drain, write the last records, print the summary, close the kernel
 * side, wait for the command. */
static void record_end(struct record_session *s)
{
	struct utrace_recorder_stats st;
	struct utrace_error err = {0};

	if (s->k.kt) {
		const struct utrace_dat_ktask *tasks;
		size_t ntasks;

		if (utrace_ktrace_stop(s->k.kt, record_kpage, s->r, &err) < 0)
			record_fail(s, &err, false, " (what was recorded is saved)");
		tasks = utrace_ktrace_tasks(s->k.kt, &ntasks);
		if (utrace_recorder_write_ktasks(s->r, tasks, ntasks, &err) < 0 ||
		    record_kstack_syms(s->k.kt, s->r, &err) < 0)
			record_fail(s, &err, true, "");
	}
	if (s->k.sampler &&
	    utrace_sampler_drain(s->k.sampler, record_perf, record_offcpu, true, s->r, &err) < 0)
		record_fail(s, &err, true, "");
	if (s->k.sampler && record_ksyms(s->r, s->k.sampler, &err) < 0)
		record_fail(s, &err, true, " (the kernel's frames will not be named)");
	if (s->attach)
		record_attach_detach(s->attach, s->r);
	record_live_stop(s->live); /* the tracefs reads the file: before it is closed */
	s->live = NULL;
	if (utrace_recorder_finish(s->r, &st, &err) < 0)
		record_fail(s, &err, true, "; utrace report reads what the file holds");
	else
		record_summary(s, &st);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	s->k.kt = NULL;
	record_probes_free(s->rp); /* after the instance: enabled probes stay */
	s->rp = NULL;
	if (s->stopped)
		fprintf(stderr, "utrace record: interrupted; waiting for %s to exit\n",
			s->o->argv[0]);
	if (!s->exited && !s->attach) {
		if (!utrace_spawn_signal_ignored(SIGINT))
			signal(SIGINT, SIG_DFL);
		while (waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
			;
	}
	if (!s->attach)
		record_say_killed(s);
}

static void record_cleanup(struct record_session *s)
{
	struct utrace_error err = {0};

	record_live_stop(s->live);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	record_probes_free(s->rp);
	record_attach_free(s->attach);
	utrace_sampler_close(s->k.sampler);
	utrace_recorder_free(s->r);
	free(s->command);
	utrace_event_select_free(s->events);
	record_synth_free(s->synths, s->o->nsynth);
	free(s->uspecs);
	free(s->kspecs);
	for (unsigned i = 0; i < s->nr_target_names; i++)
		free(s->target_names[i]);
	free(s->target_names);
}

int record_run(struct record_opts *o)
{
	struct record_session s = {.o = o};
	int ret;

	if (record_find_runtime(s.runtime, sizeof(s.runtime)) < 0) {
		utrace_die_msg("record",
			       "cannot find libutrace.so next to utrace (set UTRACE_LIB)");
		return 1;
	}
	if (!o->rec.notice)
		o->rec.notice = record_notice;
	if (o->npids && !(s.attach = record_attach_check(o, s.runtime, &ret)))
		return ret;
	s.command = record_command_line(o->argv);
	o->rec.command = s.command;
	o->rec.filter = o->filter;
	s.k.children = o->children;
	s.k.system_wide = o->system_wide;
	s.k.sopts = o->sample.freq ? &o->sample : NULL;
	record_catch_signals();
	ret = record_split_events(&s);
	if (!ret)
		ret = record_open_events(&s);
	if (!ret)
		ret = record_start(&s);
	if (!ret) {
		record_loop(&s);
		record_end(&s);
		ret = s.attach ? record_attach_status(s.attach) : RECORD_RAN;
	}
	record_cleanup(&s);
	if (ret == RECORD_RAN && o->keep_status) {
		o->status = s.status;
		return RECORD_RAN;
	}
	/* end as the command ended: this may raise its signal on ourselves,
	 * so only once everything is cleaned up */
	return ret == RECORD_RAN ? utrace_exit_like(s.status) : ret;
}
