/* SPDX-License-Identifier: MIT */
/*
 * report_summary.c - what `utrace report` says after the trace: the
 * recording's warnings and notices, the events lost per thread, the
 * records that could not be read (report_summary.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/report/report_select.h"
#include "lib/report/report_summary.h"

#define LOST_LINES_MAX 20

/* A notice as the recorder saved it ("PID TID TEXT"), for the user.  An
 * attach (record -P) says which process and from when: its thread TID is
 * the one utrace started in it to load the runtime. */
static void print_notice(const char *cmd, const char *raw, FILE *f)
{
	int pid, tid, n = 0;
	char when[32] = "";

	if (sscanf(raw, "%d %d attached%n", &pid, &tid, &n) == 2 && n &&
	    (!raw[n] || sscanf(raw + n, " at %31s", when) == 1)) {
		fprintf(f,
			"utrace %s: notice: process %d was attached to (record -P)%s%s: what it "
			"did before is not in the trace; its thread %d is utrace's, which loaded "
			"the runtime\n",
			cmd, pid, *when ? " at " : "", when, tid);
		return;
	}
	fprintf(f, "utrace %s: notice: %s\n", cmd, raw);
}

void utrace_report_summary_write(const struct utrace_select_opts *so, struct utrace_dat *d,
				 const struct utrace_report_summary *sum, FILE *f)
{
	unsigned shown = 0, threads = 0;

	utrace_select_warn(so, d, sum->warnings, sum->warning, f);
	for (unsigned i = 0; i < utrace_dat_notice_count(d); i++)
		print_notice(so->cmd, utrace_dat_notice(d, i), f);

	for (unsigned i = 0; i < sum->nr_bufs; i++)
		threads += sum->buf_lost[i] != 0;
	if (sum->lost)
		fprintf(f, "utrace %s: %" PRIu64 " event%s lost in %u thread%s:\n", so->cmd,
			sum->lost, sum->lost == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
	for (unsigned i = 0; i < sum->nr_bufs; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);

		if (!sum->buf_lost[i])
			continue;
		if (shown++ == LOST_LINES_MAX) {
			fprintf(f, "  ... and %u more threads\n", threads - LOST_LINES_MAX);
			break;
		}
		fprintf(f, "  %s-%d: %" PRIu64 " events lost\n", bi->comm, bi->tid,
			sum->buf_lost[i]);
	}
	if (sum->lost_unknown)
		fprintf(f,
			"utrace %s: %" PRIu64 " time%s, an unknown number of events was lost "
			"(sub-buffers missing)\n",
			so->cmd, sum->lost_unknown, sum->lost_unknown == 1 ? "" : "s");
	utrace_select_unread(so->cmd, sum->warnings, sum->unread, sum->unread_unknown, f);
	utrace_select_own(so->cmd, sum->own, f);
}
