/* SPDX-License-Identifier: MIT */
/*
 * dat_ahead.c - the buffers of a utrace.dat decoded ahead, in parallel.
 *
 * Design: the trace is per thread, so each buffer's records decode on
 * their own (a cursor's call stack, page and look-ahead are its own) and
 * only the merge by time needs them all.  Worker threads, as many as the
 * cores (at most one a cursor), each own some cursors and decode their
 * events into a queue per cursor of DAT_AHEAD_BATCHES batches of
 * BATCH events; the iterator (dat_iter.c) merges from the queues as it
 * merged from the cursors.  A worker stops when all its cursors' queues
 * are full and goes on when the iterator frees a batch, so memory stays
 * bounded (a few hundred KB a cursor) whatever the file's size.
 *
 * Everything the iterator gives is what it gave decoding itself, in the
 * same order: the events (a payload is copied into its batch, since the
 * page it lay in is gone by then), the end or the error that ended a
 * cursor (with its message), and the damaged sub-buffers each worker met
 * (counted per cursor and added to the iterator's count when the event
 * after them is taken, as they were counted then).  Only the iterator
 * thread touches a cursor's merge state; a worker touches only its own
 * cursors' decoders, and the file through pread.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefile/dat_ahead.h"

#define BATCH 256
#define DAT_AHEAD_BATCHES 8
#define MAX_WARN 8
/* A sleeping worker is woken when this many of its queue's batches are
 * free, not at each one: a wake-up costs more than a batch's decoding. */
#define WAKE_FREE (DAT_AHEAD_BATCHES / 2)
/* The iterator waits for a batch spinning this many times (a batch takes
 * some microseconds to decode) before it sleeps. */
#define SPIN 4000

struct warn_at {
	uint32_t pos; /* counted before event pos of the batch is taken */
	uint64_t count, unread, unknown;
};

struct batch {
	struct utrace_event ev[BATCH];
	uint32_t n;
	int status; /* after the n events: 1 more follow, 0 the end, <0 err */
	struct utrace_error err;
	uint8_t *data; /* the payloads; an event's data is an offset into it */
	size_t cap_data, used;
	struct warn_at warn[MAX_WARN];
	uint32_t nr_warn;
};

struct worker;

struct queue {
	size_t cursor;
	struct worker *w;
	struct batch *b; /* DAT_AHEAD_BATCHES of them */
	size_t head, tail; /* batches taken / given (atomics) */
	int done;	   /* the last batch is given (the worker's) */
	/* the iterator's side */
	int holding; /* reading b[head % DAT_AHEAD_BATCHES] */
	uint32_t pos, wi;
	/* the worker's side */
	struct dat_warnings warn;
	uint64_t given; /* warn.count already put into a batch */
};

struct worker {
	struct dat_ahead *a;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t work, ready;
	int go, stop, sleeping, waiting;
	struct queue **q;
	size_t nq;
};

struct dat_ahead {
	dat_ahead_fill fill;
	void *ctx;
	struct queue *qs;
	size_t nq;
	size_t *map; /* cursor -> queue + 1, 0: not decoded ahead */
	size_t nr_map;
	struct worker *w;
	size_t nw, started;
};

static const uint8_t no_data[1];

/* One event's payload into the batch: its offset stands for the pointer
 * until the event is taken (the arena may move as it grows). */
static int keep_data(struct batch *b, struct utrace_event *ev)
{
	if (!ev->data_len) {
		ev->data = NULL;
		return 0;
	}
	if (UTRACE_GROW(b->data, b->cap_data, b->used + ev->data_len) < 0)
		return -ENOMEM;
	memcpy(b->data + b->used, ev->data, ev->data_len);
	ev->data = (const void *)(uintptr_t)b->used;
	b->used += ev->data_len;
	return 0;
}

/* The warnings counted since the last batch position that had some. */
static void note_warnings(struct queue *q, struct batch *b)
{
	struct warn_at *w = &b->warn[b->nr_warn++];

	w->pos = b->n;
	w->count = q->warn.count - q->given;
	w->unread = q->warn.unread;
	w->unknown = q->warn.unread_unknown;
	q->given = q->warn.count;
	q->warn.unread = 0;
	q->warn.unread_unknown = 0;
}

