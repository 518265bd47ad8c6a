/* SPDX-License-Identifier: MIT */
/*
 * dat_reader.c - opens a utrace.dat file: one pass over the record
 * headers that loads the metadata and indexes the PAGE records.
 *
 * Design: the pass reads each record's 8-byte header plus, for a PAGE,
 * the page and sub-buffer headers (one pread of 48 bytes), and remembers
 * only the file offset and size of the page data: page contents are read
 * later, by the iterator, one sub-buffer at a time.  Metadata records are
 * small and read whole.  Every length is checked against the file before
 * use; a record that runs past the end stops the pass with a warning (the
 * recorder was killed mid-write), a malformed metadata record is skipped
 * with a warning, and a missing END record is a warning too: what was
 * saved is still readable.  Only a file that is not a utrace.dat at all,
 * or an I/O error, makes open fail.
 *
 * The metadata records are dat_meta.c's; this file checks the file
 * header, walks the records, indexes the pages, and answers the
 * metadata queries once the file is open.  A file still being written
 * can be kept open and refreshed: the pass goes on from where it stopped
 * (utrace_dat_refresh, below).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "lib/tracefile/dat_kernel.h"

static int index_page(struct utrace_dat *d, const unsigned char *head, uint32_t len, uint64_t off)
{
	struct utrace_dat_page pg;
	struct utrace_subbuf sb;
	struct dat_buffer *b;
	struct dat_page_ref *ref;
	uint32_t max = d->hdr.subbuf_size - (uint32_t)sizeof(sb);

	if (len < sizeof(pg) + sizeof(sb)) {
		dat_bad_record(d, off, UTRACE_DAT_PAGE, "too short for a sub-buffer header");
		return 0;
	}
	memcpy(&pg, head + sizeof(struct utrace_dat_rec), sizeof(pg));
	memcpy(&sb, head + sizeof(struct utrace_dat_rec) + sizeof(pg), sizeof(sb));
	if (sb.commit > len - sizeof(pg) - sizeof(sb) || sb.commit > max) {
		dat_bad_record(d, off, UTRACE_DAT_PAGE, "commit is larger than the page");
		return 0;
	}
	b = dat_buf_get(d, pg.buf);
	if (!b || UTRACE_GROW(b->pages, b->cap_pages, b->nr_pages + 1))
		return -ENOMEM;
	if (!b->nr_pages) {
		b->first_tsc = sb.time_stamp;
		d->kmap_stale = true; /* the time its thread's map entry starts */
	}
	ref = &b->pages[b->nr_pages];
	if (b->nr_pages && ref[-1].seq == sb.seq && ref[-1].tsc == sb.time_stamp) {
		/* The same sub-buffer again: the recorder saved the part its
		 * thread had committed when the trace was read, and now more of
		 * it (lib/record/recorder_drain.c, rec_drain_partial).  The
		 * longer version replaces the shorter one in place. */
		if ((sb.commit & ~3u) >= ref[-1].commit) {
			ref[-1].off = off + sizeof(struct utrace_dat_rec) + sizeof(pg);
			ref[-1].commit = sb.commit & ~3u;
		}
		return 0;
	}
	ref->off = off + sizeof(struct utrace_dat_rec) + sizeof(pg);
	ref->commit = sb.commit & ~3u;
	ref->reserved = 0;
	ref->seq = sb.seq;
	ref->tsc = sb.time_stamp;
	ref->first = ref->off;
	b->nr_pages++;
	b->info.nr_pages = b->nr_pages;
	if (sb.cpu > d->max_cpu)
		d->max_cpu = sb.cpu;
	return 0;
}

