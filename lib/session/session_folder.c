/* SPDX-License-Identifier: MIT */
/*
 * session_folder.c - finding and reaching the session of `utrace start`
 * (lib/session/session_folder.h says where its files are).  The verbs work through the
 * mount's files, as trace-cmd's work through tracefs: stop writes
 * tracing_on, show reads trace, extract reads utrace.dat.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/proc_self.h"
#include "lib/session/session_folder.h"

#define SESSION_FUSE_MAGIC 0x65735546 /* linux/magic.h FUSE_SUPER_MAGIC */

/* Whether dir, just made or found, is ours alone: a directory (not a
 * link to one), owned by us, mode 0700 at most.  /tmp/utrace-UID may
 * have been made by another user before us; as ssh-agent and tmux do,
 * refuse it rather than use it (its session file would name a pid to
 * signal and a tracefs to write, its links a place to write to). */
static int session_dir_private(const char *dir, struct utrace_error *err)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return utrace_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		return utrace_error_set(
		    err, -EPERM,
		    "%s: not a private directory of this user (%s, owner uid %u, "
		    "mode %04o): refusing to use it; remove it, or set XDG_RUNTIME_DIR",
		    dir,
		    S_ISLNK(st.st_mode)	  ? "a symbolic link"
		    : S_ISDIR(st.st_mode) ? "a directory"
					  : "not a directory",
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	return 0;
}

int utrace_session_folder_open(struct utrace_session_folder *s, struct utrace_error *err)
{
	const char *run = getenv("XDG_RUNTIME_DIR");

	memset(s, 0, sizeof(*s));
	if (run && *run)
		snprintf(s->dir, sizeof(s->dir), "%s/utrace", run);
	else
		snprintf(s->dir, sizeof(s->dir), "/tmp/utrace-%u", (unsigned)getuid());
	if (mkdir(s->dir, 0700) < 0 && errno != EEXIST)
		return utrace_error_set(err, -errno, "%s: %s", s->dir, strerror(errno));
	return session_dir_private(s->dir, err);
}

void utrace_session_folder_path(const struct utrace_session_folder *s, const char *name, char *buf,
				size_t size)
{
	if (snprintf(buf, size, "%s/%s", s->dir, name) >= (int)size)
		buf[0] = 0; /* too long: names nothing */
}

bool utrace_session_mounted(const char *dir)
{
	char path[PATH_MAX];
	struct statfs fs;
	struct stat st;

	/* a FUSE mount (lib/tracefs): a folder with a file of that name is not
	 * a tracefs that answers */
	return snprintf(path, sizeof(path), "%s/current_tracer", dir) < (int)sizeof(path) &&
	       stat(path, &st) == 0 && statfs(dir, &fs) == 0 && fs.f_type == SESSION_FUSE_MAGIC;
}

FILE *utrace_session_fopen(const char *path, int flags)
{
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd < 0 ? NULL : fdopen(fd, (flags & O_ACCMODE) == O_RDONLY ? "r" : "w");

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* The session file: pid and mount; false if there is none. */
static bool session_read(struct utrace_session_folder *s)
{
	char path[PATH_MAX], line[PATH_MAX];
	FILE *f;
	bool ok;

	utrace_session_folder_path(s, "session", path, sizeof(path));
	if (!(f = utrace_session_fopen(path, O_RDONLY)))
		return false;
	ok = fgets(line, sizeof(line), f) && (s->pid = atoi(line)) > 0 &&
	     fgets(s->tracefs, sizeof(s->tracefs), f);
	fclose(f);
	s->tracefs[strcspn(s->tracefs, "\n")] = 0;
	return ok && s->tracefs[0];
}

int utrace_session_folder_find(const char *tracefs, struct utrace_session_folder *s,
			       struct utrace_error *err)
{
	if (utrace_session_folder_open(s, err) < 0)
		return err->code;
	if (!session_read(s))
		s->pid = 0;
	if (tracefs)
		snprintf(s->tracefs, sizeof(s->tracefs), "%s", tracefs);
	if (s->tracefs[0] && utrace_session_mounted(s->tracefs))
		return 1;
	utrace_error_set(err, -ENOENT,
			 "no tracing session runs%s%s (start one with utrace start -- COMMAND)",
			 s->tracefs[0] ? ": nothing served at " : "", s->tracefs);
	return 0;
}

int utrace_session_cat(const struct utrace_session_folder *s, const char *name, FILE *out,
		       struct utrace_error *err)
{
	char path[PATH_MAX], buf[65536];
	FILE *f = NULL;
	size_t n;

	if (snprintf(path, sizeof(path), "%s/%s", s->tracefs, name) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else if ((f = utrace_session_fopen(path, O_RDONLY)))
		errno = 0;
	if (errno)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (fwrite(buf, 1, n, out) != n)
			break;
		fflush(out); /* trace_pipe: each read as it comes */
	}
	if (ferror(f) || ferror(out)) {
		utrace_error_set(err, -EIO, "%s: %s", ferror(f) ? path : "output", strerror(errno));
		fclose(f);
		return err->code;
	}
	fclose(f);
	return 0;
}

int utrace_session_write(const struct utrace_session_folder *s, const char *name, const char *text,
			 struct utrace_error *err)
{
	char path[PATH_MAX];
	FILE *f = NULL;

	if (snprintf(path, sizeof(path), "%s/%s", s->tracefs, name) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else if ((f = utrace_session_fopen(
		      path, O_WRONLY | O_TRUNC))) /* a file of the mount: never made */
		errno = 0;
	if (errno)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	/* the write's error comes at the flush: the file takes it whole */
	if (fputs(text, f) == EOF || fclose(f) == EOF)
		return utrace_error_set(err, -EIO, "%s: %s", path, strerror(errno));
	return 0;
}

/* Removes s->dir/NAME, if it is there. */
static void session_unlink(const struct utrace_session_folder *s, const char *name)
{
	char path[PATH_MAX];

	utrace_session_folder_path(s, name, path, sizeof(path));
	unlink(path);
}

/* /proc/PID/NAME's start into buf, NUL-terminated; its length, or -1. */
static ssize_t session_proc_read(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* Whether pid is the recorder of a utrace start of this user: its owner
 * is us, its program utrace (the same binary as ours, or one named
 * utrace), its command line `utrace start ...`.  A session file names a
 * pid that may have ended and been reused by now, by any process. */
static bool session_is_recorder(pid_t pid)
{
	char path[64], cmdline[256];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid != geteuid() || utrace_proc_is_utrace(pid) != 1)
		return false;
	/* argv: "utrace\0start\0..." (argv[0] as it was typed) */
	if ((n = session_proc_read(pid, "cmdline", cmdline, sizeof(cmdline))) <= 0)
		return false;
	n = (ssize_t)strlen(cmdline) + 1;
	return n < (ssize_t)sizeof(cmdline) && strcmp(cmdline + n, "start") == 0;
}

bool utrace_session_end(struct utrace_session_folder *s, bool running)
{
	char spool[64];
	bool had = false;

	if (running && s->pid > 0 && session_is_recorder(s->pid) && kill(s->pid, SIGTERM) == 0) {
		/* the recorder unmounts, then waits for its program: wait
		 * for the mount only (5 s at most) */
		for (int i = 0; i < 500 && s->tracefs[0] && utrace_session_mounted(s->tracefs); i++)
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
