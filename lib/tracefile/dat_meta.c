/* SPDX-License-Identifier: MIT */
/*
 * dat_meta.c - the metadata records of a utrace.dat, as the reader's open
 * pass meets them (lib/tracefile/dat_internal.h): clock, key=value text,
 * images, objects, buffers, statistics, event formats, notices, and the
 * records other parts of the reader own, handed on to them.
 *
 * Design: one handler per record type.  A handler gets the payload,
 * already read whole and checked against the file by dat_reader.c, and
 * either copies what it needs or keeps the payload itself (META_KEEP).
 * A malformed record is skipped with a warning that says why; only
 * running out of memory is an error.  SITES and SYMTAB are kept until
 * every OBJECT is known (dat_syms_finish), each content once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefile/dat_kernel.h"

/* Keeps text (*kept) as the storage of its key/value pairs. */
static int add_meta(struct utrace_dat *d, struct dat_scan *sc, char *text, size_t len, bool *kept)
{
	char *line = text, *end = text + len;

	if (UTRACE_GROW(d->meta_blobs, sc->cap_meta_blobs, d->nr_meta_blobs + 1))
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
			if (UTRACE_GROW(d->meta, sc->cap_meta, d->nr_meta + 1))
				return -ENOMEM;
			d->meta[d->nr_meta].key = line;
			d->meta[d->nr_meta].value = eq + 1;
			d->nr_meta++;
		}
		line = nl + 1;
	}
	return 0;
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
	struct dat_scan *sc;
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
	if (UTRACE_GROW(d->images, m->sc->cap_images, d->nr_images + 1))
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
	if (UTRACE_GROW(d->objects, m->sc->cap_objects, d->nr_objects + 1))
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

/* SITES and SYMTAB: applied once every OBJECT is known (dat_syms_finish);
 * the payload is kept once per content (dat_bins.c), so the copies that
 * every process of one program brings cost nothing past this point */
static int meta_blob(struct meta_ctx *m, char *p, uint32_t len)
{
	struct dat_scan *sc = m->sc;
	struct dat_blob *b;
	uint32_t ids[2] = {0, 0};

	if (UTRACE_GROW(sc->blobs, sc->cap_blobs, sc->nr_blobs + 1))
		return -ENOMEM;
	if (len >= sizeof(ids))
		memcpy(ids, p, sizeof(ids));
	m->kept = true;
	b = &sc->blobs[sc->nr_blobs];
	b->type = m->type;
	b->image = ids[0];
	b->obj = ids[1];
	b->bin = dat_bin_intern(m->d, m->type, p, len);
	if (!b->bin)
		return -ENOMEM;
	sc->nr_blobs++;
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
	m->d->kmap_stale = true; /* its thread, its base: dat_kernel.c's map */
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
	/* the thread's last name, when the writer added it */
	if (len >= sizeof(st) + sizeof(b->info.comm) - 1 && p[sizeof(st)]) {
		memcpy(b->info.comm, p + sizeof(st), sizeof(b->info.comm) - 1);
		b->info.comm[sizeof(b->info.comm) - 1] = '\0';
	}
	return 0;
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
	if (UTRACE_GROW(d->evfmts, m->sc->cap_evfmts, d->nr_evfmts + 1))
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
	if (!dat_format_ok(e->system, e->text)) {
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
	if (UTRACE_GROW(d->notices, m->sc->cap_notices, d->nr_notices + 1)) {
		free(text);
		return -ENOMEM;
	}
	d->notices[d->nr_notices++] = text;
	return 0;
}

/* Handles one metadata record whose payload p[0..len) was read whole.
 * Takes ownership of p.  Returns <0 only when out of memory. */
int dat_meta_record(struct utrace_dat *d, struct dat_scan *sc, uint32_t type, char *p, uint32_t len,
		    uint64_t off)
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
	case UTRACE_DAT_OWN:
		ret = dat_own_meta(d, p, len, &m.bad);
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
		dat_bad_record(d, off, type, m.bad);
	if (!m.kept)
		free(p);
	return ret < 0 ? -ENOMEM : 0;
}
