/* SPDX-License-Identifier: MIT */
/*
 * report_snapshot.c - the snapshots of a recording, each printed as the
 * kernel prints tracefs `snapshot`: the same layout as the trace (the
 * recording's tracer: function_graph, function or nop), over the records
 * the snapshot holds, which end at the moment its trigger fired
 * (utrace_dat_open_snapshot, lib/tracefile/dat_snap.c).
 *
 * The kernel has one snapshot buffer, which each firing replaces; a
 * recording keeps every snapshot taken, so when there are several, a
 * line before each says which it is (the kernel prints none, having one):
 *
 *   ##### snapshot 2 of 3: snap:snap_tick at 14192.467119, tid 13653 #####
 */
#include <inttypes.h>
#include <string.h>

#include "lib/report/report_snapshot.h"

/* "SYS:NAME" of event id, from its saved format ("name: NAME" first). */
static void event_name(const struct utrace_dat *d, int id, char *buf, size_t size)
{
	const char *sys = NULL, *fmt = id >= 0 ? utrace_dat_event_format_by_id(d, id, &sys) : NULL;

	if (id == UTRACE_SNAP_TRACEFS)
		snprintf(buf, size, "echo 1 > snapshot");
	else if (id < 0)
		snprintf(buf, size, "a hist action");
	else if (fmt && !strncmp(fmt, "name: ", 6))
		snprintf(buf, size, "%s:%.*s", sys ? sys : "?", (int)strcspn(fmt + 6, "\n"),
			 fmt + 6);
	else
		snprintf(buf, size, "event %d", id);
}

static void print_header(FILE *out, struct utrace_dat *d, unsigned i, unsigned n,
			 const struct utrace_dat_snapshot *s)
{
	uint64_t ns = utrace_dat_tsc_to_ns(d, s->tsc);
	char name[160];

	event_name(d, s->event, name, sizeof(name));
	fprintf(out, "##### snapshot %u of %u: %s at %" PRIu64 ".%06" PRIu64 ", tid %d #####\n",
		i + 1, n, name, ns / 1000000000, ns / 1000 % 1000000, s->tid);
}

int utrace_report_print_snapshots(struct utrace_dat *d, FILE *out,
				  const struct utrace_report_opts *opts, struct utrace_error *err)
{
	unsigned n = utrace_dat_snapshot_count(d);

	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_snapshot *s = utrace_dat_snapshot_get(d, i);
		struct utrace_dat *sd;
		int ret;

		if (n > 1)
			print_header(out, d, i, n, s);
		ret = utrace_dat_open_snapshot(utrace_dat_path(d), s->id, &sd, err);
		if (ret < 0)
			return ret;
		ret = utrace_report_print(sd, out, opts, NULL, err);
		utrace_dat_close(sd);
		if (ret < 0)
			return ret;
	}
	return (int)n;
}
