/* SPDX-License-Identifier: MIT */
/*
 * tracedat_pages.c - the ring-buffer pages of a trace.dat being converted
 * (lib/export/tracedat_pages.h): one stream of kernel pages per CPU,
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
#include "lib/export/tracedat_pages.h"

#define TS_BITS 27
#define TYPE_DATA_MAX 28 /* type_len of the longest record without a length word */
#define TYPE_TIME_EXTEND 30
#define MISSING_EVENTS (1ull << 31)
#define MISSING_STORED (1ull << 30)

struct stream {
	unsigned char page[PAGE];
	uint32_t used;		 /* bytes of records after the page header */
	uint64_t flags;		 /* MISSING_* of this page */
	uint64_t lost;		 /* stored after the records if MISSING_STORED */
	uint64_t last_ts;	 /* time of the last record */
	uint64_t pages;		 /* pages finished */
	uint64_t planned;	 /* second pass: the pages the first one counted */
	uint64_t file_off;	 /* second pass: where the stream starts */
	bool pend, pend_unknown; /* losses to flag on the next page */
	uint64_t pend_lost;
};

struct tracedat_pages {
	struct utrace_dat *d;
	const char *path; /* the output */
	int pass;	  /* 1: lay out, 2: write */
	int fd;
	struct stream **s; /* by CPU, NULL for CPUs without events */
	uint32_t nr_s;
	struct {
		uint64_t ts;
		uint32_t cpu;
		bool multi; /* records of several CPUs at ts */
	} now;		    /* the time of the last record written */
	struct utrace_tracedat_stats *st;
	struct utrace_error *err;
};

struct tracedat_pages *tracedat_pages_new(struct utrace_dat *d, const char *path,
					  struct utrace_tracedat_stats *st,
					  struct utrace_error *err)
{
	struct tracedat_pages *p = calloc(1, sizeof(*p));

	if (!p) {
		tracedat_nomem(d, err);
		return NULL;
	}
	*p = (struct tracedat_pages){
	    .d = d, .path = path, .pass = 1, .fd = -1, .st = st, .err = err};
	return p;
}

void tracedat_pages_free(struct tracedat_pages *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nr_s; i++)
		free(p->s[i]);
	free(p->s);
	free(p);
}

static struct stream *get_stream(struct tracedat_pages *pg, uint32_t cpu)
{
	if (cpu >= MAX_CPUS) {
		utrace_error_set(pg->err, -ERANGE, "%s: an event names cpu %u, more than %u",
				 utrace_dat_path(pg->d), cpu, MAX_CPUS);
		return NULL;
	}
	if (cpu >= pg->nr_s) {
		struct stream **v;

		if (pg->pass == 2) {
			tracedat_changed(pg->d, pg->err);
			return NULL;
		}
		v = realloc(pg->s, (cpu + 1) * sizeof(*v));
		if (!v) {
			tracedat_nomem(pg->d, pg->err);
			return NULL;
		}
		memset(v + pg->nr_s, 0, (cpu + 1 - pg->nr_s) * sizeof(*v));
		pg->s = v;
		pg->nr_s = cpu + 1;
	}
	if (!pg->s[cpu]) {
		if (pg->pass == 2) {
			tracedat_changed(pg->d, pg->err);
			return NULL;
		}
		pg->s[cpu] = calloc(1, sizeof(**pg->s));
		if (!pg->s[cpu])
			tracedat_nomem(pg->d, pg->err);
	}
	return pg->s[cpu];
}

