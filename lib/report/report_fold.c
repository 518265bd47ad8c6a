/* SPDX-License-Identifier: MIT */
/*
 * report_fold.c - calls at the depth limit as one line (report_fold.h).
 *
 *   stream:  A:f() entry   B:x   B:y   A:f() exit   B:z
 *   queue:   [A:f pending][B:x][B:y]  -> exit of A at f's depth:
 *            [A:f() LEAF ][B:x][B:y]  -> all of it goes out, then B:z
 *
 * Events leave the queue from its front, and only while the front is not
 * a pending ENTRY: order is kept.  A pending ENTRY is settled by the next
 * event of its own buffer that passes (its EXIT at its depth folds it;
 * anything else lets it through as an ENTRY), by the end of the stream,
 * or by the queue filling up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report_fold.h"

void report_fold_reset(struct report_fold *f, uint32_t max_depth)
{
	f->max_depth = max_depth;
	f->head = f->n = 0;
	f->done = false;
}

void report_fold_free(struct report_fold *f)
{
	for (uint32_t i = 0; f->q && i < FOLD_MAX; i++)
		free(f->q[i].data);
	free(f->q);
	f->q = NULL;
}

static struct fold_slot *slot(struct report_fold *f, uint32_t i)
{
	return &f->q[(f->head + i) % FOLD_MAX];
}

/* The pending ENTRY of buffer buf, if it is that buffer's last event in
 * the queue (only then can the next one settle it). */
static struct fold_slot *pending_of(struct report_fold *f, uint32_t buf)
{
	for (uint32_t i = f->n; i-- > 0;) {
		struct fold_slot *s = slot(f, i);

		if (s->ev.buf == buf)
			return s->pending ? s : NULL;
	}
	return NULL;
}

static int push(struct report_fold *f, const struct utrace_event *ev, bool pending)
{
	struct fold_slot *s = slot(f, f->n);

	s->ev = *ev;
	s->pending = pending;
	if (ev->data && ev->data_len) {
		if (ev->data_len > s->cap) {
			void *p = realloc(s->data, ev->data_len);

			if (!p)
				return -ENOMEM;
			s->data = p;
			s->cap = ev->data_len;
		}
		memcpy(s->data, ev->data, ev->data_len);
		s->ev.data = s->data;
	}
	f->n++;
	return 0;
}

/* Takes one event from the stream into the queue; 0 at its end. */
static int take(struct report_fold *f, report_fold_pull pull, void *arg, struct utrace_error *err)
{
	struct utrace_event ev;
	struct fold_slot *p;
	int ret = pull(arg, &ev, err);

	if (ret <= 0)
		return ret;
	p = pending_of(f, ev.buf);
	if (p && ev.kind == UTRACE_EV_EXIT && ev.depth == p->ev.depth &&
	    !(ev.flags & (UTRACE_EVF_NO_DURATION | UTRACE_EVF_NO_ENTRY))) {
		p->ev.kind = UTRACE_EV_LEAF;
		p->ev.duration = ev.duration;
		p->pending = false;
		return 1;
	}
	if (p)
		p->pending = false;
	ret = push(f, &ev,
		   ev.kind == UTRACE_EV_ENTRY && f->max_depth && ev.depth + 1 == f->max_depth);
	return ret < 0 ? utrace_error_set(err, ret, "out of memory") : 1;
}

int report_fold_next(struct report_fold *f, report_fold_pull pull, void *arg,
		     struct utrace_event *out, struct utrace_error *err)
{
	int ret;

	if (!f->q && !(f->q = calloc(FOLD_MAX, sizeof(*f->q))))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (;;) {
		if (f->n && !slot(f, 0)->pending) {
			*out = slot(f, 0)->ev;
			f->head = (f->head + 1) % FOLD_MAX;
			f->n--;
			return 1;
		}
		if (f->n == FOLD_MAX) { /* full: the oldest pending goes as it is */
			slot(f, 0)->pending = false;
			continue;
		}
		if (f->done) {
			if (!f->n)
				return 0;
			slot(f, 0)->pending = false; /* the stream ended: no EXIT came */
			continue;
		}
		ret = take(f, pull, arg, err);
		if (ret < 0)
			return ret;
		if (ret == 0)
			f->done = true;
	}
}
