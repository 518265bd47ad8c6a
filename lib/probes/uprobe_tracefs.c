/* SPDX-License-Identifier: MIT */
/*
 * uprobe_tracefs.c - probes added to and removed from tracefs
 * uprobe_events, and the kernel's reasons when it refuses one.
 *
 * Design: uprobe_events is shared by everyone on the machine, so it is
 * only ever appended to (O_APPEND): "p:..." adds, "-:GRP/EVENT" removes
 * one event with all its locations; opening it with O_TRUNC would remove
 * every probe of every user.  When the kernel refuses a line, write()
 * says only EINVAL (or ENOENT, EEXIST); its words are in tracefs error_log,
 * three lines an entry:
 *
 *   [  123.456] trace_uprobe: error: Invalid register name
 *     Command: p:utrace/f /bin/x:0x1139 a=%foo
 *                                         ^
 *
 * The log is global and keeps a few entries from anyone, so the entry
 * taken is the last one whose command is the line written; its caret
 * gives the column.
 *
 * Stale probes (`utrace reset`) are those of a group starting "utrace",
 * except a group utrace_<pid> whose utrace is still running (its program
 * file is utrace, whatever name it runs by), and except
 * events enabled somewhere, which the kernel refuses to remove (EBUSY).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kernel_trace.h"
#include "lib/kernel/kernel_tracefs.h"
#include "lib/probes/uprobe_internal.h"

static const char *root_dir(const char *dir, struct utrace_error *err)
{
	const char *root = dir ? dir : utrace_tracefs_root();

	if (!root)
		utrace_error_set(err, -ENOENT,
				 "tracefs is not mounted and cannot be mounted (not root?)");
	return root;
}

/* The last error_log entry for line: its message and caret column. */
static bool find_log_entry(const char *root, const char *line, char *msg, size_t size, int *column)
{
	char path[PATH_MAX], *log, *p, *next;
	bool found = false;

	log = utrace_tracefs_read(utrace_tracefs_path(path, root, "error_log"));
	for (p = log; p && *p; p = next) {
		char *eol = strchr(p, '\n'), *cmd, *cmd_eol, *caret, *text, *m;

		next = eol ? eol + 1 : p + strlen(p);
		if (*p != '[' || !eol)
			continue;
		cmd = eol + 1;
		cmd_eol = strchr(cmd, '\n');
		text = strstr(cmd, "Command: ");
		if (!cmd_eol || !text || text > cmd_eol ||
		    (size_t)(cmd_eol - text - 9) != strlen(line) ||
		    strncmp(text + 9, line, strlen(line)))
			continue;
		caret = cmd_eol + 1;
		next = strchr(caret, '\n') ? strchr(caret, '\n') + 1 : caret + strlen(caret);
		/* "[ts] trace_uprobe: error: MESSAGE" */
		m = strstr(p, "error: ");
		m = m && m < eol ? m + 7 : strchr(p, ']') + 1;
		snprintf(msg, size, "%.*s", (int)(eol - m), m);
		*column = strchr(caret, '^') && strchr(caret, '^') < next
			      ? (int)(strchr(caret, '^') - caret) - (int)(text + 9 - cmd) + 1
			      : 0;
		found = true;
	}
	free(log);
	return found;
}

static int refused(const char *root, const char *line, int code, struct utrace_error *err)
{
	char msg[256];
	int column = 0;

	if (!find_log_entry(root, line, msg, sizeof(msg), &column))
		return utrace_error_set(err, code, "uprobe_events: %s: '%s'", strerror(-code),
					line);
	utrace_error_set(err, code, "uprobe_events: %s at column %d of '%s'", msg, column, line);
	if (err)
		err->column = column > 0 ? column : 1;
	return code;
}

int utrace_uprobe_register(const char *tracefs_dir, const struct utrace_uprobe *p,
			   struct utrace_error *err)
{
	const char *root = root_dir(tracefs_dir, err);
	char path[PATH_MAX], *line;
	int len, ret;

