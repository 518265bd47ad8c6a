/* SPDX-License-Identifier: MIT */
/*
 * dat_file.c - what every part of the utrace.dat reader stands on: reads
 * that are checked against the file, warnings, the buffer table and the
 * clock.  The reader's parts sit on top of it and call it, never each
 * other's callers:
 *
 *   dat_reader.c (open: index + metadata) --+--> dat_kernel.c (kernel pages)
 *        |                                   +--> dat_syms.c   (symbols)
 *        v                                   |
 *   dat_iter.c --> dat_decode.c -------------+--> dat_file.c   (this file)
 *
 * The open pass hands each metadata record to dat_meta.c (with
 * dat_evfmt.c's event format checks), which calls the same parts below.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tracefile/dat_internal.h"

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

void dat_bad_record(struct utrace_dat *d, uint64_t off, uint32_t type, const char *why)
{
	dat_warn(d, "%s: record at offset %llu (type %u): %s: skipped", d->path,
		 (unsigned long long)off, type, why);
}

int dat_pread(const struct utrace_dat *d, void *buf, size_t len, uint64_t off,
	      struct utrace_error *err)
{
	char *p = buf;

	/* a progress line's count (utrace_dat_bytes_read): d is shared by
	 * the iterators, whose readers ahead run in threads */
	__atomic_fetch_add(&((struct utrace_dat *)d)->bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
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

uint64_t utrace_dat_bytes_read(const struct utrace_dat *d)
{
	return __atomic_load_n(&d->bytes_read, __ATOMIC_RELAXED);
}

uint64_t utrace_dat_file_size(const struct utrace_dat *d)
{
	return d->file_size;
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

/* The buffer with this id, NULL if no record named it. */
struct dat_buffer *dat_buf_find(const struct utrace_dat *d, uint32_t id)
{
	struct dat_buffer *b;
	size_t s;

	if (!d->buf_hash_size)
		return NULL;
	s = buf_slot(id, d->buf_hash_size);
	while (d->buf_hash[s]) {
		b = &d->buffers[d->buf_hash[s] - 1];
		if (b->info.buf == id)
			return b;
		s = (s + 1) & (d->buf_hash_size - 1);
	}
	return NULL;
}

struct dat_buffer *dat_buf_get(struct utrace_dat *d, uint32_t id)
{
	struct dat_buffer *b = dat_buf_find(d, id);
	size_t s;

	if (b)
		return b;
	if (d->nr_buffers >= UINT32_MAX - 1)
		return NULL;
	if (UTRACE_GROW(d->buffers, d->cap_buffers, d->nr_buffers + 1))
		return NULL;
	b = &d->buffers[d->nr_buffers++];
	memset(b, 0, sizeof(*b));
	d->kmap_stale = true; /* dat_kernel.c's map of tasks to buffers */
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

/* ---- the clock ---- */

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
void dat_clock_prepare(struct utrace_dat *d)
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
		uint64_t ns =
		    (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * d->tsc_mult) >> TSC_SHIFT);

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
