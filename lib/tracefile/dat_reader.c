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
#include "lib/events/event_format.h"
#include "lib/tracefile/dat_kernel.h"

/* ---- records ---- */

struct scan {
	struct dat_blob *blobs;
	size_t nr_blobs, cap_blobs;
	size_t cap_images, cap_objects, cap_notices, cap_meta, cap_meta_blobs, cap_evfmts;
	size_t seq;
};

/* Keeps text (*kept) as the storage of its key/value pairs. */
static int add_meta(struct utrace_dat *d, struct scan *sc, char *text, size_t len, bool *kept)
{
	char *line = text, *end = text + len;

	if (dat_grow((void **)&d->meta_blobs, &sc->cap_meta_blobs, d->nr_meta_blobs + 1,
		     sizeof(*d->meta_blobs)))
		return -ENOMEM;
	d->meta_blobs[d->nr_meta_blobs++] = text;
	*kept = true;
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eq;

		if (!nl)
			nl = end;
		*nl = '\0';
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			if (dat_grow((void **)&d->meta, &sc->cap_meta, d->nr_meta + 1,
				     sizeof(*d->meta)))
				return -ENOMEM;
			d->meta[d->nr_meta].key = line;
			d->meta[d->nr_meta].value = eq + 1;
			d->nr_meta++;
		}
		line = nl + 1;
	}
	return 0;
}

static void bad_record(struct utrace_dat *d, uint64_t off, uint32_t type, const char *why)
{
	dat_warn(d, "%s: record at offset %llu (type %u): %s: skipped", d->path,
		 (unsigned long long)off, type, why);
}

/*
 * One handler per metadata record type.  A handler gets the payload
 * p[0..len), already read whole, and returns 0, -ENOMEM, or
 * META_KEEP when it took ownership of p (otherwise the caller frees it).
 * A malformed record is skipped with a warning: *bad says why.
 */
#define META_KEEP 1

struct meta_ctx {
	struct utrace_dat *d;
	struct scan *sc;
	uint32_t type;
	const char *bad; /* set by a handler that skips the record */
	bool kept;	 /* set by a handler that keeps the payload */
};

static int meta_clock(struct meta_ctx *m, char *p, uint32_t len)
{
	if (len < sizeof(struct utrace_dat_clock)) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&m->d->clock, p, sizeof(m->d->clock));
	m->d->have_clock = 1;
	return 0;
}

static int meta_text(struct meta_ctx *m, char *p, uint32_t len)
{
	return add_meta(m->d, m->sc, p, len, &m->kept);
}

static int meta_image(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat *d = m->d;
	struct utrace_dat_image hdr;
	struct dat_image *img;

	if (len < sizeof(hdr)) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&hdr, p, sizeof(hdr));
	if (dat_grow((void **)&d->images, &m->sc->cap_images, d->nr_images + 1, sizeof(*d->images)))
		return -ENOMEM;
	img = &d->images[d->nr_images];
	memset(img, 0, sizeof(*img));
	img->exe = strndup(p + sizeof(hdr), len - sizeof(hdr));
	if (!img->exe)
		return -ENOMEM;
	img->info.image = hdr.image;
	img->info.pid = hdr.pid;
	img->info.ppid = hdr.ppid;
	img->info.flags = hdr.flags;
	img->info.exe = img->exe;
	img->seq = m->sc->seq++;
	d->nr_images++;
	return 0;
}

static int meta_object(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat *d = m->d;
	struct utrace_dat_object hdr;
	struct dat_object *o;

	if (len < sizeof(hdr)) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&hdr, p, sizeof(hdr));
	if ((uint64_t)hdr.id_base + hdr.nr_sites > (uint64_t)UINT32_MAX + 1) {
		m->bad = "function ids out of range";
		return 0;
	}
	if (dat_grow((void **)&d->objects, &m->sc->cap_objects, d->nr_objects + 1,
		     sizeof(*d->objects)))
		return -ENOMEM;
	o = &d->objects[d->nr_objects];
	memset(o, 0, sizeof(*o));
	o->path = strndup(p + sizeof(hdr), len - sizeof(hdr));
	if (!o->path)
		return -ENOMEM;
	o->image = hdr.image;
	o->obj = hdr.obj;
	o->flags = hdr.flags;
	o->id_base = hdr.id_base;
	o->nr_sites = hdr.nr_sites;
	o->bias = hdr.bias;
	o->seq = m->sc->seq++;
	d->nr_objects++;
	return 0;
}

