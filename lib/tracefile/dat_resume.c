/* SPDX-License-Identifier: MIT */
/*
 * dat_resume.c - bookmarks: reading a growing file again from where the
 * last reading left its past behind.
 *
 * trace_pipe reads the recording while it is written: each read opens the
 * file as it is now and prints the events after the time the pipe has
 * consumed (lib/tracefs/live_pipe.c).  Decoding every buffer from its first
 * sub-buffer each time costs the whole file per read, so a long stream
 * gets slower and slower.  A bookmark is a decoder cursor's state where
 * one of its buffer's sub-buffers starts (dat_decode.h struct dat_mark):
 * the sub-buffer's index and file offset, the running time, the cpu, the
 * sequence number and the call stack.  An iterator given a
 * utrace_dat_resume starts each buffer at its bookmark instead of its
 * first sub-buffer, and moves the bookmark on as it goes:
 *
 *     sub-buffers:  | k-1 | k        | k+1 ...            (one buffer)
 *     records:        ..e   x ... y    z ...
 *                              since ^
 *
 * A sub-buffer k whose records all lie before `since` (the time from
 * which the reader prints) becomes the bookmark, at its start, not its
 * end: its last ENTRY could fold with the first EXIT of k + 1 into one
 * LEAF line (dat_iter.c) that lies before `since` and so is not printed;
 * read from k + 1, that EXIT would come out alone.  Read from k, an
 * event made of records of k and later is decoded as a whole reading
 * decodes it, and one made of records before k lies before `since`.
 *
 * The frames on the stack at the bookmark are calls that began before
 * `since`: a whole reading gives their ENTRY events and a time filter
 * drops them, so their EXITs come out as returns of calls not shown
 * (UTRACE_EVF_NO_ENTRY, lib/report/report_filter.c).  Restored frames are
 * marked DAT_FRAME_MARKED and their EXITs say so themselves.
 *
 * A bookmark is used only where the file still has the same sub-buffer at
 * the same offset in a buffer of the same thread (the file grows at its
 * end; anything else means another file; a sub-buffer saved again, longer,
 * keeps the offset of its first version: dat_reader.c index_page), and only while `since` does not
 * go back: the resume forgets every bookmark when it does.  The kernel's
 * CPU pages need no bookmark: a page's stamp is its first event's time,
 * and a resumed reading starts each CPU at the pages around `since`
 * (dat_kernel.c dat_kcursor_seek).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefile/dat_decode.h"

/* a deeper stack is not copied at each sub-buffer: no bookmark there */
#define MARK_FRAMES_MAX 4096

struct utrace_dat_resume {
	uint64_t since_ns;
	struct dat_mark *marks; /* by buffer index */
	size_t nr_marks;
};

void dat_mark_fini(struct dat_mark *m)
{
	free(m->frames);
	memset(m, 0, sizeof(*m));
}

static int mark_frames(struct dat_mark *m, const struct dat_frame *f, size_t n)
{
	if (UTRACE_GROW(m->frames, m->cap_frames, n) < 0)
		return -1;
	if (n)
		memcpy(m->frames, f, n * sizeof(*f));
	m->nr_frames = n;
	return 0;
}

/* The state of c between two sub-buffers, the next one about to load. */
void dat_mark_take(const struct dat_cursor *c, struct dat_mark *m)
{
	m->valid = 0;
	if (c->nr_frames > MARK_FRAMES_MAX || c->broken ||
	    mark_frames(m, c->frames, c->nr_frames) < 0)
		return;
	m->tid = c->b->info.tid;
	m->buf = c->b->info.buf;
	m->page = c->next_page;
	m->off = c->b->pages[c->next_page].first;
	m->last_seq = c->last_seq;
	m->have_seq = c->have_seq;
	m->tick = c->tick;
	m->cpu = c->cpu;
	m->base = c->base;
	m->stack = c->stack;
	m->lost_seen = c->lost_seen;
	m->valid = 1;
}

/* c finished a sub-buffer whole: if every record in it lies before
 * keep_before_ns, where it started is the new bookmark. */
void dat_mark_keep(struct dat_cursor *c)
{
	struct dat_mark *k = c->keep, *s = &c->start;
	struct dat_frame *frames = k->frames;
	size_t cap = k->cap_frames;

	if (!s->valid || c->broken || dat_tsc_ns(c->d, c->tick) >= c->keep_before_ns)
		return;
	*k = *s; /* then k's own copy of the frames */
	k->frames = frames;
	k->cap_frames = cap;
	if (mark_frames(k, s->frames, s->nr_frames) < 0)
		k->valid = 0;
}

/* Starts c at bookmark m if m is one of c's buffer in this file: 1, else
 * 0 (c untouched). */
int dat_cursor_restore(struct dat_cursor *c, const struct dat_mark *m)
{
	if (!m->valid || m->tid != c->b->info.tid || m->buf != c->b->info.buf ||
	    m->page >= c->b->nr_pages || c->b->pages[m->page].first != m->off)
		return 0;
	if (UTRACE_GROW(c->frames, c->cap_frames, m->nr_frames) < 0)
		return 0;
	for (size_t i = 0; i < m->nr_frames; i++) {
		c->frames[i] = m->frames[i];
		c->frames[i].known |= DAT_FRAME_MARKED;
	}
	c->nr_frames = m->nr_frames;
	c->nr_stacks = 0; /* a coroutine's frames are not in the bookmark */
	c->next_page = m->page;
	c->last_seq = m->last_seq;
	c->have_seq = m->have_seq;
	c->tick = m->tick;
	c->cpu = m->cpu;
	c->base = m->base;
	c->stack = m->stack;
	c->lost_seen = m->lost_seen;
	return 1;
}

int utrace_dat_resume_new(struct utrace_dat_resume **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

void utrace_dat_resume_free(struct utrace_dat_resume *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->nr_marks; i++)
		dat_mark_fini(&rs->marks[i]);
	free(rs->marks);
	free(rs);
}

/* The bookmarks of buffers 0 to n - 1 for a reading from since_ns (the
 * array moves when it grows: take it once per reading), NULL if out of
 * memory; every bookmark forgotten if since_ns went back. */
struct dat_mark *dat_resume_marks(struct utrace_dat_resume *rs, size_t n, uint64_t since_ns)
{
	if (since_ns < rs->since_ns)
		for (size_t k = 0; k < rs->nr_marks; k++)
			rs->marks[k].valid = 0;
	rs->since_ns = since_ns;
	if (UTRACE_GROW_ZERO(rs->marks, rs->nr_marks, n) < 0)
		return NULL;
	return rs->marks;
}
