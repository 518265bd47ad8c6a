/* SPDX-License-Identifier: MIT */
/*
 * session.c - finding and reaching the session of `utrace start`
 * (cmds/session.h says where its files are).  The verbs work through the
 * mount's files, as trace-cmd's work through tracefs: stop writes
 * tracing_on, show reads trace, extract reads utrace.dat.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "cmds/session.h"

int session_dir(const char *cmd, struct session *s)
{
	const char *run = getenv("XDG_RUNTIME_DIR");

	memset(s, 0, sizeof(*s));
	if (run && *run)
		snprintf(s->dir, sizeof(s->dir), "%s/utrace", run);
	else
		snprintf(s->dir, sizeof(s->dir), "/tmp/utrace-%u", (unsigned)getuid());
	if (mkdir(s->dir, 0700) < 0 && errno != EEXIST) {
		utrace_die_msg(cmd, "%s: %s", s->dir, strerror(errno));
		return -1;
	}
	return 0;
}

void session_path(const struct session *s, const char *name, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/%s", s->dir, name) >= (int)size)
		buf[0] = 0; /* too long: names nothing */
}

bool session_mounted(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/current_tracer", dir) < (int)sizeof(path) &&
	       stat(path, &st) == 0;
}

/* The session file: pid and mount; false if there is none. */
static bool session_read(struct session *s)
{
	char path[PATH_MAX], line[PATH_MAX];
	FILE *f;
	bool ok;

	session_path(s, "session", path, sizeof(path));
	if (!(f = fopen(path, "r")))
		return false;
	ok = fgets(line, sizeof(line), f) && (s->pid = atoi(line)) > 0 &&
	     fgets(s->tracefs, sizeof(s->tracefs), f);
	fclose(f);
	s->tracefs[strcspn(s->tracefs, "\n")] = 0;
	return ok && s->tracefs[0];
}

bool session_find(const char *cmd, const char *tracefs, struct session *s)
{
	if (session_dir(cmd ? cmd : "start", s) < 0)
		return false;
	if (!session_read(s))
		s->pid = 0;
	if (tracefs)
		snprintf(s->tracefs, sizeof(s->tracefs), "%s", tracefs);
	if (s->tracefs[0] && session_mounted(s->tracefs))
		return true;
	if (cmd) /* NULL: only asking */
		utrace_die_msg(cmd, "no tracing session runs%s%s (start one with utrace start -- COMMAND)",
		       s->tracefs[0] ? ": nothing served at " : "", s->tracefs);
	return false;
}

int session_cat(const char *cmd, const struct session *s, const char *name, FILE *out)
{
	char path[PATH_MAX], buf[65536];
	FILE *f = NULL;
	size_t n;

	if (snprintf(path, sizeof(path), "%s/%s", s->tracefs, name) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else if ((f = fopen(path, "r")))
		errno = 0;
	if (errno) {
		utrace_die_msg(cmd, "%s: %s", path, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (fwrite(buf, 1, n, out) != n)
			break;
		fflush(out); /* trace_pipe: each read as it comes */
	}
	if (ferror(f) || ferror(out)) {
		utrace_die_msg(cmd, "%s: %s", ferror(f) ? path : "output", strerror(errno));
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

int session_write(const char *cmd, const struct session *s, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f = NULL;

	if (snprintf(path, sizeof(path), "%s/%s", s->tracefs, name) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else if ((f = fopen(path, "w")))
		errno = 0;
	if (errno) {
		utrace_die_msg(cmd, "%s: %s", path, strerror(errno));
		return 1;
	}
	/* the write's error comes at the flush: the file takes it whole */
	if (fputs(text, f) == EOF || fclose(f) == EOF) {
		utrace_die_msg(cmd, "%s: %s", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Removes s->dir/NAME, if it is there. */
static void session_unlink(const struct session *s, const char *name)
{
	char path[PATH_MAX];

	session_path(s, name, path, sizeof(path));
	unlink(path);
}

bool session_end(struct session *s, bool running)
{
	char spool[64];
	bool had = false;

	if (running && s->pid > 0 && kill(s->pid, SIGTERM) == 0) {
		/* the recorder unmounts, then waits for its program: wait
		 * for the mount only (5 s at most) */
		for (int i = 0; i < 500 && s->tracefs[0] && session_mounted(s->tracefs); i++)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
		had = true;
	}
	/* the buffers: the spool (the recorder then writes into a file
	 * nobody will see, and finds it gone), the ended session's file */
	snprintf(spool, sizeof(spool), "spool-%d.dat", (int)s->pid);
	if (s->pid > 0)
		session_unlink(s, spool);
	session_unlink(s, "session");
	session_unlink(s, "last.dat");
	return had;
}
