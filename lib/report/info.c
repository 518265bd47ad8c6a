/* SPDX-License-Identifier: MIT */
/*
 * info.c - `utrace info` (info.h).  Everything here comes from the index
 * the reader builds when it opens a file (META, IMAGE, BUFFER, STATS,
 * EVENT_FORMAT, HIST, NOTICE records): no pass over the events, so a
 * multi-gigabyte trace answers at once, as uftrace info reads only its
 * info file.
 *
 *   # system information          META: how and where it was recorded
 *   # process information         IMAGE: the processes, their programs
 *   # thread information          BUFFER + STATS: per thread, name, losses
 *   # events and tables           EVENT_FORMAT, HIST, snapshots, notices
 *   # file                        size, finished or cut short, warnings
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/report/info.h"

/* "# key<pad> : value" as uftrace info aligns it */
#define INFO_KEY_WIDTH 20

static void line(FILE *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(FILE *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "# %-*s: ", INFO_KEY_WIDTH, key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void title(FILE *f, const char *text, int first)
{
	if (!first)
		fputs("#\n", f);
	fprintf(f, "# %s\n# ", text);
	for (size_t i = strlen(text); i; i--)
		fputc('=', f);
	fputc('\n', f);
}

/* A META value, or "-" when the recorder did not write it. */
static const char *meta(const struct utrace_dat *d, const char *key)
{
	const char *v = utrace_dat_meta(d, key);

	return v && *v ? v : "-";
}

static const char *buffer_mode(const struct utrace_dat *d)
{
	const char *ow = utrace_dat_meta(d, "overwrite"), *nl = utrace_dat_meta(d, "no_loss");

	if (ow && !strcmp(ow, "1"))
		return "overwrite (flight recorder)";
	if (nl && !strcmp(nl, "1"))
		return "no-loss (a full buffer waits)";
	return nl ? "drop (a full buffer drops)" : "-";
}

static void system_info(const struct utrace_dat *d, FILE *f)
{
	const char *depth = utrace_dat_meta(d, "max_graph_depth");
	const char *thresh = utrace_dat_meta(d, "thresh_us");

	title(f, "system information", 1);
	line(f, "recorded on", "%s", meta(d, "date"));
	line(f, "cmdline", "%s", meta(d, "command"));
	line(f, "hostname", "%s", meta(d, "hostname"));
	line(f, "kernel version", "%s", meta(d, "kernel"));
	line(f, "number of cpus", "%u", utrace_dat_nr_cpus(d));
	line(f, "tracer", "%s", meta(d, "tracer"));
	line(f, "clock", "%s (kernel events: %s)", meta(d, "clock"),
	     utrace_dat_kernel_clock(d) ? utrace_dat_kernel_clock(d) : "none");
	line(f, "buffer size", "%s KB a thread", meta(d, "buffer_kb"));
	line(f, "buffer mode", "%s", buffer_mode(d));
	line(f, "max graph depth", "%s", !depth || !strcmp(depth, "0") ? "unlimited" : depth);
	line(f, "tracing thresh", "%s", !thresh || !strcmp(thresh, "0") ? "off" : thresh);
}

static void process_info(const struct utrace_dat *d, FILE *f)
{
	unsigned n = utrace_dat_image_count(d);

	title(f, "process information", 0);
	line(f, "number of images", "%u", n);
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_image_info *im = utrace_dat_image_get(d, i);
		const char *comm = utrace_dat_comm(d, im->pid);

		line(f, "exe image", "%d(%s) %s, parent %d", (int)im->pid, comm ? comm : "<...>",
		     *im->exe ? im->exe : "?", (int)im->ppid);
	}
}

/* Whether buffer i is not its thread's first: the thread made its buffer
 * again (buffer_subbuf_size_kb: runtime/ring_buffer.c rb_resize), in the
 * same process image. */
static bool buffer_again(const struct utrace_dat *d, unsigned i)
{
	const struct utrace_dat_buffer_info *b = utrace_dat_buffer_get(d, i);

	for (unsigned j = 0; j < i; j++) {
		const struct utrace_dat_buffer_info *o = utrace_dat_buffer_get(d, j);

		if (!o->nest && !o->kernel && o->image == b->image && o->tid == b->tid)
			return true;
	}
	return false;
}

/* The threads' buffers: name, pid/tid, records written and lost; a
 * thread that made its buffer again has a line for each. */
static void thread_info(const struct utrace_dat *d, FILE *f)
{
	unsigned n = utrace_dat_buffer_count(d), threads = 0, kernel = 0;
	uint64_t written = 0, lost = 0, overrun = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_buffer_info *b = utrace_dat_buffer_get(d, i);

		if (b->nest)
			continue;
		if (b->kernel)
			kernel++;
		else
			threads += !buffer_again(d, i);
		written += b->written;
		lost += b->lost;
		overrun += b->overrun;
	}
	title(f, "thread information", 0);
	line(f, "number of threads", "%u traced, %u named by kernel events only", threads,
	     kernel);
	line(f, "records written", "%" PRIu64, written);
	line(f, "records lost", "%" PRIu64 " (overwritten: %" PRIu64 ")", lost, overrun);
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_dat_buffer_info *b = utrace_dat_buffer_get(d, i);

		if (b->nest || b->kernel)
			continue;
		line(f, "thread", "%d/%d(%s) written %" PRIu64 ", lost %" PRIu64 "%s%s", (int)b->pid,
		     (int)b->tid, b->comm, b->written, b->lost,
		     b->has_stats ? "" : " (no statistics: cut short)",
		     buffer_again(d, i) ? " (a buffer made again)" : "");
	}
}