static int check_header(struct utrace_dat *d, struct utrace_error *err)
{
	struct utrace_dat_header hdr;
	size_t n = d->file_size < sizeof(hdr) ? (size_t)d->file_size : sizeof(hdr);
	int ret;

	memset(&hdr, 0, sizeof(hdr));
	ret = dat_pread(d, &hdr, n, 0, err);
	if (ret < 0)
		return ret;
	if (n < sizeof(hdr.magic) || memcmp(hdr.magic, UTRACE_DAT_MAGIC, sizeof(hdr.magic)))
		return utrace_error_set(err, -EINVAL, "%s: not a utrace.dat file (bad magic)",
					d->path);
	if (n < sizeof(hdr))
		return utrace_error_set(err, -EINVAL,
					"%s: truncated in the file header (%zu of %zu bytes)",
					d->path, n, sizeof(hdr));
	if (hdr.version != UTRACE_DAT_VERSION)
		return utrace_error_set(err, -ENOTSUP,
					"%s: format version %u is not supported (this utrace reads "
					"version %d)",
					d->path, hdr.version, UTRACE_DAT_VERSION);
	if (hdr.size < sizeof(hdr) || hdr.size > 4096)
		return utrace_error_set(err, -EINVAL, "%s: bad file header size %u", d->path,
					hdr.size);
	if (hdr.subbuf_size < 64 || hdr.subbuf_size > (1u << 24) || (hdr.subbuf_size & 3))
		return utrace_error_set(err, -EINVAL, "%s: bad sub-buffer size %u", d->path,
					hdr.subbuf_size);
	d->hdr = hdr;
	return 0;
}

/* Whether a refresh can add a record of this type to what d holds: the
 * pages, and the records that only add to a table.  Any other (CLOCK,
 * META, the symbols' records, KHEADER, KTASKS, END...) changes what the
 * open pass made of the records before it: the file is read anew. */
static bool refresh_adds(uint32_t type)
{
	switch (type) {
	case UTRACE_DAT_PAGE:
	case UTRACE_DAT_SNAP_PAGE:
	case UTRACE_DAT_KPAGE:
	case UTRACE_DAT_BUFFER:
	case UTRACE_DAT_STATS:
	case UTRACE_DAT_EVENT_FORMAT:
	case UTRACE_DAT_NOTICE:
	case UTRACE_DAT_OWN:
		return true;
	default:
		return false;
	}
}

/* Where the pass stopped, with the end's warning (cut short at off, or
 * no END record): the last, said again by each refresh. */
static void warn_end(struct utrace_dat *d, uint64_t off, bool cut)
{
	d->nr_warnings_kept = d->nr_warnings;
	d->scan_off = off;
	if (cut)
		dat_warn(d, "%s: truncated at offset %llu: recording did not finish", d->path,
			 (unsigned long long)off);
	else
		dat_warn(d, "%s: no END record: recording did not finish (killed?); showing what "
			    "was saved",
			 d->path);
}

/* The records from d->scan_off on: 0, DAT_READ_ANEW (a refresh met a
 * record it cannot add), <0 on an I/O error. */
