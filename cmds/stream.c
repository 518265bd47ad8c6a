/* SPDX-License-Identifier: MIT */
/*
 * stream.c - `utrace stream [record's options] -- COMMAND`: trace-cmd
 * stream for a user program: COMMAND runs traced and its events are
 * printed as they come, as `cat trace_pipe` prints them; nothing is
 * saved.
 *
 * The recording is utrace record's with a live tracefs at a directory of
 * our own (in the session directory, lib/session/session_folder.h) and its file there
 * too, removed at the end; a child of ours reads the mount's trace_pipe
 * onto stdout.  When the program ends the recorder hands the reader the
 * last records before unmounting (utrace_live_drain), then the reader
 * reads the end and we end as the command ended.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/session/session.h"
#include "lib/session/session_folder.h"

static void stream_usage(FILE *f)
{
	fprintf(f, "usage: utrace stream [OPTIONS] [--] COMMAND [ARGS...]\n"
		   "\n"
		   "Run COMMAND traced and print its events as they come, in the layout of\n"
		   "trace_pipe, saving nothing (trace-cmd stream).\n"
		   "\n"
		   "  OPTIONS                  those of utrace record (-p, -l, -n, -g, -e, ...)\n"
		   "                           but -o and --tracefs\n"
		   "  -h, --help               this text\n"
		   "\n"
		   "The exit status is COMMAND's.  See man utrace-stream.\n");
}

/* The reader: trace_pipe onto stdout until the mount goes (a read fails
 * or ends).  It says on ready (a byte, or its end) that it has opened
 * the file, so that the recorder waits for it at the end. */
static void stream_reader(const char *dir, int ready)
{
	char path[PATH_MAX + 64], buf[65536];
	FILE *f = NULL;
	size_t n;

	signal(SIGINT, SIG_IGN); /* the recorder ends us by unmounting */
	if (snprintf(path, sizeof(path), "%s/trace_pipe", dir) >= (int)sizeof(path))
		_exit(1);
	for (int i = 0; i < 1000 && !utrace_session_mounted(dir); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	if (utrace_session_mounted(dir))
		f = fopen(path, "r");
	(void)!write(ready, "", 1);
	close(ready);
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		fwrite(buf, 1, n, stdout);
		fflush(stdout);
	}
	_exit(0);
}

/* record_run's live_ready: the reader has trace_pipe open (or gave up)
 * before the command runs. */
static void stream_ready(void *arg, const char *dir)
{
	int *ready = arg;
	char c;

	while (read(*ready, &c, 1) < 0 && errno == EINTR)
		;
	close(*ready);
}

static int stream_run(struct utrace_session_opts *o)
{
	char dir[PATH_MAX + 32], spool[PATH_MAX + 32];
	struct utrace_session_folder s;
	struct utrace_error err = {0};
	int ret, ready[2], status = 0;
	pid_t reader;

	if (utrace_session_folder_open(&s, &err) < 0) {
		utrace_die_msg("stream", "%s", err.msg);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/stream-%d", s.dir, (int)getpid());
	snprintf(spool, sizeof(spool), "%s/stream-%d.dat", s.dir, (int)getpid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		utrace_die_msg("stream", "%s: %s", dir, strerror(errno));
		return 1;
	}
	fflush(NULL);
	if (pipe(ready) < 0 || (reader = fork()) < 0) {
		utrace_die_msg("stream", "fork: %s", strerror(errno));
		rmdir(dir);
		return 1;
	}
	if (!reader) {
		close(ready[0]);
		stream_reader(dir, ready[1]);
	}
	close(ready[1]);
	o->live_ready = stream_ready;
	o->live_ready_arg = &ready[0];
	o->tracefs = dir;
	o->rec.output = spool;
	ret = record_run(o, &status);
	/* the mount is gone: the reader, which has been handed the end,
	 * finds it gone; one that never began is ended */
	for (int i = 0; i < 200 && waitpid(reader, NULL, WNOHANG) == 0; i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	if (kill(reader, SIGTERM) == 0)
		waitpid(reader, NULL, 0);
	unlink(spool);
	rmdir(dir);
	return ret == UTRACE_SESSION_RAN ? utrace_exit_like(status) : ret;
}

int cmd_stream(int argc, char **argv)
{
	struct utrace_session_opts o;
	int ret;

	if (utrace_session_opts_init(&o) < 0) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	ret = record_parse("stream", argc, argv, &o);
	if (ret == -2) {
		stream_usage(stdout);
		ret = 0;
	} else if (ret == -1 && (o.output_given || o.tracefs)) {
		utrace_die_msg("stream", "%s: stream saves nothing and serves no tracefs of its own "
					 "(utrace record does)", o.tracefs ? "--tracefs" : "-o");
		ret = 2;
	} else if (ret == -1) {
		o.rec.live = true;
		o.quiet = true;
		ret = stream_run(&o);
	}
	utrace_session_opts_free(&o);
	return ret;
}
