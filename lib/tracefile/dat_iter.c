/* SPDX-License-Identifier: MIT */
/*
 * dat_iter.c - the events of every buffer of a utrace.dat, merged by time.
 *
 * Design: one decoder cursor per buffer (dat_decode.c) and a binary heap
 * of the cursors keyed by the time of their next event (ties: the lower
 * buffer index first), like a k-way merge of the kernel's per-cpu
 * buffers.  A cursor that has not started yet sits in the heap keyed by
 * its first sub-buffer's time stamp, a lower bound of its first event, and
 * reads nothing until it reaches the top; a cursor that is done frees its
 * page, so only the buffers live at one moment hold a sub-buffer in memory.
 *
 * The kernel's per-CPU pages (KPAGE records) have a cursor each too
 * (dat_kernel.c), in the same heap, after the buffers on ties: their
 * events come out already converted to ns, so the merge interleaves user
 * and kernel records by time.
 *
 * A nested context's buffer (what a signal handler recorded while it had
 * interrupted the tracer, common/rb_abi.h) has a cursor of its own too;
 * its events come out as the thread's, one call level inside the function
 * the thread was in at that moment, as the kernel prints an interrupt
 * inside the function it interrupted.
 *
 * Each cursor looks one record ahead (dat_cursor_event, dat_decode.c): an
 * ENTRY immediately followed by its own EXIT becomes one LEAF event, as
 * the kernel's function_graph output folds "func();" lines.  Times are
 * converted from ticks to ns only there; a duration is the difference of
 * the converted times.
 *
 * With a utrace_dat_resume (dat_resume.c) the buffers' cursors start at
 * their bookmarks, and move them on; the kernel CPUs' cursors start at
 * the first page that may hold an event at or after the time resumed
 * from (their pages' stamps, dat_kernel.c dat_kcursor_seek).
 *
 * Otherwise, when the process allows it (utrace_dat_read_threads), from
 * the first event on worker threads decode the buffers ahead, in
 * parallel (dat_ahead.c): a buffer cursor's next event then
 * comes out of its queue instead of its decoder, and the merge is as
 * above.  The kernel's cursors are read here, as they are merged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/rb_abi.h"
#include "lib/base/grow.h"
#include "lib/tracefile/dat_ahead.h"
#include "lib/tracefile/dat_kernel.h"

struct iter_cursor {
	struct dat_cursor dc;
	struct dat_kcursor *kc; /* a kernel CPU's cursor instead of dc */
	size_t order;		/* ties: buffers first, then the kernel CPUs */
	int started;
	int done;
	int empty; /* started out of turn and found nothing: pop when on top */
	uint64_t key;
	struct utrace_event *head; /* the next event: the decoder's (dc.slot) or own */
	struct utrace_event own;   /* a kernel cursor's, or the workers' */
};

struct utrace_dat_iter {
	struct utrace_dat *d;
	int nested; /* some buffer is a nested context's */
	/* a cursor per buffer that has pages, in buffer order, then one per
	 * kernel CPU: a buffer of a kernel task has none (thousands of them
	 * in a system-wide recording of short processes, all made and freed
	 * at every live reading) */
	struct iter_cursor *curs;
	size_t nr_curs, nr_bufcurs;
	uint32_t *pos; /* by buffer index: its cursor's index + 1, 0 none */
	struct iter_cursor **heap;
	size_t nr_heap;
	struct dat_warnings warn;
	uint8_t *out; /* the emitted event's data: its page may be gone */
	size_t cap_out;
	struct dat_ahead *ahead; /* the buffers decoded by workers (dat_ahead.c) */
	int ahead_tried;	 /* decided at the first event */
	int resumed;		 /* bookmarks move as the cursors go: no workers */
	/* the event given out last is the head of the cursor on top: it
	 * moves on at the next call, so the event is given out in place */
	int taken;
	struct utrace_event scratch; /* an event given out changed: a copy */
};

static int before(const struct iter_cursor *a, const struct iter_cursor *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->order < b->order;
}

