/* SPDX-License-Identifier: MIT */
/*
 * live_reset.c - removing the tracefs mounts of recorders that were
 * killed (utrace reset).
 *
 * A recorder ends its mount on every way out but SIGKILL; then the mount
 * stays, its FUSE connection dead: any access fails with ENOTCONN.  The
 * mount's source, utrace-PID, names the recorder that serves it: while
 * that process lives the mount is left alone, unasked (a stat would wait
 * for a server that is busy); otherwise (or for a source without a pid)
 * a stat that fails with ENOTCONN tells a dead one from a running one.  They are found in
 * /proc/self/mountinfo by their type, fuse.utrace (live_fs.c mounts with
 * subtype=utrace), and detached: umount2(MNT_DETACH) for root, else
 * fusermount3 -u -z, the setuid helper that let the user mount it.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/tracefs/live.h"

extern char **environ;

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

static int detach(const char *dir)
{
	char *argv[] = {"fusermount3", "-u", "-z", (char *)dir, NULL};
	int status;
	pid_t pid;

	if (!umount2(dir, MNT_DETACH))
		return 0;
	if (posix_spawnp(&pid, "fusermount3", NULL, NULL, argv, environ) != 0)
		return -errno;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EPERM;
	return 0;
}

/* Whether process pid has ended, its parent yet to reap it. */
static bool zombie(long pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	paren = strrchr(buf, ')'); /* the name may hold anything but ends there */
	return !paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
}

/* Whether the source field at src (utrace-PID ...) names a live process. */
static bool server_alive(const char *src)
{
	char *end;
	long pid;

	if (strncmp(src, "utrace-", 7))
		return false;
	pid = strtol(src + 7, &end, 10);
	if (pid <= 0 || end == src + 7 || (*end != ' ' && *end != '\n'))
		return false;
	if (kill((pid_t)pid, 0) < 0 && errno != EPERM)
		return false;
	return !zombie(pid); /* killed, not reaped yet: its server is gone */
}

int utrace_live_reset(void (*removed)(void *arg, const char *dir), void *arg,
		      struct utrace_error *err)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	int n = 0;

	if (!f)
		return utrace_error_set(err, -errno, "/proc/self/mountinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		/* id parent maj:min root MOUNTPOINT options... - FSTYPE source ... */
		char *dash = strstr(line, " - "), *mp = NULL, *save = NULL, *tok;
		struct stat st;
		int i = 0;

		if (!dash || strncmp(dash + 3, "fuse.utrace ", 12) || server_alive(dash + 15))
			continue;
		for (tok = strtok_r(line, " ", &save); tok && i < 4; tok = strtok_r(NULL, " ", &save))
			i++;
		mp = tok;
		if (!mp)
			continue;
		unescape(mp);
		if (stat(mp, &st) == 0 || errno != ENOTCONN)
			continue; /* a recording that runs */
		if (detach(mp) < 0)
			continue;
		if (removed)
			removed(arg, mp);
		n++;
	}
	fclose(f);
	return n;
}
