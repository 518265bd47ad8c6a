/* SPDX-License-Identifier: MIT */
/*
 * report_stat.c - `utrace report --stat`: the statistics of each traced
 * thread's ring buffer (records written, lost, pages, overruns), as the
 * recorder saved them, and whether a recording has more than one thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_text.h"

static void stat_value(FILE *out, int known, uint64_t v, int width)
{
	if (known)
		fprintf(out, " %*" PRIu64, width, v);
	else
		fprintf(out, " %*s", width, "-");
}

bool utrace_report_many_threads(const struct utrace_dat *d, const struct utrace_report_filter *f)
{
	unsigned nb = utrace_dat_buffer_count(d);
	bool seen = false;
	int32_t first = 0;

	for (unsigned i = 0; i < nb; i++) {
		const struct utrace_dat_buffer_info *b = utrace_dat_buffer_get(d, i);

		if (!b || b->kernel || b->nest || !utrace_report_filter_thread(f, d, i))
			continue;
		if (seen && b->tid != first)
			return true;
		seen = true;
		first = b->tid;
	}
	return false;
}

int utrace_report_print_stat(struct utrace_dat *d, FILE *out,
			     const struct utrace_report_filter *filter, struct utrace_error *err)
{
	uint64_t written = 0, lost = 0, pages = 0, overrun = 0;
	unsigned n = utrace_dat_buffer_count(d), shown = 0, unknown = 0, nested = 0;

	fprintf(out, "# buffer statistics: one buffer per traced thread\n");
	fprintf(out, "# %22s %8s %12s %12s %8s %8s\n", "COMM-TID", "PID", "RECORDS", "LOST", "PAGES",
		"OVERRUN");
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);
		char name[40];

		if (!utrace_report_filter_thread(filter, d, i))
			continue;
		if (bi->kernel)
			continue; /* a task only kernel events name: it has no ring buffer */
		if (bi->nest) {
			nested++;
			snprintf(name, sizeof(name), "%s-%d/%u", bi->comm, bi->tid, bi->nest);
		} else {
			shown++;
			snprintf(name, sizeof(name), "%s-%d", bi->comm, bi->tid);
		}
		fprintf(out, "  %22s %8d", name, bi->pid);
		stat_value(out, bi->has_stats, bi->written, 12);
		stat_value(out, bi->has_stats, bi->lost, 12);
		/* pages saved: the recorder's count, or the PAGE records found */
		stat_value(out, 1, bi->has_stats ? bi->pages : bi->nr_pages, 8);
		stat_value(out, bi->has_stats, bi->overrun, 8);
		utrace_out_putc(out, '\n');
		if (!bi->has_stats)
			unknown++;
		written += bi->written;
		lost += bi->lost;
		pages += bi->has_stats ? bi->pages : bi->nr_pages;
		overrun += bi->overrun;
	}
	fprintf(out,
		"# total: %u thread%s, %" PRIu64 " records, %" PRIu64 " lost, %" PRIu64
		" page%s, %" PRIu64 " overrun\n",
		shown, shown == 1 ? "" : "s", written, lost, pages, pages == 1 ? "" : "s", overrun);
	if (nested)
		fprintf(out,
			"# COMM-TID/N: what signal handlers recorded while they interrupted the "
			"tracer (nested context N)\n");
	if (unknown)
		fprintf(out,
			"# %u buffer%s without statistics ('-': the recording did not finish)\n",
			unknown, unknown == 1 ? "" : "s");
	if (fflush(out) == EOF || ferror(out))
		return utrace_error_set(err, -EIO, "%s: writing the statistics: %s",
					utrace_dat_path(d), strerror(errno));
	return 0;
}