/* Fills the producer's batch (no lock: the iterator reads other ones). */
static void fill_batch(struct dat_ahead *a, struct queue *q)
{
	struct batch *b = &q->b[q->tail % DAT_AHEAD_BATCHES];
	int ret = 1;

	b->n = b->nr_warn = 0;
	b->used = 0;
	while (b->n < BATCH && b->nr_warn < MAX_WARN) {
		struct utrace_event *ev = &b->ev[b->n];

		ret = a->fill(a->ctx, q->cursor, ev, &q->warn, &b->err);
		if (q->warn.count != q->given)
			note_warnings(q, b);
		if (ret > 0 && keep_data(b, ev) < 0)
			ret = utrace_error_set(&b->err, -ENOMEM, "out of memory");
		if (ret <= 0)
			break;
		b->n++;
	}
	b->status = ret > 0 ? 1 : ret;
	q->done = ret <= 0;
	/* given; the lock only to wake the iterator if it sleeps (it says
	 * so before it looks at tail: one of the two sees the other) */
	__atomic_store_n(&q->tail, q->tail + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->w->waiting, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&q->w->lock);
		pthread_cond_broadcast(&q->w->ready);
		pthread_mutex_unlock(&q->w->lock);
	}
}

/* A queue of w with room, or NULL; 1 in *all_done when none will have. */
static struct queue *queue_with_room(struct worker *w, int *all_done)
{
	*all_done = 1;
	for (size_t i = 0; i < w->nq; i++) {
		struct queue *q = w->q[i];

		if (q->done)
			continue;
		*all_done = 0;
		if (q->tail - __atomic_load_n(&q->head, __ATOMIC_SEQ_CST) < DAT_AHEAD_BATCHES)
			return q;
	}
	return NULL;
}

/* The next queue to fill, sleeping while none has room; NULL to end. */
static struct queue *wait_for_room(struct worker *w)
{
	struct queue *q = NULL;
	int all_done = 0;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (w->go) {
			/* said before looking at head: see dat_ahead_next */
			__atomic_store_n(&w->sleeping, 1, __ATOMIC_SEQ_CST);
			q = queue_with_room(w, &all_done);
			if (q || all_done)
				break;
		}
		pthread_cond_wait(&w->work, &w->lock);
	}
	__atomic_store_n(&w->sleeping, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&w->lock);
	return q;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct queue *q;
	int all_done;

	while ((q = wait_for_room(w)))
		do
			fill_batch(w->a, q);
		while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) &&
		       (q = queue_with_room(w, &all_done)));
	return NULL;
}

static int alloc_queues(struct dat_ahead *a, const size_t *idx, size_t n)
{
	size_t max = 0;

	for (size_t i = 0; i < n; i++)
		max = idx[i] + 1 > max ? idx[i] + 1 : max;
	a->qs = calloc(n, sizeof(*a->qs));
	a->map = calloc(max, sizeof(*a->map));
	a->w = calloc(a->nw, sizeof(*a->w));
	if (!a->qs || !a->map || !a->w)
		return -ENOMEM;
	a->nr_map = max;
	for (size_t i = 0; i < a->nw; i++) {
		a->w[i].q = calloc(n / a->nw + 1, sizeof(*a->w[i].q));
		if (!a->w[i].q)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct queue *q = &a->qs[a->nq++];
		struct worker *w = &a->w[i % a->nw];

		q->b = calloc(DAT_AHEAD_BATCHES, sizeof(*q->b));
		if (!q->b)
			return -ENOMEM;
		q->cursor = idx[i];
		q->w = w;
		w->q[w->nq++] = q;
		a->map[idx[i]] = i + 1;
	}
	return 0;
}

/* The threads, made with every signal blocked (the command's handlers
 * stay the main thread's), held until all are made. */
static int start_workers(struct dat_ahead *a)
{
	sigset_t all, old;
	int ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < a->nw; i++) {
		struct worker *w = &a->w[i];

		w->a = a;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->work, NULL);
		pthread_cond_init(&w->ready, NULL);
		if (pthread_create(&w->th, NULL, worker_main, w)) {
			pthread_mutex_destroy(&w->lock);
			pthread_cond_destroy(&w->work);
			pthread_cond_destroy(&w->ready);
			ret = -EAGAIN;
			break;
		}
		a->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static unsigned max_workers; /* utrace_dat_read_threads() */

void utrace_dat_read_threads(unsigned n)
{
	max_workers = n;
}

struct dat_ahead *dat_ahead_start(dat_ahead_fill fill, void *ctx, const size_t *idx, size_t n)
{
	struct dat_ahead *a;

