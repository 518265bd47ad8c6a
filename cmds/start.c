/* SPDX-License-Identifier: MIT */
/*
 * start.c - `utrace start [record's options] -- COMMAND`: trace-cmd
 * start for a user program.  COMMAND runs traced in the background, its
 * records kept in the buffers only, the live tracefs served at the
 * session's place (lib/session/session_folder.h) for stop, restart, show, extract and
 * reset to reach.
 *
 * "Buffers only": the recording is an --overwrite one, a flight
 * recorder: each thread's ring (-b KB) keeps its newest records and is
 * read only when asked (the trace file, utrace extract: a copy, the ring
 * goes on) or when the program ends; the recorder's own file (the spool
 * in the session directory) holds meanwhile the metadata only.  A
 * recorder process of our own, detached (setsid, stdin from /dev/null),
 * runs the recording (lib/session); we return once the tracefs answers and the program
 * has started.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/tracefs/live.h"
#include "lib/session/session.h"
#include "lib/session/session_folder.h"

static void start_usage(FILE *f)
{
	fprintf(f, "usage: utrace start [OPTIONS] [--] COMMAND [ARGS...]\n"
		   "\n"
		   "Run COMMAND traced in the background, keeping its records in the buffers\n"
		   "only (a flight recorder: each thread's buffer keeps its newest records),\n"
		   "and serve the live tracefs of the recording (trace-cmd start).\n"
		   "\n"
		   "  OPTIONS                  those of utrace record (-p, -l, -n, -g, -e, -b, ...)\n"
		   "                           but -o: nothing is saved until utrace extract\n"
		   "      --tracefs DIR        serve the tracefs at DIR (default: %s)\n"
		   "  -h, --help               this text\n"
		   "\n"
		   "Then: utrace stop, restart, show, extract -o FILE, reset.\n"
		   "See man utrace-start.\n",
		   "$XDG_RUNTIME_DIR/utrace/tracefs or /tmp/utrace-UID/tracefs");
}

/* Whether the recorder pid has started its program. */
static bool start_has_child(pid_t pid)
{
	char path[64], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] != 0;
}

/* The recorder: detached, its session file written, record_run, then
 * the spool kept as last.dat (unless reset removed it). */
static void start_recorder(struct utrace_session_folder *s, struct utrace_session_opts *o)
{
	int status;
	char path[PATH_MAX + 16], spool[PATH_MAX + 16], last[PATH_MAX + 16];
	int fd = open("/dev/null", O_RDONLY), ret;
	FILE *f;

	setsid();
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	snprintf(spool, sizeof(spool), "%s/spool-%d.dat", s->dir, (int)getpid());
	snprintf(path, sizeof(path), "%s/session", s->dir);
	snprintf(last, sizeof(last), "%s/last.dat", s->dir);
	unlink(last); /* an older session's buffers */
	if (!(f = utrace_session_fopen(path, O_WRONLY | O_CREAT | O_TRUNC)) || fprintf(f, "%d\n%s\n", (int)getpid(), s->tracefs) < 0 ||
	    fclose(f) == EOF) {
		utrace_die_msg("start", "%s: %s", path, strerror(errno));
		_exit(1);
	}
	o->rec.output = spool;
	ret = record_run(o, &status);
	rename(spool, last);
	unlink(path);
	unlink(spool);
	_exit(ret == UTRACE_SESSION_RAN ? 0 : ret); /* 0: the program ran */
}

/* Waits until the recorder serves the tracefs and its program runs, or
 * ends; 0, -1 if the program ran and ended already, else the exit
 * status. */
static int start_wait(const struct utrace_session_folder *s, pid_t pid)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			/* ended already: the program ran (and its buffers are
			 * last.dat), or the recorder said why not */
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				return -1;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		}
		if (utrace_session_mounted(s->tracefs) && start_has_child(pid))
			return 0;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	utrace_die_msg("start", "the recorder (pid %d) did not start in 10 s", (int)pid);
	return 1;
}

/* Where the tracefs goes: --tracefs DIR, else the session's tracefs/. */
static int start_place(struct utrace_session_folder *s, const char *dir)
{
	if (dir && !realpath(dir, s->tracefs)) {
		utrace_die_msg("start", "--tracefs: %s: %s", dir, strerror(errno));
		return 2;
	}
	if (!dir) {
		utrace_session_folder_path(s, "tracefs", s->tracefs, sizeof(s->tracefs));
		if (mkdir(s->tracefs, 0700) < 0 && errno != EEXIST) {
			utrace_die_msg("start", "%s: %s", s->tracefs, strerror(errno));
			return 1;
		}
	}
	/* a mount a killed recorder left answers nothing: remove it */
	utrace_live_reset(NULL, NULL, &(struct utrace_error){0});
	return 0;
}

static int start_run(struct utrace_session_opts *o)
{
	struct utrace_session_folder s, old;
	struct utrace_error err = {0};
	pid_t pid;
	int ret;

	if (utrace_session_folder_open(&s, &err) < 0) {
		utrace_die_msg("start", "%s", err.msg);
		return 1;
	}
	old = s;
	if (utrace_session_folder_find(NULL, &old, &err) > 0) {
		utrace_die_msg("start", "a session runs (recorder %d, tracefs at %s): utrace reset "
					"ends it", (int)old.pid, old.tracefs);
		return 1;
	}
	if ((ret = start_place(&s, o->tracefs)))
		return ret;
	o->tracefs = s.tracefs;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		utrace_die_msg("start", "fork: %s", strerror(errno));
		return 1;
	}
	if (!pid)
		start_recorder(&s, o);
	if ((ret = start_wait(&s, pid)) > 0)
		return ret;
	if (ret < 0) {
		printf("utrace start: %s ran and ended; its buffers are kept (utrace extract)\n",
		       o->argv[0]);
		return 0;
	}
	printf("utrace start: %s runs traced in the background (recorder %d); tracefs at %s\n",
	       o->argv[0], (int)pid, s.tracefs);
	return 0;
}

int cmd_start(int argc, char **argv)
{
	struct utrace_session_opts o;
	int ret;

	if (utrace_session_opts_init(&o) < 0) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	ret = record_parse("start", argc, argv, &o);
	if (ret == -2) {
		start_usage(stdout);
		ret = 0;
	} else if (ret == -1 && o.output_given) {
		utrace_die_msg("start", "-o %s: start keeps the records in the buffers; "
					"utrace extract -o FILE saves them", o.rec.output);
		ret = 2;
	} else if (ret == -1) {
		o.rec.overwrite = true; /* the flight recorder: buffers only */
		o.rec.live = true;
		o.quiet = true;
		ret = start_run(&o);
	}
	utrace_session_opts_free(&o);
	return ret;
}
