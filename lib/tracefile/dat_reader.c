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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rb_abi.h"
#include "lib/tracefile/dat_kernel.h"

static void dat_clock_prepare(struct utrace_dat *d);

void dat_warn(struct utrace_dat *d, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (d->nr_warnings < DAT_MAX_WARNINGS) {
		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		d->warnings[d->nr_warnings] = strdup(line);
	}
	d->nr_warnings++;
}

int dat_pread(const struct utrace_dat *d, void *buf, size_t len, uint64_t off,
	      struct utrace_error *err)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(d->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return utrace_error_set(err, -errno, "%s: read at offset %llu: %s", d->path,
						(unsigned long long)off, strerror(errno));
		}
		if (n == 0)
			return utrace_error_set(err, -EIO,
						"%s: read at offset %llu: the file is shorter than "
						"when it was opened",
						d->path, (unsigned long long)off);
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* ---- buffers: a small open-addressing hash from file id to index ---- */

static size_t buf_slot(uint32_t id, size_t size)
{
	return (size_t)((id * 2654435761u) & (size - 1));
}

static int buf_hash_rebuild(struct utrace_dat *d, size_t size)
{
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_buffers; i++) {
		size_t s = buf_slot(d->buffers[i].info.buf, size);

		while (h[s])
			s = (s + 1) & (size - 1);
		h[s] = (uint32_t)i + 1;
	}
	free(d->buf_hash);
	d->buf_hash = h;
	d->buf_hash_size = size;
	return 0;
}

struct dat_buffer *dat_buf_get(struct utrace_dat *d, uint32_t id)
{
	struct dat_buffer *b;
	size_t s;

	if (d->buf_hash_size) {
		s = buf_slot(id, d->buf_hash_size);
		while (d->buf_hash[s]) {
			b = &d->buffers[d->buf_hash[s] - 1];
			if (b->info.buf == id)
				return b;
			s = (s + 1) & (d->buf_hash_size - 1);
		}
	}
	if (d->nr_buffers >= UINT32_MAX - 1)
		return NULL;
	if (grow((void **)&d->buffers, &d->cap_buffers, d->nr_buffers + 1, sizeof(*d->buffers)))
		return NULL;
	b = &d->buffers[d->nr_buffers++];
	memset(b, 0, sizeof(*b));
	b->info.buf = id;
	strcpy(b->info.comm, "<...>");
	if ((d->nr_buffers + 1) * 2 > d->buf_hash_size) {
		if (buf_hash_rebuild(d, d->buf_hash_size ? d->buf_hash_size * 2 : 64)) {
			d->nr_buffers--;
			return NULL;
		}
	} else {
		s = buf_slot(id, d->buf_hash_size);
		while (d->buf_hash[s])
			s = (s + 1) & (d->buf_hash_size - 1);
		d->buf_hash[s] = (uint32_t)d->nr_buffers;
	}
	return b;
}

/* ---- records ---- */

struct scan {
	struct dat_blob *blobs;
	size_t nr_blobs, cap_blobs;
	size_t cap_images, cap_objects, cap_notices, cap_meta, cap_meta_blobs, cap_evfmts;
	size_t seq;
};