	if (!root)
		return -ENOENT;
	len = utrace_uprobe_kernel_line(p, NULL, 0);
	line = malloc((size_t)len + 1);
	if (!line)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	utrace_uprobe_kernel_line(p, line, (size_t)len + 1);
	ret =
	    utrace_tracefs_write(utrace_tracefs_path(path, root, "uprobe_events"), line, O_APPEND);
	if (ret == -ENOENT && !utrace_tracefs_is_dir(root))
		ret = utrace_error_set(err, ret, "%s: not a tracefs directory", root);
	else if (ret == -EACCES || ret == -EPERM)
		ret = utrace_error_set(err, ret,
				       "%s: %s: the kernel's uprobes need root, as kernel "
				       "events do (run as root)",
				       path, strerror(-ret));
	else if (ret < 0)
		ret = refused(root, line, ret, err);
	free(line);
	return ret;
}

/* Appends "-:GROUP/EVENT". */
static int remove_event(const char *root, const char *name)
{
	char path[PATH_MAX], line[2 * UTRACE_UPROBE_NAME_MAX + 8];

	snprintf(line, sizeof(line), "-:%s", name);
	return utrace_tracefs_write(utrace_tracefs_path(path, root, "uprobe_events"), line,
				    O_APPEND);
}

int utrace_uprobe_unregister(const char *tracefs_dir, const struct utrace_uprobe *p,
			     struct utrace_error *err)
{
	const char *root = root_dir(tracefs_dir, err);
	char name[2 * UTRACE_UPROBE_NAME_MAX + 2];
	int ret;

	if (!root)
		return -ENOENT;
	snprintf(name, sizeof(name), "%s/%s", p->group, p->event);
	ret = remove_event(root, name);
	if (ret == -EBUSY)
		return utrace_error_set(
		    err, ret, "uprobe_events: %s is in use: disable it in every instance first",
		    name);
	if (ret == -ENOENT)
		return utrace_error_set(err, ret, "uprobe_events: no probe %s", name);
	if (ret < 0)
		return utrace_error_set(err, ret, "uprobe_events: cannot remove %s: %s", name,
					strerror(-ret));
	return 0;
}

/* A group utrace_<pid> whose utrace still runs (by whatever name: utrace
 * bt runs as "bpftrace"): not stale. */
static bool owner_alive(const char *group)
{
	char *end;
	long pid;

	if (strncmp(group, "utrace_", 7) || !(group[7] >= '0' && group[7] <= '9'))
		return false;
	pid = strtol(group + 7, &end, 10);
	if (*end != '/' || pid <= 0 || pid > INT_MAX)
		return false;
	return utrace_ktrace_owner_alive((int)pid);
}

int utrace_uprobe_remove_stale(const char *tracefs_dir, struct utrace_error *err)
{
	const char *root = root_dir(tracefs_dir, err);
	char path[PATH_MAX], *list, *line, *save = NULL;
	int removed = 0, ret = 0;

	if (!root)
		return -ENOENT;
	list = utrace_tracefs_read(utrace_tracefs_path(path, root, "uprobe_events"));
	if (!list)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	for (line = strtok_r(list, "\n", &save); line && ret >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "p:GROUP/EVENT /path:0x... args" */
		char *name = line + 2;
		int r;

		if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':' ||
		    strncmp(name, "utrace", 6) || owner_alive(name))
			continue;
		name[strcspn(name, " \t")] = 0;
		r = remove_event(root, name);
		if (r == 0)
			removed++;
		/* Already gone (one line per location) or in use: leave it. */
		else if (r != -ENOENT && r != -EBUSY)
			ret = utrace_error_set(err, r, "uprobe_events: cannot remove %s: %s", name,
					       strerror(-r));
	}
	free(list);
	return ret < 0 ? ret : removed;
}
