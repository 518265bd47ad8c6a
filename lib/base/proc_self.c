/* SPDX-License-Identifier: MIT */
/*
 * proc_self.c - whether a process runs utrace (proc_self.h), from its
 * /proc/PID/exe: the link's target names the file, a stat of the link
 * gives the file itself (so a renamed or linked copy of ours counts).
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
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	exe[n] = 0;
	if (stat(path, &it) == 0 && stat("/proc/self/exe", &self) == 0 &&
	    it.st_dev == self.st_dev && it.st_ino == self.st_ino)
		return 1;
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	return strncmp(base, "utrace", 6) == 0;
}
