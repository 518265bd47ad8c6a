/* SPDX-License-Identifier: MIT */
/*
 * tracedat.c - converts a utrace.dat into a trace-cmd trace.dat
 * (lib/export/tracedat.h); the file's header is lib/export/tracedat_formats.c's.
 *
 * Design.  The parts: tracedat_records.c turns each event into ftrace's
 * records, tracedat_pages.c packs them into each CPU's pages,
 * tracedat_syms.c lists the kallsyms, tracedat_formats.c builds the
 * header; this file runs the passes and writes the file.
 *
 * The file lists every CPU's offset and size before the pages, and the
 * kallsyms before that, so the input is read twice: the first pass packs
 * the pages only to count them, per CPU, and collects the functions; the
 * header is then written, and the second pass packs the same pages again
 * and writes each with pwrite() where its CPU's stream lies.  Memory holds
 * one page per CPU and the symbols, never the events.  The packing depends
 * only on the events, so both passes agree; a mismatch (the input changed
 * in between) is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/private_file.h"
#include "lib/export/tracedat_internal.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct utrace_tracedat_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One pass over the events; the pages of every CPU end finished. */
static int run_pass(struct conv *c)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int ret;

	ret = utrace_dat_iter_open(c->d, &it, c->err);
	if (ret < 0)
		return ret;
	while ((ret = utrace_dat_iter_next(it, &ev, c->err)) > 0)
		if ((ret = tracedat_on_event(c, &ev)) < 0)
			break;
	if (ret == 0 && c->leaf.set)
		ret = tracedat_put_leaf_exit(c, false, 0);
	for (uint32_t i = 0; ret == 0 && i < c->nr_s; i++)
		if (c->s[i] && c->s[i]->used)
			ret = tracedat_flush_page(c, c->s[i]);
	if (ret == 0 && c->pass == 2) {
		c->st->warnings = utrace_dat_iter_warnings(it);
		c->st->unread = utrace_dat_iter_unread(it, &c->st->unread_unknown);
		if (c->st->warnings)
			snprintf(c->st->warning, sizeof(c->st->warning), "%s",
				 utrace_dat_iter_warning(it));
	}
	utrace_dat_iter_close(it);
	return ret;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes the header and places each CPU's stream after it. */
static int write_header(struct conv *c, uint32_t nr_cpus)
{
	struct utrace_tracedat_layout l;
	struct utrace_tracedat_task *tasks;
	size_t nr_tasks = 0, len = 0;
	uint64_t *pages, off;
	char *hdr = NULL;
	int ret;

	tasks = utrace_tracedat_tasks(c->d, &nr_tasks);
	pages = calloc(nr_cpus, sizeof(*pages));
	if (!tasks || !pages) {
		free(tasks);
		free(pages);
		return tracedat_nomem(c);
	}
	for (uint32_t i = 0; i < c->nr_s; i++)
		pages[i] = c->s[i] ? c->s[i]->pages : 0;
	l = (struct utrace_tracedat_layout){.syms = c->syms,
					    .nr_syms = c->nr_syms,
					    .end = c->max_addr + 1,
					    .tasks = tasks,
					    .nr_tasks = nr_tasks,
					    .nr_cpus = nr_cpus,
					    .cpu_pages = pages,
					    .clock = "mono",
					    .formats = c->formats,
					    .nr_formats = c->nr_formats};
	ret = utrace_tracedat_header(&l, &hdr, &len, c->err);
	if (ret < 0)
		tracedat_nomem(c);
	else if ((ret = write_all(c->fd, hdr, len)) < 0)
		utrace_error_set(c->err, ret, "%s: cannot write: %s", c->path, strerror(-ret));
	c->st->nr_tasks = (unsigned)nr_tasks;
	off = len;
	for (uint32_t i = 0; i < c->nr_s; i++) {
		struct stream *s = c->s[i];

		if (!s)
			continue;
		s->planned = s->pages;
		s->file_off = off;
		off += s->pages * PAGE;
		s->pages = 0;
		s->last_ts = 0;
		s->pend = s->pend_unknown = false;
		s->pend_lost = 0;
	}
	memset(&c->now, 0, sizeof(c->now));
	memset(&c->last, 0, sizeof(c->last));
	c->st->file_bytes = off;
	free(hdr);
	free(tasks);
	free(pages);
	return ret;
}