/* "name: NAME" is the first line of a format's text */
static void event_info(const struct utrace_dat *d, FILE *f)
{
	unsigned n = utrace_dat_event_format_count(d), nh = utrace_dat_hist_count(d);

	title(f, "events and tables", 0);
	line(f, "event formats", "%u", n);
	for (unsigned i = 0; i < n; i++) {
		const char *sys = NULL, *text = utrace_dat_event_format(d, i, &(int){0}, &sys);
		const char *name = text && !strncmp(text, "name: ", 6) ? text + 6 : "?";

		line(f, "event", "%s:%.*s", sys ? sys : "?", (int)strcspn(name, "\n"), name);
	}
	line(f, "histograms", "%u", nh);
	for (unsigned i = 0; i < nh; i++) {
		const struct utrace_dat_hist_info *h = utrace_dat_hist_get(d, i);

		line(f, "hist", "%s:%s %s (hits %" PRIu64 ", dropped %" PRIu64 ")", h->system,
		     h->event, h->trigger, h->hits, h->drops);
	}
	line(f, "snapshots", "%u", utrace_dat_snapshot_count(d));
	line(f, "notices", "%u", utrace_dat_notice_count(d));
	for (unsigned i = 0; i < utrace_dat_notice_count(d); i++)
		line(f, "notice", "%s", utrace_dat_notice(d, i));
}

static void file_info(const struct utrace_dat *d, FILE *f)
{
	struct stat st;

	title(f, "file", 0);
	line(f, "path", "%s", utrace_dat_path(d));
	if (stat(utrace_dat_path(d), &st) == 0)
		line(f, "size", "%lld bytes", (long long)st.st_size);
	line(f, "finished", "%s",
	     utrace_dat_finished(d) ? "yes (END record)" : "no: the recording was cut short");
	line(f, "warnings", "%u", utrace_dat_warning_count(d));
	for (unsigned i = 0; utrace_dat_warning(d, i); i++)
		line(f, "warning", "%s", utrace_dat_warning(d, i));
}

int utrace_info_print(struct utrace_dat *d, FILE *f, struct utrace_error *err)
{
	system_info(d, f);
	process_info(d, f);
	thread_info(d, f);
	event_info(d, f);
	file_info(d, f);
	if (fflush(f) == EOF || ferror(f))
		return utrace_error_set(err, -EIO, "write error: %s", strerror(errno));
	return 0;
}
