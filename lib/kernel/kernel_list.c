/* SPDX-License-Identifier: MIT */
/*
 * kernel_list.c - the kernel's events as `utrace list -e` prints them
 * (trace-cmd list -e, perf list): tracefs's available_events in the
 * kernel's order, selected by the patterns of `utrace record -e`
 * (SYSTEM:EVENT, SYSTEM, EVENT, globs), with -F each event's format file
 * after a "system:" line, as the program's events print.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_select.h"
#include "lib/kernel/kernel_list.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/kernel/kernel_tracefs.h"

static bool selected(char *const *patterns, int n, const char *sys, const char *name)
{
	bool match = !n;

	for (int i = 0; !match && i < n; i++)
		match = utrace_event_spec_matches(patterns[i], sys, name);
	return match;
}

/* One "SYS:NAME" line of available_events, printed if selected: 1 if it
 * was, 0 if not, <0 on error. */
static int list_one(FILE *out, const char *root, char *line, char *const *patterns, int n,
		    bool format, struct utrace_error *err)
{
	char *colon = strchr(line, ':'), path[PATH_MAX], *text;

	if (!colon)
		return 0;
	*colon = '\0';
	if (!selected(patterns, n, line, colon + 1))
		return 0;
	if (!format) {
		fprintf(out, "%s:%s\n", line, colon + 1);
		return 1;
	}
	text = utrace_tracefs_read(
	    utrace_tracefs_path(path, root, "events/%s/%s/format", line, colon + 1));
	if (!text)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	fprintf(out, "system: %s\n%s", line, text);
	free(text);
	return 1;
}

int utrace_kernel_events_list(FILE *out, char *const *patterns, int npatterns, bool format,
			      unsigned *printed, struct utrace_error *err)
{
	const char *why = utrace_ktrace_unavailable(), *root;
	char path[PATH_MAX], *list, *line, *save = NULL;
	int ret = 0;

	*printed = 0;
	if (why)
		return utrace_error_set(err, -EACCES, "%s", why);
	root = utrace_tracefs_root();
	list = utrace_tracefs_read(utrace_tracefs_path(path, root, "available_events"));
	if (!list)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	for (line = strtok_r(list, "\n", &save); line && ret >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		ret = list_one(out, root, line, patterns, npatterns, format, err);
		*printed += ret > 0;
	}
	free(list);
	if (ret >= 0 && !*printed && npatterns)
		return utrace_error_set(err, -ENOENT, "no kernel event matches '%s'%s", patterns[0],
					npatterns > 1 ? " or the other patterns" : "");
	return ret < 0 ? ret : 0;
}
