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

#include "common/proto.h"
#include "lib/base/private_file.h"
#include "lib/export/tracedat_internal.h"
#include "lib/export/tracedat_records.h"

struct conv {
	struct utrace_dat *d;
	int pass; /* 1: lay out, 2: write */
	int fd;
	const char *path; /* the output */
	struct tracedat_syms *syms;
	struct tracedat_pages *pages;
	struct tracedat_records *records;
	struct utrace_tracedat_format *formats; /* the recording's, ftrace's left out */
	size_t nr_formats;
	struct utrace_tracedat_stats *st;
	struct utrace_error *err;
};

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
		if ((ret = tracedat_records_event(c->records, &ev)) < 0)
			break;
	if (ret == 0)
		ret = tracedat_records_end(c->records);
	if (ret == 0)
		ret = tracedat_pages_finish(c->pages);
	if (ret == 0 && c->pass == 2) {
		c->st->warnings = utrace_dat_iter_warnings(it);
		c->st->unread = utrace_dat_iter_unread(it, &c->st->unread_unknown);
		c->st->own = utrace_dat_iter_own(it);
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
	size_t nr_tasks = 0, len = 0, nr_syms;
	const struct utrace_tracedat_sym *syms;
	uint64_t *pages, end;
	char *hdr = NULL;
	int ret;

	tasks = utrace_tracedat_tasks(c->d, &nr_tasks);
	pages = calloc(nr_cpus, sizeof(*pages));
	if (!tasks || !pages) {
		free(tasks);
		free(pages);
		return tracedat_nomem(c->d, c->err);
	}
	for (uint32_t i = 0; i < tracedat_pages_nr_cpus(c->pages); i++)
		pages[i] = tracedat_pages_count(c->pages, i);
	syms = tracedat_syms_list(c->syms, &nr_syms, &end);
	l = (struct utrace_tracedat_layout){.syms = syms,
					    .nr_syms = nr_syms,
					    .end = end,
					    .tasks = tasks,
					    .nr_tasks = nr_tasks,
					    .nr_cpus = nr_cpus,
					    .cpu_pages = pages,
					    .clock = "mono",
					    .formats = c->formats,
					    .nr_formats = c->nr_formats};
	ret = utrace_tracedat_header(&l, &hdr, &len, c->err);
	if (ret < 0)
		tracedat_nomem(c->d, c->err);
	else if ((ret = write_all(c->fd, hdr, len)) < 0)
		utrace_error_set(c->err, ret, "%s: cannot write: %s", c->path, strerror(-ret));
	c->st->nr_tasks = (unsigned)nr_tasks;
	c->st->file_bytes = tracedat_pages_place(c->pages, c->fd, len);
	tracedat_records_rewind(c->records);
	free(hdr);
	free(tasks);
	free(pages);
	return ret;
}

/* f's text with its "ID:" line saying f->file_id (f->own); -ENOMEM. */
static int renumber_text(struct utrace_tracedat_format *f)
{
	const char *id = strstr(f->text, "\nID: ");
	const char *eol = id ? strchr(id + 1, '\n') : NULL;
	size_t head = id ? (size_t)(id - f->text) : 0;
	int n;

	if (!eol)
		return 0; /* no ID line: the file's id is in the records only */
	n = asprintf(&f->own, "%.*s\nID: %d%s", (int)head, f->text, f->file_id, eol);
	if (n < 0) {
		f->own = NULL;
		return -ENOMEM;
	}
	f->text = f->own;
	return 0;
}

/*
 * The user events' ids in the file: the recording numbers them from
 * UTRACE_EV_ID_BASE (32768), which KernelShark's int16_t event ids turn
 * negative (blank rows), so they follow the highest kernel id of the file
 * (and ftrace's own, 11) instead.  Those that would not fit are left out.
 */
static int renumber_user(struct conv *c)
{
	int next = UTRACE_TRACEDAT_FUNCGRAPH_ENTRY + 1;
	size_t k = 0;

	for (size_t i = 0; i < c->nr_formats; i++)
		if (c->formats[i].id < UTRACE_EV_ID_BASE && c->formats[i].id >= next)
			next = c->formats[i].id + 1;
	for (size_t i = 0; i < c->nr_formats; i++) {
		struct utrace_tracedat_format *f = &c->formats[i];

		if (f->id >= UTRACE_EV_ID_BASE) {
			if (next >= UTRACE_EV_ID_BASE)
				continue;
			f->file_id = next++;
			if (renumber_text(f) < 0)
				return tracedat_nomem(c->d, c->err);
		}
		c->formats[k++] = *f;
	}
	c->nr_formats = k;
	return 0;
}

/* The recording's event formats, but ftrace's (its ids are the file's
 * own function and print events). */
static int list_formats(struct conv *c)
{
	unsigned n = utrace_dat_event_format_count(c->d);

	c->formats = calloc(n + 1, sizeof(*c->formats));
	if (!c->formats)
		return tracedat_nomem(c->d, c->err);
	for (unsigned i = 0; i < n; i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(c->d, i, &id, &sys);
		if (!text || !sys || !strcmp(sys, "ftrace") || id < 0 || id > UINT16_MAX)
			continue;
		c->formats[c->nr_formats++] = (struct utrace_tracedat_format){
		    .system = sys, .text = text, .id = id, .file_id = id};
	}
	return renumber_user(c);
}

/* The parts, the first pass, then the symbol list sorted. */
static int lay_out(struct conv *c)
{
	int ret;

	ret = list_formats(c);
	if (ret < 0)
		return ret;
	if (!(c->syms = tracedat_syms_new(c->d, c->err)) ||
	    !(c->pages = tracedat_pages_new(c->d, c->path, c->st, c->err)) ||
	    !(c->records = tracedat_records_new(c->d, c->syms, c->pages, c->formats, c->nr_formats,
						c->st, c->err)))
		return c->err->code;
	c->pass = 1;
	ret = run_pass(c);
	if (ret < 0)
		return ret;
	c->st->nr_syms = (unsigned)tracedat_syms_close(c->syms) + 1;
	return 0;
}

static void conv_free(struct conv *c)
{
	tracedat_records_free(c->records);
	tracedat_pages_free(c->pages);
	tracedat_syms_free(c->syms);
	for (size_t i = 0; c->formats && i < c->nr_formats; i++)
		free(c->formats[i].own);
	free(c->formats);
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
	struct conv c = {.d = d, .fd = -1, .path = path, .err = err};
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
	if (nr_cpus < tracedat_pages_nr_cpus(c.pages))
		nr_cpus = tracedat_pages_nr_cpus(c.pages);
	if (nr_cpus == 0)
		nr_cpus = 1;
	if (nr_cpus > MAX_CPUS)
		nr_cpus = tracedat_pages_nr_cpus(c.pages) ? tracedat_pages_nr_cpus(c.pages) : 1;
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
	if (ret == 0)
		ret = tracedat_pages_check(c.pages);
	if (close(c.fd) < 0 && ret == 0)
		ret = utrace_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
	if (ret < 0)
		unlink(path);
out:
	conv_free(&c);
	return ret;
}
