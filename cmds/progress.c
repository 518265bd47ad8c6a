/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the progress line of a long reading (report, graph, dump,
 * convert of a multi-GB trace): "utrace report: reading FILE: 0.8 GB of
 * 4.1 GB (19%)", rewritten in place twice a second and erased at the
 * end.
 *
 * Design: as record's progress line, it goes where it cannot mix with the
 * output: on the terminal that is our standard error, when the output
 * goes to a file (redirected, or -o FILE) and we are the terminal's
 * foreground job.  Never when the output is the terminal or the pager
 * (which owns the screen), nor a pipe (whose reader may write to the
 * terminal), nor when standard error is not a terminal: a test's or a
 * log's text never holds it.  A thread reads the reader's count of bytes
 * (utrace_dat_bytes_read, counted where the file is read), so the reading
 * itself does no work for it.  The first line is written at once, so that
 * a reading never goes unseen however short.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/tracefile/dat_reader.h"

#define PROGRESS_NS 500000000L

struct utrace_progress {
	const char *cmd;
	const struct utrace_dat *d;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

/* Whether the output (out_path, a -o FILE; NULL or "-": standard output)
 * leaves the terminal of standard error free for a progress line. */
static bool progress_wanted(const char *out_path)
{
	struct stat st;

	if (!isatty(STDERR_FILENO) || tcgetpgrp(STDERR_FILENO) != getpgrp())
		return false;
	if (out_path && strcmp(out_path, "-"))
		return stat(out_path, &st) < 0 || !S_ISCHR(st.st_mode);
	if (fstat(STDOUT_FILENO, &st) < 0 || isatty(STDOUT_FILENO))
		return false;
	return S_ISREG(st.st_mode) || S_ISCHR(st.st_mode); /* a file, /dev/null */
}

/* n bytes in the unit of total (kB, MB, GB: powers of 1000, as record's) */
static void progress_size(char *buf, size_t len, uint64_t n, uint64_t total)
{
	static const char *const unit[] = {"kB", "MB", "GB", "TB"};
	double div = 1e3;
	unsigned u = 0;

	while (u + 1 < sizeof(unit) / sizeof(unit[0]) && total >= div * 1e3) {
		div *= 1e3;
		u++;
	}
	snprintf(buf, len, "%.1f %s", n / div, unit[u]);
}

static void progress_line(const struct utrace_progress *p)
{
	uint64_t size = utrace_dat_file_size(p->d), done = utrace_dat_bytes_read(p->d);
	char a[32], b[32];

	if (done > size) /* a second pass (the function tracer's count) */
		done = size;
	progress_size(a, sizeof(a), done, size);
	progress_size(b, sizeof(b), size, size);
	fprintf(stderr, "\r\033[Kutrace %s: reading %s: %s of %s (%u%%)", p->cmd,
		utrace_dat_path(p->d), a, b, size ? (unsigned)(done * 100 / size) : 100);
	fflush(stderr);
}

static void *progress_main(void *arg)
{
	struct utrace_progress *p = arg;
	struct timespec at;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_nsec += PROGRESS_NS;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &at) != ETIMEDOUT)
			;
		if (!p->stop)
			progress_line(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct utrace_progress *utrace_progress_start(const char *cmd, const struct utrace_dat *d,
					      const char *out_path)
{
	struct utrace_progress *p;

	if (!progress_wanted(out_path) || !(p = calloc(1, sizeof(*p))))
		return NULL;
	*p = (struct utrace_progress){.cmd = cmd, .d = d};
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	progress_line(p);
	if (pthread_create(&p->thread, NULL, progress_main, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p);
		fputs("\r\033[K", stderr);
		return NULL; /* no more lines: the reading goes on as it would */
	}
	return p;
}

void utrace_progress_stop(struct utrace_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