/* SITES and SYMTAB: applied once every OBJECT is known (dat_syms_finish) */
static int meta_blob(struct meta_ctx *m, char *p, uint32_t len)
{
	struct scan *sc = m->sc;

	if (dat_grow((void **)&sc->blobs, &sc->cap_blobs, sc->nr_blobs + 1, sizeof(*sc->blobs)))
		return -ENOMEM;
	sc->blobs[sc->nr_blobs].type = m->type;
	sc->blobs[sc->nr_blobs].len = len;
	sc->blobs[sc->nr_blobs].data = p;
	sc->nr_blobs++;
	m->kept = true;
	return 0;
}

static int meta_buffer(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat_buffer hdr;
	struct dat_buffer *b;

	if (len < sizeof(hdr)) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&hdr, p, sizeof(hdr));
	b = dat_buf_get(m->d, hdr.buf);
	if (!b)
		return -ENOMEM;
	b->info.image = hdr.image;
	b->info.pid = hdr.pid;
	b->info.tid = hdr.tid;
	b->info.flags = hdr.flags;
	b->base_id = hdr.base;
	memcpy(b->info.comm, hdr.comm, sizeof(hdr.comm));
	b->info.comm[sizeof(hdr.comm)] = '\0';
	if (!b->info.comm[0])
		strcpy(b->info.comm, "<...>");
	return 0;
}

static int meta_stats(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat_stats st;
	struct dat_buffer *b;

	if (len < sizeof(st)) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&st, p, sizeof(st));
	b = dat_buf_get(m->d, st.buf);
	if (!b)
		return -ENOMEM;
	b->info.has_stats = 1;
	b->info.written = st.written;
	b->info.lost = st.lost;
	b->info.pages = st.pages;
	b->info.overrun = st.overrun;
	return 0;
}

/*
 * Whether a format text reads as the kernel's format file.  utrace report
 * hands these texts to libtraceevent, which trusts them: some malformed
 * ones crash it (a field without its name).  Our parser checks every
 * line, and reads every format the kernel and utrace record write.
 */
/*
 * libtraceevent (1.7) dereferences NULL on an index "[N]" of the print
 * fmt's arguments that is followed by anything but an operator, a comma,
 * a closing bracket or the end ("REC->a[1];", "x[1]." or "x[1] =", found
 * by fuzz_dat), and on a "]" that closes nothing.  No kernel format has
 * either (checked against all 2323 of this machine's; their "[]" of a
 * static array in a statement expression is empty and harmless).  Strings
 * and characters are skipped.
 */
static bool print_fmt_indexes_ok(const char *text)
{
	const char *s = strstr(text, "\nprint fmt:");
	char open[64]; /* per "[" open: whether it holds anything yet */
	unsigned depth = 0;

	for (s = s ? s + 11 : ""; *s; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;

			for (s++; *s && *s != q; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return true;
			continue;
		}
		if (*s == '[') {
			if (depth == sizeof(open))
				return false;
			open[depth++] = 0;
		} else if (*s == ']') {
			const char *n = s + 1;

			if (!depth)
				return false;
			while (*n == ' ' || *n == '\t' || *n == '\n')
				n++;
			if (open[--depth] && *n && !strchr(")],+-*/%&|^<>!~:?", *n))
				return false;
		} else if (depth && *s != ' ' && *s != '\t') {
			open[depth - 1] = 1;
		}
	}
	return true;
}

static bool format_ok(const char *system, const char *text)
{
	struct utrace_event_format *f;
	struct utrace_error err;

	/* format files are printable ASCII; libtraceevent's tokenizer trips
	 * on other bytes inside a field's declaration (found by fuzz_dat) */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c > 0x7e)
			return false;
	if (!print_fmt_indexes_ok(text) || utrace_event_format_parse(system, text, &f, &err) < 0)
		return false;
	utrace_event_format_free(f);
	return true;
}