	if (!max_workers || !n || n > DAT_AHEAD_MAX_CURSORS)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->fill = fill;
	a->ctx = ctx;
	a->nw = max_workers < n ? max_workers : n;
	if (alloc_queues(a, idx, n) < 0 || start_workers(a) < 0) {
		dat_ahead_stop(a); /* no worker has touched a cursor */
		return NULL;
	}
	for (size_t i = 0; i < a->nw; i++) {
		pthread_mutex_lock(&a->w[i].lock);
		a->w[i].go = 1;
		pthread_cond_signal(&a->w[i].work);
		pthread_mutex_unlock(&a->w[i].lock);
	}
	return a;
}

int dat_ahead_has(const struct dat_ahead *a, size_t i)
{
	return a && i < a->nr_map && a->map[i];
}

/* The warnings counted before event q->pos of b, into *warn. */
static void take_warnings(struct queue *q, const struct batch *b, struct dat_warnings *warn)
{
	for (; q->wi < b->nr_warn && b->warn[q->wi].pos == q->pos; q->wi++) {
		const struct warn_at *w = &b->warn[q->wi];

		if (!warn->count && w->count)
			memcpy(warn->first, q->warn.first, sizeof(warn->first));
		warn->count += w->count;
		warn->unread += w->unread;
		warn->unread_unknown += w->unknown;
	}
}

int dat_ahead_next(struct dat_ahead *a, size_t i, struct utrace_event *ev,
		   struct dat_warnings *warn, struct utrace_error *err)
{
	struct queue *q = &a->qs[a->map[i] - 1];
	struct worker *w = q->w;
	struct batch *b;

	if (q->holding) {
		b = &q->b[q->head % DAT_AHEAD_BATCHES];
		if (q->pos < b->n || b->status != 1)
			goto take;
		/* used up: back to the worker, woken if it sleeps and the
		 * queue has WAKE_FREE free batches */
		__atomic_store_n(&q->head, q->head + 1, __ATOMIC_SEQ_CST);
		q->holding = 0;
		if (__atomic_load_n(&w->sleeping, __ATOMIC_SEQ_CST) &&
		    __atomic_load_n(&q->tail, __ATOMIC_SEQ_CST) - q->head <=
			DAT_AHEAD_BATCHES - WAKE_FREE) {
			pthread_mutex_lock(&w->lock);
			pthread_cond_signal(&w->work);
			pthread_mutex_unlock(&w->lock);
		}
	}
	for (int n = 0; n < SPIN && __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) == q->head; n++)
		__builtin_ia32_pause();
	if (__atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) == q->head) {
		pthread_mutex_lock(&w->lock);
		__atomic_store_n(&w->waiting, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&q->tail, __ATOMIC_SEQ_CST) == q->head)
			pthread_cond_wait(&w->ready, &w->lock);
		__atomic_store_n(&w->waiting, 0, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&w->lock);
	}
	q->holding = 1;
	q->pos = q->wi = 0;
	b = &q->b[q->head % DAT_AHEAD_BATCHES];
take:
	take_warnings(q, b, warn);
	if (q->pos == b->n) {
		if (b->status < 0)
			*err = b->err;
		return b->status;
	}
	*ev = b->ev[q->pos++];
	ev->data = ev->data_len ? b->data + (uintptr_t)ev->data : no_data;
	return 1;
}

void dat_ahead_stop(struct dat_ahead *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->started; i++) {
		pthread_mutex_lock(&a->w[i].lock);
		__atomic_store_n(&a->w[i].stop, 1, __ATOMIC_RELEASE);
		pthread_cond_signal(&a->w[i].work);
		pthread_mutex_unlock(&a->w[i].lock);
	}
	for (size_t i = 0; i < a->started; i++) {
		pthread_join(a->w[i].th, NULL);
		pthread_mutex_destroy(&a->w[i].lock);
		pthread_cond_destroy(&a->w[i].work);
		pthread_cond_destroy(&a->w[i].ready);
	}
	for (size_t i = 0; a->qs && i < a->nq; i++) {
		for (size_t j = 0; a->qs[i].b && j < DAT_AHEAD_BATCHES; j++)
			free(a->qs[i].b[j].data);
		free(a->qs[i].b);
	}
	for (size_t i = 0; a->w && i < a->nw; i++)
		free(a->w[i].q);
	free(a->w);
	free(a->qs);
	free(a->map);
	free(a);
}
