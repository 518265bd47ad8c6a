/* SPDX-License-Identifier: MIT */
/*
 * proc_self.c - whether a process runs utrace (proc_self.h), from its
 * /proc/PID/exe: the link's target names the file, a stat of the link
 * gives the file itself (so a renamed or linked copy of ours counts);
 * the link read once for every caller; a path as a process sees it,
 * through /proc/PID/root.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/proc_self.h"

int utrace_proc_is_utrace(pid_t pid)
{
	char path[64], exe[PATH_MAX];
	struct stat it, self;
	const char *base;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = utrace_proc_exe(pid, exe, sizeof(exe))) < 0)
		return n == -ENOENT || n == -ESRCH ? 0 : -1;
	if (stat(path, &it) == 0 && stat("/proc/self/exe", &self) == 0 &&
	    it.st_dev == self.st_dev && it.st_ino == self.st_ino)
		return 1;
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	return strncmp(base, "utrace", 6) == 0;
}

int utrace_proc_exe(pid_t pid, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (size < 2)
		return -ENAMETOOLONG;
	if ((n = readlink(link, buf, size - 1)) < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG; /* perhaps cut */
	buf[n] = 0;
	return (int)n;
}

bool utrace_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Each file is looked at once: pid may end at any time, and its
 * /proc/PID/root with it.  Seen there, then not (a second stat), the
 * process's name was taken for another file than ours, and a short-lived
 * child's objects kept a name that no longer opened: no symbols. */
int utrace_proc_path(pid_t pid, const char *path, char *buf, size_t size)
{
	char root[64];
	int n = snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	struct stat theirs, ours;

	if (path[0] != '/' || (!strncmp(path, root, (size_t)n) && (!path[n] || path[n] == '/')) ||
	    (size_t)snprintf(buf, size, "%s%s", root, path) >= size || stat(buf, &theirs) < 0 ||
	    (stat(path, &ours) == 0 && ours.st_dev == theirs.st_dev &&
	     ours.st_ino == theirs.st_ino))
		n = snprintf(buf, size, "%s", path);
	else
		n = (int)strlen(buf);
	return (size_t)n < size ? n : -ENAMETOOLONG;
}