static int scan_records(struct utrace_dat *d, struct utrace_error *err)
{
	uint64_t off = d->scan_off;
	unsigned char head[sizeof(struct utrace_dat_rec) + sizeof(struct utrace_dat_page) +
			   sizeof(struct utrace_subbuf)];
	int ret;

	while (off < d->file_size) {
		struct utrace_dat_rec rec;
		uint64_t left = d->file_size - off;
		uint64_t padded;
		size_t n;
		char *p;

		if (left < sizeof(rec)) {
			warn_end(d, off, true);
			return 0;
		}
		n = left < sizeof(head) ? (size_t)left : sizeof(head);
		ret = dat_pread(d, head, n, off, err);
		if (ret < 0)
			return ret;
		memcpy(&rec, head, sizeof(rec));
		padded = ((uint64_t)rec.len + 7) & ~7ull;
		if (padded > left - sizeof(rec)) {
			warn_end(d, off, true);
			return 0;
		}
		if (d->refreshing && !refresh_adds(rec.type))
			return DAT_READ_ANEW;
		if (rec.type == UTRACE_DAT_END) {
			d->finished = 1;
			off += sizeof(rec) + padded;
			d->scan_off = off;
			d->nr_warnings_kept = d->nr_warnings;
			if (off < d->file_size)
				dat_warn(d, "%s: %llu bytes after the END record ignored", d->path,
					 (unsigned long long)(d->file_size - off));
			return 0;
		}
		if (rec.type == UTRACE_DAT_PAGE || rec.type == UTRACE_DAT_SNAP_PAGE) {
			/* the trace's pages, or those of the snapshot shown */
			ret = dat_snap_page_wanted(d, rec.type, head, n)
				  ? index_page(d, head, rec.len, off)
				  : 0;
		} else if (rec.type == UTRACE_DAT_KPAGE) {
			/* the trace's, or those of the snapshot shown (a kernel
			 * event's snapshot, utrace_dat_kpage.reserved its id) */
			ret = dat_kernel_index(d, head, n, rec.len, off);
		} else if (rec.type == UTRACE_DAT_PERF || rec.type == UTRACE_DAT_PERF_OFFCPU) {
			ret = dat_samples_index(d, head, n, rec.len, off,
						rec.type == UTRACE_DAT_PERF_OFFCPU);
		} else if ((rec.type >= UTRACE_DAT_CLOCK && rec.type <= UTRACE_DAT_HIST) ||
			   rec.type == UTRACE_DAT_PERF_ATTR || rec.type == UTRACE_DAT_SNAPSHOT ||
			   rec.type == UTRACE_DAT_PERF_KSYMS || rec.type == UTRACE_DAT_KSYMS ||
			   rec.type == UTRACE_DAT_OWN) {
			/* metadata (PAGE, KPAGE and END are handled above) */
			if (rec.len > DAT_MAX_META_LEN) {
				dat_bad_record(d, off, rec.type, "too large");
				off += sizeof(rec) + padded;
				continue;
			}
			p = malloc((size_t)rec.len + 1);
			if (!p)
				return utrace_error_set(err, -ENOMEM, "%s: out of memory", d->path);
			ret = dat_pread(d, p, rec.len, off + sizeof(rec), err);
			if (ret < 0) {
				free(p);
				return ret;
			}
			p[rec.len] = '\0';
			ret = dat_meta_record(d, &d->sc, rec.type, p, rec.len, off);
		} else {
			ret = 0; /* unknown type: forward compatibility */
		}
		if (ret < 0)
			return utrace_error_set(err, ret, "%s: out of memory", d->path);
		off += sizeof(rec) + padded;
	}
	warn_end(d, off, false);
	return 0;
}

/*
 * Nested contexts: each buffer whose BUFFER record names a base gets the
 * base's index and its level.  The recorder numbers buffers as they come
 * and a base always comes first, so a base with an id not below the
 * buffer's own is a damaged file: that buffer is left a thread of its own.
 */
static void link_nested(struct utrace_dat *d)
{
	for (size_t i = 0; i < d->nr_buffers; i++) {
		struct dat_buffer *b = &d->buffers[i], *base;

		if (!b->base_id || b->base_id - 1 >= b->info.buf)
			continue;
		base = dat_buf_find(d, b->base_id - 1);
		if (!base || base->info.tid != b->info.tid || base->info.nest >= UTRACE_RB_NEST_MAX)
			continue;
		b->info.base = (uint32_t)(base - d->buffers);
		b->info.nest = base->info.nest + 1;
	}
}

int utrace_dat_open(const char *path, struct utrace_dat **out, struct utrace_error *err)
{
	return utrace_dat_open_snapshot(path, 0, out, err);
}

static int dat_open(const char *path, unsigned snap, struct utrace_dat_kscan *kscan,
		    struct utrace_dat **out, struct utrace_error *err);

int utrace_dat_open_snapshot(const char *path, unsigned snap, struct utrace_dat **out,
			     struct utrace_error *err)
{
	return dat_open(path, snap, NULL, out, err);
}

int utrace_dat_open_kscan(const char *path, struct utrace_dat_kscan *s, struct utrace_dat **out,
			  struct utrace_error *err)
{
	return dat_open(path, 0, s, out, err);
}