static int add_meta(struct utrace_dat *d, struct scan *sc, char *text, size_t len)
{
	char *line = text, *end = text + len;

	if (grow((void **)&d->meta_blobs, &sc->cap_meta_blobs, d->nr_meta_blobs + 1,
		 sizeof(*d->meta_blobs))) {
		free(text);
		return -ENOMEM;
	}
	d->meta_blobs[d->nr_meta_blobs++] = text;
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eq;

		if (!nl)
			nl = end;
		*nl = '\0';
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			if (grow((void **)&d->meta, &sc->cap_meta, d->nr_meta + 1,
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

/* Handles one metadata record whose payload p[0..len) was read whole.
 * Takes ownership of p.  Returns <0 only when out of memory. */
static int parse_meta_record(struct utrace_dat *d, struct scan *sc, uint32_t type, char *p,
			     uint32_t len, uint64_t off)
{
	switch (type) {
	case UTRACE_DAT_CLOCK:
		if (len < sizeof(struct utrace_dat_clock)) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&d->clock, p, sizeof(d->clock));
		d->have_clock = 1;
		break;
	case UTRACE_DAT_META:
		/* the text becomes the storage of the key/value pairs */
		return add_meta(d, sc, p, len);
	case UTRACE_DAT_IMAGE: {
		struct utrace_dat_image hdr;
		struct dat_image *img;

		if (len < sizeof(hdr)) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&hdr, p, sizeof(hdr));
		if (grow((void **)&d->images, &sc->cap_images, d->nr_images + 1,
			 sizeof(*d->images)))
			goto nomem;
		img = &d->images[d->nr_images];
		memset(img, 0, sizeof(*img));
		img->exe = strndup(p + sizeof(hdr), len - sizeof(hdr));
		if (!img->exe)
			goto nomem;
		img->info.image = hdr.image;
		img->info.pid = hdr.pid;
		img->info.ppid = hdr.ppid;
		img->info.flags = hdr.flags;
		img->info.exe = img->exe;
		img->seq = sc->seq++;
		d->nr_images++;
		break;
	}
	case UTRACE_DAT_OBJECT: {
		struct utrace_dat_object hdr;
		struct dat_object *o;

		if (len < sizeof(hdr)) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&hdr, p, sizeof(hdr));
		if ((uint64_t)hdr.id_base + hdr.nr_sites > (uint64_t)UINT32_MAX + 1) {
			bad_record(d, off, type, "function ids out of range");
			break;
		}
		if (grow((void **)&d->objects, &sc->cap_objects, d->nr_objects + 1,
			 sizeof(*d->objects)))
			goto nomem;
		o = &d->objects[d->nr_objects];
		memset(o, 0, sizeof(*o));
		o->path = strndup(p + sizeof(hdr), len - sizeof(hdr));
		if (!o->path)
			goto nomem;
		o->image = hdr.image;
		o->obj = hdr.obj;
		o->flags = hdr.flags;
		o->id_base = hdr.id_base;
		o->nr_sites = hdr.nr_sites;
		o->bias = hdr.bias;
		o->seq = sc->seq++;
		d->nr_objects++;
		break;
	}
	case UTRACE_DAT_SITES:
	case UTRACE_DAT_SYMTAB:
		/* applied once every OBJECT is known (dat_syms_finish) */
		if (grow((void **)&sc->blobs, &sc->cap_blobs, sc->nr_blobs + 1, sizeof(*sc->blobs)))
			goto nomem;
		sc->blobs[sc->nr_blobs].type = type;
		sc->blobs[sc->nr_blobs].len = len;
		sc->blobs[sc->nr_blobs].data = p;
		sc->nr_blobs++;
		return 0;
	case UTRACE_DAT_BUFFER: {
		struct utrace_dat_buffer hdr;
		struct dat_buffer *b;

		if (len < sizeof(hdr)) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&hdr, p, sizeof(hdr));
		b = dat_buf_get(d, hdr.buf);
		if (!b)
			goto nomem;
		b->info.image = hdr.image;
		b->info.pid = hdr.pid;
		b->info.tid = hdr.tid;
		b->info.flags = hdr.flags;
		memcpy(b->info.comm, hdr.comm, sizeof(hdr.comm));
		b->info.comm[sizeof(hdr.comm)] = '\0';
		if (!b->info.comm[0])
			strcpy(b->info.comm, "<...>");
		break;
	}
	case UTRACE_DAT_STATS: {
		struct utrace_dat_stats st;
		struct dat_buffer *b;

		if (len < sizeof(st)) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&st, p, sizeof(st));
		b = dat_buf_get(d, st.buf);
		if (!b)
			goto nomem;
		b->info.has_stats = 1;
		b->info.written = st.written;
		b->info.lost = st.lost;
		b->info.pages = st.pages;
		b->info.overrun = st.overrun;
		break;
	}
	case UTRACE_DAT_EVENT_FORMAT: {
		struct utrace_dat_event_format ef;
		struct dat_evfmt *e;
		const char *sys;
		size_t slen;

		if (len < sizeof(ef) + 2) {
			bad_record(d, off, type, "too short");
			break;
		}
		memcpy(&ef, p, sizeof(ef));
		sys = p + sizeof(ef);
		slen = strnlen(sys, len - sizeof(ef));
		if (slen + 1 >= len - sizeof(ef)) {
			bad_record(d, off, type, "no format text after the system name");
			break;
		}
		if (grow((void **)&d->evfmts, &sc->cap_evfmts, d->nr_evfmts + 1, sizeof(*d->evfmts)))
			goto nomem;
		e = &d->evfmts[d->nr_evfmts];
		e->id = (int)ef.id;
		e->system = strndup(sys, slen);
		e->text = strndup(sys + slen + 1, len - sizeof(ef) - slen - 1);
		if (!e->system || !e->text) {
			free(e->system);
			free(e->text);
			goto nomem;
		}
		d->nr_evfmts++;
		break;
	}
	case UTRACE_DAT_KHEADER:
	case UTRACE_DAT_KTASKS:
		if (dat_kernel_meta(d, type, p, len, off) < 0)
			goto nomem;
		break;
	case UTRACE_DAT_NOTICE: {
		char *text = strndup(p, len);

		if (!text)
			goto nomem;
		if (grow((void **)&d->notices, &sc->cap_notices, d->nr_notices + 1,
			 sizeof(*d->notices))) {
			free(text);
			goto nomem;
		}
		d->notices[d->nr_notices++] = text;
		break;
	}
	default:
		break; /* a newer writer's record: skipped */
	}
	free(p);
	return 0;
