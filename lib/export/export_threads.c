/* SPDX-License-Identifier: MIT */
/*
 * export_threads.c - the processes and threads of a recording, named
 * (lib/export/export_threads.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_threads.h"

struct ptid {
	int32_t pid, tid;
	unsigned buf;
};

static int cmp_ptid(const void *a, const void *b)
{
	const struct ptid *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->buf < y->buf ? -1 : x->buf > y->buf;
}

/* The file name of the program a buffer's process ran, else its comm. */
static const char *image_name(struct utrace_dat *d, const struct utrace_dat_buffer_info *bi)
{
	for (unsigned i = 0; i < utrace_dat_image_count(d); i++) {
		const struct utrace_dat_image_info *im = utrace_dat_image_get(d, i);
		const char *slash;

		if (im->image != bi->image || !im->exe[0])
			continue;
		slash = strrchr(im->exe, '/');
		return slash && slash[1] ? slash + 1 : im->exe;
	}
	return bi->comm;
}

int utrace_export_tasks(struct utrace_dat *d, const struct utrace_report_filter *f,
			int (*fn)(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid,
				  const char *name),
			void *arg, struct utrace_error *err)
{
	unsigned nb = utrace_dat_buffer_count(d), n = 0;
	struct ptid *p = malloc((nb ? nb : 1) * sizeof(*p));
	int ret = 0;

	if (!p)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < nb; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, i);

		if (utrace_report_filter_thread(f, d, i))
			p[n++] = (struct ptid){bi->pid, bi->tid, i};
	}
	qsort(p, n, sizeof(*p), cmp_ptid);
	for (unsigned i = 0; i < n && !ret; i++) {
		int last_of_pid = i + 1 == n || p[i + 1].pid != p[i].pid;
		int last_of_tid = last_of_pid || p[i + 1].tid != p[i].tid;
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(d, p[i].buf);

		/* the last buffer of a thread or process: its name after exec */
		if (last_of_pid)
			ret = fn(arg, UTRACE_EXPORT_PROCESS, p[i].pid, p[i].tid, image_name(d, bi));
		if (last_of_tid && !ret)
			ret = fn(arg, UTRACE_EXPORT_THREAD, p[i].pid, p[i].tid, bi->comm);
	}
	free(p);
	return ret;
}