static int dat_open(const char *path, unsigned snap, struct utrace_dat_kscan *kscan,
		    struct utrace_dat **out, struct utrace_error *err)
{
	struct utrace_dat *d;
	struct stat st;
	int ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	d->fd = -1;
	d->snap_sel = snap;
	d->kscan = kscan;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		ret = utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		utrace_dat_close(d);
		return ret;
	}
	if (fstat(d->fd, &st) < 0) {
		ret = utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		utrace_dat_close(d);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		utrace_dat_close(d);
		return utrace_error_set(err, -EINVAL, "%s: not a regular file", path);
	}
	d->file_size = (uint64_t)st.st_size;

	ret = check_header(d, err);
	if (ret < 0) {
		utrace_dat_close(d);
		return ret;
	}
	d->scan_off = ((uint64_t)d->hdr.size + 7) & ~7ull;
	ret = scan_records(d, err);
	if (ret == 0)
		ret = dat_snap_select(d, err);
	if (ret == 0)
		link_nested(d);
	if (ret == 0 && dat_syms_finish(d, d->sc.blobs, d->sc.nr_blobs) < 0)
		ret = utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	if (ret == 0) {
		/* the kernel's task map is in ns: the clock must be ready */
		dat_clock_prepare(d);
		if (dat_kernel_finish(d) < 0)
			ret = utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
		d->kmap_stale = false;
	}
	free(d->sc.blobs); /* their payloads belong to d->bins */
	d->sc.blobs = NULL;
	d->sc.nr_blobs = d->sc.cap_blobs = 0;
	if (ret < 0) {
		utrace_dat_close(d);
		return ret;
	}
	*out = d;
	return 0;
}

/*
 * A refresh: the file grew since d read it (a recording still being
 * written, read again and again: utrace bt's replay).  What d holds
 * stays; the pass goes on from the first record it had not read (one
 * that was cut short, or the end), and the derived tables are brought up
 * to date from what it added: the kernel's tasks and their map
 * (dat_kernel_finish), the nested contexts' links.  So a reading costs
 * what was added since the last, not the file.
 *
 * Only records that add to a table are added so (refresh_adds: pages,
 * buffers, statistics, formats, notices, windows of utrace's own work);
 * any other, a buffer made after the kernel tasks' (a fresh open puts
 * those last), a snapshot shown, a file that shrank or that had ended:
 * the file is read anew into d (dat_reopen), as utrace_dat_open reads
 * it.  Either way d then answers as a fresh open of the file would.
 */
static int dat_reopen(struct utrace_dat *d, struct utrace_error *err)
{
	struct utrace_dat *n, old;
	int ret = dat_open(d->path, d->snap_sel, d->kscan, &n, err);

	if (ret < 0)
		return ret;
	if (d->own_kscan) { /* the same kscan: n's now (else n's own, if it made one) */
		n->own_kscan = true;
		d->own_kscan = false;
	}
	n->show_own = d->show_own;
	n->bytes_read += d->bytes_read;
	if (d->nr_live_names)
		utrace_dat_name_ktasks(n, d->live_names, d->nr_live_names);
	/* d's address is the caller's: the new contents go there */
	old = *d;
	*d = *n;
	*n = old;
	utrace_dat_close(n);
	return 0;
}

int utrace_dat_refresh(struct utrace_dat *d, struct utrace_error *err)
{
	struct stat st;
	int ret;

	if (fstat(d->fd, &st) < 0)
		return utrace_error_set(err, -errno, "%s: %s", d->path, strerror(errno));
	if ((uint64_t)st.st_size == d->file_size)
		return 0;
	if (d->snap_sel || d->finished || (uint64_t)st.st_size < d->file_size)
		return dat_reopen(d, err);
	/* the end's warning is said anew where the pass stops now */
	for (unsigned i = d->nr_warnings_kept; i < d->nr_warnings && i < DAT_MAX_WARNINGS; i++) {
		free(d->warnings[i]);
		d->warnings[i] = NULL;
	}
	d->nr_warnings = d->nr_warnings_kept;
	d->file_size = (uint64_t)st.st_size;
	d->refreshing = true;
	ret = scan_records(d, err);
	d->refreshing = false;
	if (ret == 0 && d->kmap_stale)
		link_nested(d);
	if (ret == 0)
		ret = dat_kernel_finish(d);
	d->kmap_stale = false;
	if (ret == DAT_READ_ANEW)
		return dat_reopen(d, err);
	if (ret == -ENOMEM)
		return utrace_error_set(err, ret, "%s: out of memory", d->path);
	return ret;
}