static int flush_page(struct tracedat_pages *pg, struct stream *s)
{
	uint64_t commit = s->used | s->flags;

	if (s->flags & MISSING_STORED)
		memcpy(s->page + PAGE_HDR + s->used, &s->lost, sizeof(s->lost));
	memcpy(s->page + 8, &commit, sizeof(commit));
	if (pg->pass == 2) {
		off_t at = (off_t)(s->file_off + s->pages * PAGE);
		size_t done = 0;

		if (s->pages >= s->planned)
			return tracedat_changed(pg->d, pg->err);
		while (done < PAGE) {
			ssize_t n = pwrite(pg->fd, s->page + done, PAGE - done, at + (off_t)done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return utrace_error_set(pg->err, n < 0 ? -errno : -EIO,
							"%s: cannot write: %s", pg->path,
							strerror(n < 0 ? errno : EIO));
			done += (size_t)n;
		}
		pg->st->pages++;
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
int tracedat_pages_put(struct tracedat_pages *pg, uint32_t cpu, uint64_t ts, const void *data,
		       uint32_t len)
{
	struct stream *s = get_stream(pg, cpu);
	uint32_t size = (len + 3) & ~3u, need, ext;
	uint64_t delta = 0;
	unsigned char *p;
	int ret;

	if (!s)
		return pg->err->code;
	if (ts < s->last_ts) {
		ts = s->last_ts;
		if (pg->pass == 2)
			pg->st->clamped++;
	}
	need = 4 + size + (size > TYPE_DATA_MAX * 4 ? 4 : 0);
	if (s->used) {
		delta = ts - s->last_ts;
		ext = delta >> TS_BITS ? 8 : 0;
		if (delta >> (TS_BITS + 32) ||
		    s->used + ext + need > PAGE_DATA - (s->flags & MISSING_STORED ? 8 : 0)) {
			ret = flush_page(pg, s);
			if (ret < 0)
				return ret;
		}
	}
	if (!s->used) {
		start_page(s, ts);
		delta = 0;
		if (need > PAGE_DATA - 8)
			return utrace_error_set(pg->err, -EINVAL,
						"%s: a record of %u bytes does not fit a page",
						pg->path, len);
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
	if (ts != pg->now.ts) {
		pg->now.ts = ts;
		pg->now.cpu = cpu;
		pg->now.multi = false;
	} else if (cpu != pg->now.cpu) {
		pg->now.multi = true;
	}
	if (pg->pass == 2)
		pg->st->events++;
	return 0;
}

int tracedat_pages_lost(struct tracedat_pages *pg, uint32_t cpu, bool unknown, uint64_t n)
{
	struct stream *s = get_stream(pg, cpu);
	int ret;

	if (!s)
		return pg->err->code;
	if (s->used && (ret = flush_page(pg, s)) < 0)
		return ret;
	s->pend = true;
	if (unknown)
		s->pend_unknown = true;
	else
		s->pend_lost += n;
	if (pg->pass == 2) {
		if (unknown)
			pg->st->lost_unknown++;
		else
			pg->st->lost += n;
	}
	return 0;
}

bool tracedat_pages_after_loss(const struct tracedat_pages *p, uint32_t cpu)
{
	const struct stream *s = cpu < p->nr_s ? p->s[cpu] : NULL;

	return s && s->pend && !s->used;
}

bool tracedat_pages_tie(const struct tracedat_pages *p, uint32_t cpu, uint64_t ts)
{
	return p->now.ts == ts && (p->now.multi || p->now.cpu != cpu);
}

int tracedat_pages_finish(struct tracedat_pages *p)
{
	int ret = 0;

	for (uint32_t i = 0; ret == 0 && i < p->nr_s; i++)
		if (p->s[i] && p->s[i]->used)
			ret = flush_page(p, p->s[i]);
	return ret;
}

uint32_t tracedat_pages_nr_cpus(const struct tracedat_pages *p)
{
	return p->nr_s;
}

uint64_t tracedat_pages_count(const struct tracedat_pages *p, uint32_t cpu)
{
	return cpu < p->nr_s && p->s[cpu] ? p->s[cpu]->pages : 0;
}

uint64_t tracedat_pages_place(struct tracedat_pages *p, int fd, uint64_t off)
{
	for (uint32_t i = 0; i < p->nr_s; i++) {
		struct stream *s = p->s[i];

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
	memset(&p->now, 0, sizeof(p->now));
	p->fd = fd;
	p->pass = 2;
	return off;
}

int tracedat_pages_check(struct tracedat_pages *p)
{
	for (uint32_t i = 0; i < p->nr_s; i++)
		if (p->s[i] && p->s[i]->pages != p->s[i]->planned)
			return tracedat_changed(p->d, p->err);
	return 0;
}