static void sift_down(struct utrace_dat_iter *it, size_t i)
{
	struct iter_cursor **h = it->heap;
	size_t n = it->nr_heap;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct iter_cursor *t;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (r < n && before(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_pop(struct utrace_dat_iter *it)
{
	dat_cursor_fini(&it->heap[0]->dc);
	dat_kcursor_free(it->heap[0]->kc);
	it->heap[0]->kc = NULL;
	it->heap[0]->done = 1;
	it->heap[0] = it->heap[--it->nr_heap];
	if (it->nr_heap)
		sift_down(it, 0);
}

static inline uint64_t ns(const struct utrace_dat *d, uint64_t tick)
{
	return dat_tsc_ns(d, tick);
}

/* What the decoder does not set, the same for every event of a buffer:
 * set once in both slots. */
static void slots_init(struct iter_cursor *c)
{
	const struct utrace_dat_buffer_info *bi = &c->dc.b->info;

	for (int i = 0; i < 2; i++) {
		struct utrace_event *ev = &c->dc.slot[i].ev;

		ev->buf = c->dc.bufidx;
		ev->image = bi->image;
		ev->pid = bi->pid;
		ev->tid = bi->tid;
		ev->ctx_flags = ev->ctx_preempt = ev->has_ctx = 0;
	}
}

/* dat_ahead_fill: cursor i's next event, its warnings into warn */
static int ahead_fill(void *ctx, size_t i, struct utrace_event *ev, struct dat_warnings *warn,
		      struct utrace_error *err)
{
	struct utrace_dat_iter *it = ctx;
	struct iter_cursor *c = &it->curs[i];
	int ret;

	c->dc.warn = warn;
	ret = dat_cursor_event(&c->dc, err);
	if (ret > 0)
		*ev = c->dc.slot[c->dc.cur].ev;
	return ret;
}

/* Reads the cursor's next event into c->head: 1, 0 at its end, <0. */
static int fill_head(struct utrace_dat_iter *it, struct iter_cursor *c, struct utrace_error *err)
{
	int ret;

	if (c->kc)
		return dat_kcursor_next(c->kc, c->head, err);
	if (it->ahead && dat_ahead_has(it->ahead, c->order)) {
		c->head = &c->own;
		return dat_ahead_next(it->ahead, c->order, c->head, &it->warn, err);
	}
	ret = dat_cursor_event(&c->dc, err);
	c->head = &c->dc.slot[c->dc.cur].ev;
	return ret;
}

/*
 * At the first event: the buffers with records go to workers that decode
 * them ahead, in parallel (dat_ahead.c), unless the cursors move
 * bookmarks or a cursor was started already.  Without workers (none
 * allowed, too many buffers, no threads) the iterator decodes them itself.
 */
static void start_ahead(struct utrace_dat_iter *it)
{
	size_t idx[DAT_AHEAD_MAX_CURSORS], n = 0;

	it->ahead_tried = 1;
	if (it->resumed)
		return;
	for (size_t i = 0; i < it->nr_bufcurs; i++) {
		if (n == DAT_AHEAD_MAX_CURSORS || it->curs[i].started)
			return;
		idx[n++] = i;
	}
	it->ahead = dat_ahead_start(ahead_fill, it, idx, n);
}

int utrace_dat_iter_open(struct utrace_dat *d, struct utrace_dat_iter **out,
			 struct utrace_error *err)
{
	size_t nr_k = dat_kernel_cpu_count(d), nr = nr_k;
	struct utrace_dat_iter *it;

	*out = NULL;
	it = calloc(1, sizeof(*it));
	if (!it)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", d->path);
	it->d = d;
	for (size_t i = 0; i < d->nr_buffers; i++)
		nr += d->buffers[i].nr_pages != 0;
	if (nr || d->nr_buffers) {
		it->curs = calloc(nr + 1, sizeof(*it->curs));
		it->heap = calloc(nr + 1, sizeof(*it->heap));
		it->pos = calloc(d->nr_buffers + 1, sizeof(*it->pos));
		if (!it->curs || !it->heap || !it->pos) {
			utrace_dat_iter_close(it);
			return utrace_error_set(err, -ENOMEM, "%s: out of memory", d->path);
		}
	}
	for (size_t i = 0; i < d->nr_buffers; i++) {
		struct iter_cursor *c = &it->curs[it->nr_curs];

		it->nested |= d->buffers[i].info.nest != 0;
		if (!d->buffers[i].nr_pages)
			continue;
		dat_cursor_init(&c->dc, d, (uint32_t)i, &it->warn);
		slots_init(c);
		c->head = &c->own;
		c->order = it->nr_curs++;
		it->pos[i] = (uint32_t)it->nr_curs;
		c->key = ns(d, d->buffers[i].first_tsc);
		it->heap[it->nr_heap++] = c;
	}
	it->nr_bufcurs = it->nr_curs;
	for (size_t i = 0; i < nr_k; i++) {
		struct iter_cursor *c = &it->curs[it->nr_curs];

		c->head = &c->own;
		c->kc = dat_kcursor_new(d, i, &it->warn);
		if (!c->kc) {
			utrace_dat_iter_close(it);
			return utrace_error_set(err, -ENOMEM, "%s: out of memory", d->path);
		}
		c->order = it->nr_curs++;
		c->key = dat_kcursor_first_ns(c->kc);
		it->heap[it->nr_heap++] = c;
	}
	for (size_t i = it->nr_heap / 2 + 1; i-- > 0;)
		if (it->nr_heap)
			sift_down(it, i);
	*out = it;
	return 0;
}

int utrace_dat_iter_resume(struct utrace_dat_iter *it, struct utrace_dat_resume *rs,
			   uint64_t since_ns, struct utrace_error *err)
{
	struct dat_mark *m = dat_resume_marks(rs, it->d->nr_buffers, since_ns);

	if (!m && it->d->nr_buffers)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", it->d->path);
	for (size_t i = 0; i < it->nr_bufcurs; i++) {
		struct dat_cursor *dc = &it->curs[i].dc;

		if (it->curs[i].started)
			continue;
		it->resumed = 1;
		/* (its heap key stays a lower bound) */
		dat_cursor_restore(dc, &m[dc->bufidx]);
		dc->keep = &m[dc->bufidx];
		dc->keep_before_ns = since_ns;
	}
	for (size_t i = it->nr_bufcurs; i < it->nr_curs; i++) {
		struct iter_cursor *c = &it->curs[i];

		if (c->started || !c->kc)
			continue;
		c->key = dat_kcursor_seek(c->kc, since_ns); /* not lower than before */
	}
	for (size_t i = it->nr_heap / 2 + 1; i-- > 0;)
		if (it->nr_heap)
			sift_down(it, i);
	return 0;
}

/* The call depth thread buf is at between two of its events: that of its
 * next one, one more if that is an EXIT (we are inside its function);
 * 0 before its first and after its last. */
static uint32_t thread_depth(const struct utrace_dat_iter *it, uint32_t buf)
{
	const struct iter_cursor *u = it->pos[buf] ? &it->curs[it->pos[buf] - 1] : NULL;

	if (!u || u->kc || !u->started || u->done)
		return 0;
	switch (u->head->kind) {
	case UTRACE_EV_EXIT:
		return u->head->depth + 1;
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
	case UTRACE_EV_EVENT:
	case UTRACE_EV_PRINT:
	case UTRACE_EV_STACK:
	case UTRACE_EV_SIGNAL:
		return u->head->depth;
	default:
		return 0;
	}
}

/* The thread's own buffer of a nested context's buffer (dat_reader.h). */
static uint32_t nest_root(const struct utrace_dat *d, uint32_t buf)
{
	for (unsigned i = 0; i < UTRACE_RB_NEST_MAX && d->buffers[buf].info.nest; i++)
		buf = d->buffers[buf].info.base;
	return buf;
}

/* An event of a nested context is the thread's own, one level deeper than
 * where the contexts it interrupted were at that moment. */
static void nest_adjust(const struct utrace_dat_iter *it, struct utrace_event *ev, uint32_t buf)
{
	const struct utrace_dat *d = it->d;

	for (unsigned i = 0; i < UTRACE_RB_NEST_MAX && d->buffers[buf].info.nest; i++) {
		buf = d->buffers[buf].info.base;
		ev->depth += thread_depth(it, buf);
	}
	ev->buf = buf;
}

/* May cursor k hold a record inside a LEAF of cursor c: a kernel CPU's,
 * or a context nested in c's (a signal handler inside the call). */
static int maybe_inside(const struct utrace_dat_iter *it, const struct iter_cursor *k,
			const struct iter_cursor *c)
{
	const struct utrace_dat *d = it->d;

	if (k->kc)
		return 1;
	if (k == c || !it->nested)
		return 0;
	return d->buffers[k->dc.bufidx].info.nest > d->buffers[c->dc.bufidx].info.nest &&
	       nest_root(d, k->dc.bufidx) == nest_root(d, c->dc.bufidx);
}

/*
 * Does a kernel record of task tid, or one of a nested context of c's
 * thread, lie in [from, to)?  Called with a LEAF
 * on top of the heap, so every other cursor's next record is at or after
 * `from`; a kernel cursor that has not started but may have records
 * before `to` is started here, out of turn.  Only each kernel cursor's
 * next record is looked at: while the thread runs on a CPU, that CPU's
 * records are its own.
 */
static int record_within(struct utrace_dat_iter *it, const struct iter_cursor *c, uint64_t from,
			 uint64_t to, struct utrace_error *err)
{
	int32_t tid = c->head->tid;

	for (size_t h = 0; h < it->nr_heap; h++) {
		struct iter_cursor *k = it->heap[h];
		int ret;

		if (k->empty || k->key >= to || !maybe_inside(it, k, c))
			continue;
		if (!k->started) {
			k->started = 1;
			ret = fill_head(it, k, err);
			if (ret < 0)
				return ret;
			/* its key only grows: restore the heap below it */
			k->key = ret ? k->head->ts : UINT64_MAX;
			k->empty = !ret;
			sift_down(it, h);
			h = (size_t)-1; /* the heap moved: look again from the top */
			continue;
		}
		if (k->head->tid == tid && k->head->ts >= from && k->head->ts < to)
			return 1;
	}
	return 0;
}

/* The cursor on top, whose event was given out, moves on: 0, <0. */
static int move_on(struct utrace_dat_iter *it, struct utrace_error *err)
{
	struct iter_cursor *c = it->heap[0];
	int ret;

	it->taken = 0;
	ret = fill_head(it, c, err);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		heap_pop(it);
	} else {
		c->key = c->head->ts;
		sift_down(it, 0);
	}
	return 0;
}

/* A LEAF with a record inside it is given out as its ENTRY (a copy); its
 * cursor's head becomes its EXIT. */
static const struct utrace_event *split_leaf(struct utrace_dat_iter *it, struct iter_cursor *c)
{
	it->scratch = *c->head;
	it->scratch.kind = UTRACE_EV_ENTRY;
	it->scratch.duration = 0;
	c->head->kind = UTRACE_EV_EXIT;
	c->head->ts += c->head->duration;
	c->key = c->head->ts;
	sift_down(it, 0);
	return &it->scratch;
}

/* The event of cursor c (on top) given out: made the thread's when it is
 * a kernel record or a nested context's, its data kept; it moves on at
 * the next call. */
static int give_out(struct utrace_dat_iter *it, struct iter_cursor *c,
		    const struct utrace_event **out, struct utrace_error *err)
{
	struct utrace_event *ev = c->head;

	/* a kernel event of a traced thread: at the thread's depth */
	if (c->kc && ev->kind == UTRACE_EV_EVENT && ev->buf < it->d->nr_buffers) {
		ev->depth = thread_depth(it, ev->buf);
	} else if (it->nested && !c->kc && it->d->buffers[ev->buf].info.nest) {
		it->scratch = *ev; /* the slot keeps its buffer's fields */
		ev = &it->scratch;
		nest_adjust(it, ev, ev->buf);
	}
	if (ev->data_len) {
		/* valid until the next call, whatever the cursor reads then */
		if (UTRACE_GROW(it->out, it->cap_out, ev->data_len) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		memcpy(it->out, ev->data, ev->data_len);
		ev->data = it->out;
	}
	it->taken = 1;
	*out = ev;
	return 1;
}

/* utrace_dat_iter_next_ref, every case: the merge */
static __attribute__((noinline)) int next_merged(struct utrace_dat_iter *it,
						 const struct utrace_event **out,
						 struct utrace_error *err)
{
	if (!it->ahead_tried)
		start_ahead(it);
	if (it->taken) {
		int ret = move_on(it, err);

		if (ret < 0)
			return ret;
	}
	while (it->nr_heap) {
		struct iter_cursor *c = it->heap[0];
		int ret;

		if (c->empty) {
			heap_pop(it);
			continue;
		}
		if (c->kc == NULL && c->head->kind == UTRACE_EV_LEAF && c->started &&
		    (it->nr_curs > it->nr_bufcurs || it->nested)) {
			/* a syscall made, or a signal handled, inside a leaf call
			 * must show inside it: then the leaf is an entry now and
			 * its exit later */
			ret = record_within(it, c, c->head->ts, c->head->ts + c->head->duration, err);
			if (ret < 0)
				return ret;
			if (ret) {
				*out = split_leaf(it, c);
				return 1;
			}
			if (it->heap[0] != c)
				continue; /* a cursor started out of turn went first */
		}
		if (!c->started) {
			c->started = 1;
			ret = fill_head(it, c, err);
			if (ret < 0)
				return ret;
			if (ret == 0) {
				heap_pop(it);
				continue;
			}
			c->key = c->head->ts;
			sift_down(it, 0);
			continue;
		}
		return give_out(it, c, out, err);
	}
	return 0;
}

/*
 * One buffer left to merge (a single thread's trace, or the last thread's
 * tail) and nothing to interleave (no kernel cursor, nested context or
 * worker): its next event is decoded and given out here, without the
 * merge's steps.
 */
int utrace_dat_iter_next_ref(struct utrace_dat_iter *it, const struct utrace_event **out,
			     struct utrace_error *err)
{
	struct iter_cursor *c;
	struct utrace_event *ev;
	int ret;

	if (!it->taken || it->nr_heap != 1 || it->nested || it->ahead || it->heap[0]->kc)
		return next_merged(it, out, err);
	c = it->heap[0];
	ret = dat_cursor_event(&c->dc, err);
	if (ret <= 0) {
		if (ret == 0) {
			it->taken = 0;
			heap_pop(it);
		}
		return ret;
	}
	ev = &c->dc.slot[c->dc.cur].ev;
	c->head = ev;
	c->key = ev->ts;
	if (ev->data_len) {
		it->taken = 0;
		return give_out(it, c, out, err);
	}
	*out = ev; /* still taken */
	return 1;
}

int utrace_dat_iter_next(struct utrace_dat_iter *it, struct utrace_event *ev,
			 struct utrace_error *err)
{
	const struct utrace_event *p;
	int ret = utrace_dat_iter_next_ref(it, &p, err);

	if (ret > 0)
		*ev = *p;
	return ret;
}

uint64_t utrace_dat_iter_warnings(const struct utrace_dat_iter *it)
{
	return it->warn.count;
}

uint64_t utrace_dat_iter_unread(const struct utrace_dat_iter *it, uint64_t *unknown)
{
	*unknown = it->warn.unread_unknown;
	return it->warn.unread;
}

uint64_t utrace_dat_iter_own(const struct utrace_dat_iter *it)
{
	return it->warn.own;
}

const char *utrace_dat_iter_warning(const struct utrace_dat_iter *it)
{
	return it->warn.count ? it->warn.first : NULL;
}

void utrace_dat_iter_close(struct utrace_dat_iter *it)
{
	if (!it)
		return;
	dat_ahead_stop(it->ahead); /* the workers leave the cursors first */
	for (size_t i = 0; i < it->nr_curs; i++) {
		dat_cursor_fini(&it->curs[i].dc);
		dat_kcursor_free(it->curs[i].kc);
	}
	free(it->curs);
	free(it->pos);
	free(it->heap);
	free(it->out);
	free(it);
}
