/* SPDX-License-Identifier: MIT */
/*
 * recorder_kmarker.c - a trace_marker write in a live recording whose
 * kernel records go through the merge (kernel events with -e): the
 * kernel's ftrace:print entry of the writer, put on the kernel's timeline
 * (recorder_kmerge.c rec_kmerge_put_marker), where its triggers run at
 * once with the kernel events' (an onmatch(sched.sched_waking) reads the
 * $ts0 of the writer's own wakeup, as in the kernel).  Saved with the
 * kernel's records, read back as the writer's PRINT (lib/tracefile/
 * dat_kernel.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"

/*
 * The kernel's print entry of a trace_marker write (its format, lib/events/
 * ftrace_formats.c): common_type ftrace:print's kernel id, no flags,
 * common_pid the writer, ip 0 (no kernel function wrote it), buf the text
 * and its NUL (without the newline the kernel's adds: the record's line
 * has its own, as the runtime's PRINT), cut to what a page holds, as the
 * kernel cuts a marker (the count taken is returned: the write is
 * short).  On the CPU the recorder serves the write on; only reader's
 * triggers of ftrace:print run on it.
 */
int rec_kmerge_marker(struct utrace_recorder *r, unsigned reader, int32_t pid, const char *text,
		      size_t len, struct utrace_error *err)
{
	uint32_t max = rec_kmerge_marker_max(r), n;
	uint16_t type = (uint16_t)rec_kmerge_print_id(r);
	int cpu = sched_getcpu();
	uint8_t *rec;
	int ret;

	if (len > max - 17)
		len = max - 17;
	n = (uint32_t)(16 + len + 1);
	if (!(rec = calloc(1, n)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
	memcpy(rec + 16, text, len);
	ret = rec_kmerge_put_marker(r, reader, cpu < 0 ? 0 : (uint32_t)cpu, rec, n, err);
	free(rec);
	return ret < 0 ? ret : (int)len;
}
