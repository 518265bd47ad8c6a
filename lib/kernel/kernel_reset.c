/* SPDX-License-Identifier: MIT */
/*
 * kernel_reset.c - `utrace reset` (utrace_ktrace_reset()): what a recorder
 * that was killed left in tracefs.  Its instance is named after its pid
 * (instances/utrace-<pid>), its probes' group too (utrace_<pid>); one is
 * stale when that pid is gone or is no longer a utrace (a reused pid):
 * its program file is not utrace, whatever name it runs by.
 * Dynamic events are removed with "-:GROUP/EVENT" appended, never with
 * O_TRUNC, which would remove everyone's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/proc_self.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/kernel/kernel_tracefs.h"

bool utrace_ktrace_owner_alive(int pid)
{
	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	return utrace_proc_is_utrace(pid) != 0;
}

/* Probes of groups utrace_<pid> in a dynamic event file whose owner is gone. */
static int kt_reset_probes(const char *root, const char *file,
			   void (*fn)(void *, const char *, const char *), void *arg)
{
	char path[PATH_MAX], *list, *line, *save;
	int removed = 0;

	list = utrace_tracefs_read(utrace_tracefs_path(path, root, "%s", file));

	for (line = list ? strtok_r(list, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = strchr(line, ':'), *end, del[512];

		if (!name || strncmp(name + 1, "utrace_", 7))
			continue;
		name++;
		end = name + strcspn(name, " \t");
		*end = 0;
		if (utrace_ktrace_owner_alive(atoi(name + 7)))
			continue;
		snprintf(del, sizeof(del), "-:%s", name);
		/* O_APPEND, never O_TRUNC: that would remove everyone's probes */
		if (!utrace_tracefs_write(path, del, O_APPEND)) {
			fn(arg, "probe", name);
			removed++;
		}
	}
	free(list);
	return removed;
}

int utrace_ktrace_reset(void (*fn)(void *arg, const char *what, const char *name), void *arg,
			struct utrace_error *err)
{
	const char *root = utrace_tracefs_root();
	char path[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (!root)
		return utrace_error_set(err, -ENOENT,
					"tracefs is not mounted and cannot be mounted "
					"(not root?)");
	d = opendir(utrace_tracefs_path(path, root, "instances"));
	if (!d)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		size_t plen = strlen(UTRACE_KTRACE_PREFIX);

		if (strncmp(de->d_name, UTRACE_KTRACE_PREFIX, plen) ||
		    utrace_ktrace_owner_alive(atoi(de->d_name + plen)))
			continue;
		int ret = utrace_tracefs_remove_instance(
		    utrace_tracefs_path(path, root, "instances/%s", de->d_name));

		if (ret < 0) {
			closedir(d);
			return utrace_error_set(err, ret, "cannot remove %s: %s", path,
						strerror(-ret));
		}
		fn(arg, "instance", de->d_name);
		removed++;
	}
	closedir(d);
	removed += kt_reset_probes(root, "dynamic_events", fn, arg);
	return removed;
}