static int meta_event_format(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat *d = m->d;
	struct utrace_dat_event_format ef;
	struct dat_evfmt *e;
	const char *sys;
	size_t slen;

	if (len < sizeof(ef) + 2) {
		m->bad = "too short";
		return 0;
	}
	memcpy(&ef, p, sizeof(ef));
	sys = p + sizeof(ef);
	slen = strnlen(sys, len - sizeof(ef));
	if (slen + 1 >= len - sizeof(ef)) {
		m->bad = "no format text after the system name";
		return 0;
	}
	if (dat_grow((void **)&d->evfmts, &m->sc->cap_evfmts, d->nr_evfmts + 1, sizeof(*d->evfmts)))
		return -ENOMEM;
	e = &d->evfmts[d->nr_evfmts];
	e->id = (int)ef.id;
	e->system = strndup(sys, slen);
	e->text = strndup(sys + slen + 1, len - sizeof(ef) - slen - 1);
	if (!e->system || !e->text) {
		free(e->system);
		free(e->text);
		return -ENOMEM;
	}
	if (!format_ok(e->system, e->text)) {
		free(e->system);
		free(e->text);
		m->bad = "malformed event format";
		return 0;
	}
	d->nr_evfmts++;
	return 0;
}

static int meta_notice(struct meta_ctx *m, char *p, uint32_t len)
{
	struct utrace_dat *d = m->d;
	char *text = strndup(p, len);

	if (!text)
		return -ENOMEM;
	if (dat_grow((void **)&d->notices, &m->sc->cap_notices, d->nr_notices + 1,
		     sizeof(*d->notices))) {
		free(text);
		return -ENOMEM;
	}
	d->notices[d->nr_notices++] = text;
	return 0;
}

/* Handles one metadata record whose payload p[0..len) was read whole.
 * Takes ownership of p.  Returns <0 only when out of memory. */
static int parse_meta_record(struct utrace_dat *d, struct scan *sc, uint32_t type, char *p,
			     uint32_t len, uint64_t off)
{
	struct meta_ctx m = {.d = d, .sc = sc, .type = type};
	int ret;

	switch (type) {
	case UTRACE_DAT_CLOCK:
		ret = meta_clock(&m, p, len);
		break;
	case UTRACE_DAT_META:
		ret = meta_text(&m, p, len);
		break;
	case UTRACE_DAT_IMAGE:
		ret = meta_image(&m, p, len);
		break;
	case UTRACE_DAT_OBJECT:
		ret = meta_object(&m, p, len);
		break;
	case UTRACE_DAT_SITES:
	case UTRACE_DAT_SYMTAB:
		ret = meta_blob(&m, p, len);
		break;
	case UTRACE_DAT_BUFFER:
		ret = meta_buffer(&m, p, len);
		break;
	case UTRACE_DAT_STATS:
		ret = meta_stats(&m, p, len);
		break;
	case UTRACE_DAT_EVENT_FORMAT:
		ret = meta_event_format(&m, p, len);
		break;
	case UTRACE_DAT_KHEADER:
	case UTRACE_DAT_KTASKS:
		ret = dat_kernel_meta(d, type, p, len, off);
		break;
	case UTRACE_DAT_KSYMS:
		ret = dat_ksyms_meta(d, p, len, &m.kept);
		break;
	case UTRACE_DAT_NOTICE:
		ret = meta_notice(&m, p, len);
		break;
	case UTRACE_DAT_PERF_ATTR:
		ret = dat_samples_attr(d, p, len, off);
		break;
	case UTRACE_DAT_PERF_KSYMS:
		ret = dat_samples_ksyms(d, p, len);
		break;
	case UTRACE_DAT_HIST:
		ret = dat_hist_meta(d, p, len, &m.kept, &m.bad);
		break;
	case UTRACE_DAT_SNAPSHOT:
		ret = dat_snap_meta(d, p, len, &m.bad);
		break;
	default:
		ret = 0;
		break; /* a newer writer's record: skipped */
	}
	if (m.bad)
		bad_record(d, off, type, m.bad);
	if (!m.kept)
		free(p);
	return ret < 0 ? -ENOMEM : 0;
}