void utrace_dat_close(struct utrace_dat *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	dat_syms_free(d);
	dat_kernel_free(d);
	if (d->own_kscan)
		utrace_dat_kscan_free(d->kscan);
	free(d->sc.blobs);
	dat_ksyms_free(d);
	dat_own_free(d);
	dat_samples_free(d);
	dat_hist_free(d);
	free(d->snaps);
	free(d->live_names);
	for (size_t i = 0; i < d->nr_meta_blobs; i++)
		free(d->meta_blobs[i]);
	free(d->meta_blobs);
	free(d->meta);
	for (size_t i = 0; i < d->nr_buffers; i++)
		free(d->buffers[i].pages);
	free(d->buffers);
	free(d->buf_hash);
	for (size_t i = 0; i < d->nr_notices; i++)
		free(d->notices[i]);
	free(d->notices);
	for (size_t i = 0; i < d->nr_evfmts; i++) {
		free(d->evfmts[i].system);
		free(d->evfmts[i].text);
	}
	free(d->evfmts);
	for (unsigned i = 0; i < d->nr_warnings && i < DAT_MAX_WARNINGS; i++)
		free(d->warnings[i]);
	free(d->path);
	free(d);
}

const char *utrace_dat_path(const struct utrace_dat *d)
{
	return d->path;
}

int utrace_dat_finished(const struct utrace_dat *d)
{
	return d->finished;
}

unsigned utrace_dat_warning_count(const struct utrace_dat *d)
{
	return d->nr_warnings;
}

const char *utrace_dat_warning(const struct utrace_dat *d, unsigned i)
{
	if (i >= d->nr_warnings || i >= DAT_MAX_WARNINGS)
		return NULL;
	return d->warnings[i] ? d->warnings[i] : "(out of memory)";
}

const char *utrace_dat_meta(const struct utrace_dat *d, const char *key)
{
	for (size_t i = d->nr_meta; i-- > 0;)
		if (!strcmp(d->meta[i].key, key))
			return d->meta[i].value;
	return NULL;
}

const struct utrace_dat_clock *utrace_dat_clock(const struct utrace_dat *d)
{
	return d->have_clock ? &d->clock : NULL;
}

unsigned utrace_dat_nr_cpus(const struct utrace_dat *d)
{
	const char *v = utrace_dat_meta(d, "nr_cpus");

	if (v) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);

		if (end != v && !*end && n > 0 && n <= DAT_MAX_CPU + 1)
			return (unsigned)n;
	}
	return d->max_cpu + 1;
}

unsigned utrace_dat_buffer_count(const struct utrace_dat *d)
{
	return (unsigned)d->nr_buffers;
}

const struct utrace_dat_buffer_info *utrace_dat_buffer_get(const struct utrace_dat *d, unsigned i)
{
	return i < d->nr_buffers ? &d->buffers[i].info : NULL;
}

unsigned utrace_dat_image_count(const struct utrace_dat *d)
{
	return (unsigned)d->nr_images;
}

const struct utrace_dat_image_info *utrace_dat_image_get(const struct utrace_dat *d, unsigned i)
{
	return i < d->nr_images ? &d->images[i].info : NULL;
}

unsigned utrace_dat_notice_count(const struct utrace_dat *d)
{
	return (unsigned)d->nr_notices;
}

const char *utrace_dat_notice(const struct utrace_dat *d, unsigned i)
{
	return i < d->nr_notices ? d->notices[i] : NULL;
}

unsigned utrace_dat_event_format_count(const struct utrace_dat *d)
{
	return (unsigned)d->nr_evfmts;
}

const char *utrace_dat_event_format(const struct utrace_dat *d, unsigned i, int *id,
				    const char **system)
{
	if (i >= d->nr_evfmts)
		return NULL;
	*id = d->evfmts[i].id;
	*system = d->evfmts[i].system;
	return d->evfmts[i].text;
}

const char *utrace_dat_event_format_by_id(const struct utrace_dat *d, int id, const char **system)
{
	for (size_t i = 0; i < d->nr_evfmts; i++)
		if (d->evfmts[i].id == id) {
			*system = d->evfmts[i].system;
			return d->evfmts[i].text;
		}
	return NULL;
}
