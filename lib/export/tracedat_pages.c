/* SPDX-License-Identifier: MIT */
/*
 * tracedat_pages.c - the ring-buffer pages of a trace.dat being converted
 * (lib/export/tracedat_internal.h): one stream of kernel pages per CPU,
 * records appended, full pages written where their CPU's stream lies.
 *
 * Design.  A trace.dat holds one stream of kernel ring-buffer pages per
 * CPU, each stream in time order.  utrace's events come from the reader
 * already merged by time, each naming the CPU its thread ran on, so every
 * event is appended to the page of its CPU; a full page goes to the file
 * and a new one starts.  The page header holds the absolute time of its
 * first record; each record's 27-bit time_delta is relative to the record
 * before it, with a TIME_EXTEND record in front when the gap does not fit.
 * The first pass only counts the pages; the second writes each with
 * pwrite() at its CPU's offset.  A page after lost events carries the
 * kernel's flags (commit bit 31, and bit 30 with the count stored after
 * the records).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/export/tracedat_internal.h"

struct stream *tracedat_get_stream(struct conv *c, uint32_t cpu)
{
	if (cpu >= MAX_CPUS) {
		utrace_error_set(c->err, -ERANGE, "%s: an event names cpu %u, more than %u",
				 utrace_dat_path(c->d), cpu, MAX_CPUS);
		return NULL;
	}
	if (cpu >= c->nr_s) {
		struct stream **v;

		if (c->pass == 2) {
			tracedat_changed(c);
			return NULL;
		}
		v = realloc(c->s, (cpu + 1) * sizeof(*v));
		if (!v) {
			tracedat_nomem(c);
			return NULL;
		}
		memset(v + c->nr_s, 0, (cpu + 1 - c->nr_s) * sizeof(*v));
		c->s = v;
		c->nr_s = cpu + 1;
	}
	if (!c->s[cpu]) {
		if (c->pass == 2) {
			tracedat_changed(c);
			return NULL;
		}
		c->s[cpu] = calloc(1, sizeof(**c->s));
		if (!c->s[cpu])
			tracedat_nomem(c);
	}
	return c->s[cpu];
}

int tracedat_flush_page(struct conv *c, struct stream *s)
{
	uint64_t commit = s->used | s->flags;

	if (s->flags & MISSING_STORED)
		memcpy(s->page + PAGE_HDR + s->used, &s->lost, sizeof(s->lost));
	memcpy(s->page + 8, &commit, sizeof(commit));
	if (c->pass == 2) {
		off_t at = (off_t)(s->file_off + s->pages * PAGE);
		size_t done = 0;

		if (s->pages >= s->planned)
			return tracedat_changed(c);
		while (done < PAGE) {
			ssize_t n = pwrite(c->fd, s->page + done, PAGE - done, at + (off_t)done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return utrace_error_set(c->err, n < 0 ? -errno : -EIO,
							"%s: cannot write: %s", c->path,
							strerror(n < 0 ? errno : EIO));
			done += (size_t)n;
		}
		c->st->pages++;
	}
	s->pages++;
	s->used = 0;
	memset(s->page, 0, PAGE);
	return 0;
}

static void start_page(struct stream *s, uint64_t ts)
{
	memcpy(s->page, &ts, sizeof(ts));
	s->flags = 0;
	if (s->pend) {
		s->flags = MISSING_EVENTS | (s->pend_unknown ? 0 : MISSING_STORED);
		s->lost = s->pend_lost;
		s->pend = s->pend_unknown = false;
		s->pend_lost = 0;
	}
}

/* The first word of a record: type_len:5, time_delta:27 as a bitfield. */
static void put_word(unsigned char *p, uint32_t type_len, uint32_t delta)
{
	uint32_t w;

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		w = type_len << TS_BITS | delta;
	else
		w = delta << 5 | type_len;
	memcpy(p, &w, sizeof(w));
}

/* Appends one record of len bytes to cpu's page at time ts. */
int tracedat_put_record(struct conv *c, uint32_t cpu, uint64_t ts, const void *data, uint32_t len)
{
	struct stream *s = tracedat_get_stream(c, cpu);
	uint32_t size = (len + 3) & ~3u, need, ext;
	uint64_t delta = 0;
	unsigned char *p;
	int ret;

	if (!s)
		return c->err->code;
	if (ts < s->last_ts) {
		ts = s->last_ts;
		if (c->pass == 2)
			c->st->clamped++;
	}
	need = 4 + size + (size > TYPE_DATA_MAX * 4 ? 4 : 0);
	if (s->used) {
		delta = ts - s->last_ts;
		ext = delta >> TS_BITS ? 8 : 0;
		if (delta >> (TS_BITS + 32) ||
		    s->used + ext + need > PAGE_DATA - (s->flags & MISSING_STORED ? 8 : 0)) {
			ret = tracedat_flush_page(c, s);
			if (ret < 0)
				return ret;
		}
	}
	if (!s->used) {
		start_page(s, ts);
		delta = 0;
		if (need > PAGE_DATA - 8)
			return utrace_error_set(c->err, -EINVAL,
						"%s: a record of %u bytes does not fit a page",
						c->path, len);
	}
	p = s->page + PAGE_HDR + s->used;
	if (delta >> TS_BITS) {
		uint32_t hi = (uint32_t)(delta >> TS_BITS);

		put_word(p, TYPE_TIME_EXTEND, (uint32_t)delta & ((1u << TS_BITS) - 1));
		memcpy(p + 4, &hi, sizeof(hi));
		p += 8;
		s->used += 8;
		delta = 0;
	}
	if (size <= TYPE_DATA_MAX * 4) {
		put_word(p, size / 4, (uint32_t)delta);
		p += 4;
	} else {
		uint32_t n = size + 4;

		put_word(p, 0, (uint32_t)delta);
		memcpy(p + 4, &n, sizeof(n));
		p += 8;
	}
	memcpy(p, data, len);
	s->used += need;
	s->last_ts = ts;
	if (ts != c->now.ts) {
		c->now.ts = ts;
		c->now.cpu = cpu;
		c->now.multi = false;
	} else if (cpu != c->now.cpu) {
		c->now.multi = true;
	}
	if (c->pass == 2)
		c->st->events++;
	return 0;
}