static int index_page(struct utrace_dat *d, const unsigned char *head, uint32_t len, uint64_t off)
{
	struct utrace_dat_page pg;
	struct utrace_subbuf sb;
	struct dat_buffer *b;
	uint32_t max = d->hdr.subbuf_size - (uint32_t)sizeof(sb);

	if (len < sizeof(pg) + sizeof(sb)) {
		bad_record(d, off, UTRACE_DAT_PAGE, "too short for a sub-buffer header");
		return 0;
	}
	memcpy(&pg, head + sizeof(struct utrace_dat_rec), sizeof(pg));
	memcpy(&sb, head + sizeof(struct utrace_dat_rec) + sizeof(pg), sizeof(sb));
	if (sb.commit > len - sizeof(pg) - sizeof(sb) || sb.commit > max) {
		bad_record(d, off, UTRACE_DAT_PAGE, "commit is larger than the page");
		return 0;
	}
	b = dat_buf_get(d, pg.buf);
	if (!b || dat_grow((void **)&b->pages, &b->cap_pages, b->nr_pages + 1, sizeof(*b->pages)))
		return -ENOMEM;
	if (!b->nr_pages)
		b->first_tsc = sb.time_stamp;
	b->pages[b->nr_pages].off = off + sizeof(struct utrace_dat_rec) + sizeof(pg);
	b->pages[b->nr_pages].commit = sb.commit & ~3u;
	b->pages[b->nr_pages].reserved = 0;
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

static int scan_records(struct utrace_dat *d, struct scan *sc, struct utrace_error *err)
{
	uint64_t off = ((uint64_t)d->hdr.size + 7) & ~7ull;
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
			dat_warn(d, "%s: truncated at offset %llu: recording did not finish",
				 d->path, (unsigned long long)off);
			return 0;
		}
		n = left < sizeof(head) ? (size_t)left : sizeof(head);
		ret = dat_pread(d, head, n, off, err);
		if (ret < 0)
			return ret;
		memcpy(&rec, head, sizeof(rec));
		padded = ((uint64_t)rec.len + 7) & ~7ull;
		if (padded > left - sizeof(rec)) {
			dat_warn(d, "%s: truncated at offset %llu: recording did not finish",
				 d->path, (unsigned long long)off);
			return 0;
		}
		if (rec.type == UTRACE_DAT_END) {
			d->finished = 1;
			off += sizeof(rec) + padded;
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
			   rec.type == UTRACE_DAT_PERF_KSYMS || rec.type == UTRACE_DAT_KSYMS) {
			/* metadata (PAGE, KPAGE and END are handled above) */
			if (rec.len > DAT_MAX_META_LEN) {
				bad_record(d, off, rec.type, "too large");
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
			ret = parse_meta_record(d, sc, rec.type, p, rec.len, off);
		} else {
			ret = 0; /* unknown type: forward compatibility */
		}
		if (ret < 0)
			return utrace_error_set(err, ret, "%s: out of memory", d->path);
		off += sizeof(rec) + padded;
	}
	dat_warn(d, "%s: no END record: recording did not finish (killed?); showing what was saved",
		 d->path);
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

int utrace_dat_open_snapshot(const char *path, unsigned snap, struct utrace_dat **out,
			     struct utrace_error *err)
{
	struct utrace_dat *d;
	struct scan sc;
	struct stat st;
	int ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	d->fd = -1;
	d->snap_sel = snap;
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
	memset(&sc, 0, sizeof(sc));
	ret = scan_records(d, &sc, err);
	if (ret == 0)
		ret = dat_snap_select(d, err);
	if (ret == 0)
		link_nested(d);
	if (ret == 0 && dat_syms_finish(d, sc.blobs, sc.nr_blobs) < 0)
		ret = utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	if (ret == 0) {
		/* the kernel's task map is in ns: the clock must be ready */
		dat_clock_prepare(d);
		if (dat_kernel_finish(d) < 0)
			ret = utrace_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	for (size_t i = 0; i < sc.nr_blobs; i++)
		free(sc.blobs[i].data);
	free(sc.blobs);
	if (ret < 0) {
		utrace_dat_close(d);
		return ret;
	}
	*out = d;
	return 0;
}

void utrace_dat_close(struct utrace_dat *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	dat_syms_free(d);
	dat_kernel_free(d);
	dat_ksyms_free(d);
	dat_samples_free(d);
	dat_hist_free(d);
	free(d->snaps);
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