nomem:
	free(p);
	return -ENOMEM;
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
	if (!b || grow((void **)&b->pages, &b->cap_pages, b->nr_pages + 1, sizeof(*b->pages)))
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
		if (rec.type == UTRACE_DAT_PAGE) {
			ret = index_page(d, head, rec.len, off);
		} else if (rec.type == UTRACE_DAT_KPAGE) {
			ret = dat_kernel_index(d, head, n, rec.len, off);
		} else if (rec.type >= UTRACE_DAT_CLOCK && rec.type <= UTRACE_DAT_KTASKS) {
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

int utrace_dat_open(const char *path, struct utrace_dat **out, struct utrace_error *err)
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

/* a * b / c for 64-bit magnitudes, saturated to UINT64_MAX */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 q = (unsigned __int128)a * b / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

#define TSC_SHIFT DAT_TSC_SHIFT

/* The mult of the fast conversion, when the clock is the usual kind (both
 * clocks going forward, under 2^24 ns per tick); the exact 128-bit
 * division below stays for anything else. */
static void dat_clock_prepare(struct utrace_dat *d)
{
	const struct utrace_dat_clock *c = &d->clock;
	unsigned __int128 m;

	d->tsc_fast = 0;
	if (!d->have_clock || c->tsc1 <= c->tsc0 || c->ns1 <= c->ns0)
		return;
	m = ((unsigned __int128)(c->ns1 - c->ns0) << TSC_SHIFT) / (c->tsc1 - c->tsc0);
	if (m >> 63)
		return;
	d->tsc_mult = (uint64_t)m;
	d->tsc_fast = 1;
}

uint64_t utrace_dat_tsc_to_ns(const struct utrace_dat *d, uint64_t tsc)
{
	const struct utrace_dat_clock *c = &d->clock;
	uint64_t dtsc, dns, delta;
	int neg_tsc, neg_ns;

	if (d->tsc_fast && tsc >= c->tsc0 && tsc - c->tsc0 < (1ull << 60)) {
		uint64_t ns = (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * d->tsc_mult) >>
					 TSC_SHIFT);

		if (ns <= UINT64_MAX - c->ns0)
			return c->ns0 + ns;
	}
	if (!d->have_clock)
		return tsc;
	neg_tsc = tsc < c->tsc0;
	delta = neg_tsc ? c->tsc0 - tsc : tsc - c->tsc0;
	if (c->tsc1 == c->tsc0 || c->ns1 == c->ns0) {
		/* no slope known: 1 tick = 1 ns */
	} else {
		neg_ns = c->ns1 < c->ns0;
		dns = neg_ns ? c->ns0 - c->ns1 : c->ns1 - c->ns0;
		if (c->tsc1 < c->tsc0) {
			dtsc = c->tsc0 - c->tsc1;
			neg_ns = !neg_ns;
		} else {
			dtsc = c->tsc1 - c->tsc0;
		}
		delta = muldiv(delta, dns, dtsc);
		if (neg_ns)
			neg_tsc = !neg_tsc;
	}
	if (neg_tsc)
		return delta > c->ns0 ? 0 : c->ns0 - delta;
	return delta > UINT64_MAX - c->ns0 ? UINT64_MAX : c->ns0 + delta;
}

uint64_t dat_ticks_to_ns(const struct utrace_dat *d, uint64_t ticks)
{
	const struct utrace_dat_clock *c = &d->clock;

	if (!d->have_clock || c->tsc1 <= c->tsc0 || c->ns1 <= c->ns0)
		return ticks;
	return muldiv(ticks, c->ns1 - c->ns0, c->tsc1 - c->tsc0);
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