/* The recording's event formats, but ftrace's (its ids are the file's
 * own function and print events). */
static int list_formats(struct conv *c)
{
	unsigned n = utrace_dat_event_format_count(c->d);

	c->formats = calloc(n + 1, sizeof(*c->formats));
	if (!c->formats)
		return tracedat_nomem(c);
	for (unsigned i = 0; i < n; i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(c->d, i, &id, &sys);
		if (!text || !sys || !strcmp(sys, "ftrace") || id < 0 || id > UINT16_MAX)
			continue;
		c->formats[c->nr_formats++] =
		    (struct utrace_tracedat_format){.system = sys, .text = text, .id = id};
	}
	return 0;
}

/* The first pass, then the symbol list sorted. */
static int lay_out(struct conv *c)
{
	int ret;

	ret = list_formats(c);
	if (ret < 0)
		return ret;
	c->pass = 1;
	ret = run_pass(c);
	if (ret < 0)
		return ret;
	qsort(c->syms, c->nr_syms, sizeof(*c->syms), sym_cmp);
	c->st->nr_syms = (unsigned)c->nr_syms + 1;
	return 0;
}

static void conv_free(struct conv *c)
{
	for (uint32_t i = 0; i < c->nr_s; i++)
		free(c->s[i]);
	free(c->s);
	for (size_t i = 0; i < c->nr_syms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c->formats);
	free(c->funcs.v);
	free(c->callers.v);
	free(c->addrs.v);
}

/* The output must not be the input: it is truncated first. */
static int check_paths(struct utrace_dat *d, const char *path, struct utrace_error *err)
{
	struct stat in, out;

	if (stat(path, &out) == 0 && stat(utrace_dat_path(d), &in) == 0 &&
	    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
		return utrace_error_set(err, -EINVAL, "%s: the output is the input file", path);
	return 0;
}

int utrace_tracedat_convert(struct utrace_dat *d, const char *path,
			    struct utrace_tracedat_stats *st, struct utrace_error *err)
{
	struct utrace_tracedat_stats local;
	struct conv c = {
	    .d = d, .fd = -1, .path = path, .next_synthetic = SYNTHETIC_BASE, .err = err};
	uint32_t nr_cpus;
	struct stat sb;
	int ret;

	c.st = st ? st : &local;
	memset(c.st, 0, sizeof(*c.st));
	ret = check_paths(d, path, err);
	if (ret == 0)
		ret = lay_out(&c);
	if (ret < 0)
		goto out;
	nr_cpus = utrace_dat_nr_cpus(d);
	if (nr_cpus < c.nr_s)
		nr_cpus = c.nr_s;
	if (nr_cpus == 0)
		nr_cpus = 1;
	if (nr_cpus > MAX_CPUS)
		nr_cpus = c.nr_s ? c.nr_s : 1;
	c.st->nr_cpus = nr_cpus;

	c.fd = utrace_create_private(path, 0); /* 0600, as utrace.dat */
	if (c.fd < 0) {
		ret = utrace_error_set(err, -errno, "%s: cannot create: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(c.fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		close(c.fd);
		c.fd = -1;
		ret = utrace_error_set(
		    err, -EINVAL, "%s: not a regular file (a trace.dat is written in place)", path);
		goto out;
	}
	ret = write_header(&c, nr_cpus);
	if (ret == 0) {
		c.pass = 2;
		ret = run_pass(&c);
	}
	for (uint32_t i = 0; ret == 0 && i < c.nr_s; i++)
		if (c.s[i] && c.s[i]->pages != c.s[i]->planned)
			ret = tracedat_changed(&c);
	if (close(c.fd) < 0 && ret == 0)
		ret = utrace_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
	if (ret < 0)
		unlink(path);
out:
	conv_free(&c);
	return ret;
}
