/* SPDX-License-Identifier: MIT */
/*
 * live_snapshot.c - the live tracefs's `snapshot`, with the kernel's
 * rules (kernel/trace/trace.c tracing_snapshot_write, print_snapshot_help):
 *
 *   echo 1 > snapshot   takes one: every thread's buffer as it is now
 *                       (the snapshot trigger's copy, lib/record/
 *                       recorder_snap.c), "allocating" the buffer
 *   echo 0 > snapshot   frees it: nothing to show
 *   echo 2 > snapshot   (any other number) clears it if allocated
 *   cat snapshot        the newest snapshot taken since the last clear
 *                       (by a write or by a snapshot trigger), printed as
 *                       trace; none: the kernel's header and its help
 *
 * A snapshot stays in the recording when cleared (utrace report
 * --snapshot shows them all); the file only stops showing it.  The caller
 * holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"

static void snapshot_help(struct utrace_live *l, FILE *out)
{
	fprintf(out, "# tracer: %s\n#\n", live_current_tracer(l));
	fprintf(out, "#\n# * Snapshot is %s *\n#\n", l->snap_allocated ? "allocated" : "freed");
	fputs("# Snapshot commands:\n"
	      "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	      "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	      "#                      Takes a snapshot of the main buffer.\n"
	      "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	      "#                      (Doesn't have to be '2' works with any number that\n"
	      "#                       is not a '0' or '1')\n",
	      out);
}

/* Whether text (len bytes) has a line that is not a '#' comment. */
static bool has_entries(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (*p != '#' && *p != '\n')
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/* The snapshot as trace prints it; an empty one (none taken, or one of
 * no entries) is the kernel's header and help (s_show: trace_empty). */
int live_show_snapshot(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};
	unsigned count = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret;

	if (!mem)
		return -ENOMEM;
	ret = l->ops.print_snapshot(l->ops.arg, mem, live_current_tracer(l), l->options,
				    l->snap_from, &count, &err);
	fclose(mem);
	if (ret > 0 && has_entries(text, len))
		fwrite(text, 1, len, out);
	else if (ret >= 0)
		snapshot_help(l, out);
	free(text);
	return ret < 0 ? ret : 0;
}

long live_write_snapshot(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	unsigned long long v;
	int ret;

	if (live_number(buf, n, &v) < 0)
		return -EINVAL;
	if (v == 1) {
		if ((ret = l->ops.take_snapshot(l->ops.arg, &err)) < 0)
			return ret;
		l->snap_allocated = true;
		l->snap_from = (unsigned)ret - 1; /* show it, the newest */
		return (long)n;
	}
	if (v == 0 || l->snap_allocated) { /* freed, or cleared */
		unsigned count = 0;

		if ((ret = l->ops.print_snapshot(l->ops.arg, NULL, NULL, 0, 0, &count, &err)) < 0)
			return ret;
		l->snap_from = count;
	}
	if (v == 0)
		l->snap_allocated = false;
	return (long)n;
}
