/* SPDX-License-Identifier: MIT */
/*
 * test_live_snapshot.c - the snapshot file's text (lib/tracefs/
 * live_snapshot.c) as the kernel's s_show prints it: a snapshot with no
 * entry (none taken, or one taken of empty buffers) is the header and
 * the help, "Snapshot is allocated" once `echo 1` took one (ftracetest's
 * 00basic/snapshot.tc greps it); one with entries is printed as trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"
#include "tests/unit/check.h"

static int taken;     /* snapshots taken */
static bool with_one; /* the snapshot holds an entry */

static int fix_take(void *arg, struct utrace_error *err)
{
	return ++taken;
}

static int fix_print(void *arg, FILE *out, const char *tracer, uint32_t options, unsigned from,
		     unsigned *count, struct utrace_error *err)
{
	*count = (unsigned)taken;
	if ((unsigned)taken <= from)
		return 0;
	if (out) {
		fprintf(out, "# tracer: %s\n#\n# entries-in-buffer/entries-written: %d/%d   #P:2\n#\n",
			tracer, with_one, with_one);
		if (with_one)
			fputs("            prog-1  [000] .....     1.000000: tracing_mark_write: x\n", out);
	}
	return 1;
}

static void show(struct utrace_live *l, char *out, size_t size)
{
	struct live_handle h;
	FILE *f = fmemopen(out, size, "w");

	memset(out, 0, size);
	if (live_resolve(l, "/snapshot", &h) < 0 || !h.f)
		fputs("(no such file)", f);
	else
		h.f->show(l, &h, f);
	fclose(f);
}

static long put(struct utrace_live *l, const char *text)
{
	struct live_handle h;

	if (live_resolve(l, "/snapshot", &h) < 0 || !h.f)
		return -ENOENT;
	return h.f->write(l, &h, text, strlen(text));
}

static const char help[] =
    "# Snapshot commands:\n"
    "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
    "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
    "#                      Takes a snapshot of the main buffer.\n"
    "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
    "#                      (Doesn't have to be '2' works with any number that\n"
    "#                       is not a '0' or '1')\n";

int main(void)
{
	struct utrace_live *l = calloc(1, sizeof(*l));
	char out[2048], want[2048];

	if (!l)
		return 1;
	l->ops.take_snapshot = fix_take;
	l->ops.print_snapshot = fix_print;
	show(l, out, sizeof(out));
	snprintf(want, sizeof(want), "# tracer: nop\n#\n#\n# * Snapshot is freed *\n#\n%s", help);
	check(!strcmp(out, want), "none taken: the kernel's header and help, freed");
	check(put(l, "1\n") == 2, "echo 1 > snapshot takes one");
	show(l, out, sizeof(out));
	snprintf(want, sizeof(want), "# tracer: nop\n#\n#\n# * Snapshot is allocated *\n#\n%s", help);
	check(!strcmp(out, want), "one of no entry: the help, allocated (as s_show's trace_empty)");
	with_one = true;
	check(put(l, "1\n") == 2, "echo 1 again");
	show(l, out, sizeof(out));
	check(strstr(out, "tracing_mark_write: x") && !strstr(out, "Snapshot commands"),
	      "one with an entry: printed as trace, no help");
	free(l);
	return check_done();
}
