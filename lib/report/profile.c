/* SPDX-License-Identifier: MIT */
/*
 * profile.c - per-function call counts and times from a stream of events.
 *
 * Design: each thread (buffer) has a stack of open calls, each with its
 * depth, entry time and the time spent in the calls it made so far.  A
 * return closes the call at its depth: total = the duration the reader
 * gives (exit - entry), self = total - time in callees, and the duration
 * is credited to the caller.  Events carry their depth, so the stack
 * heals by itself after lost events: an entry at depth d drops any open
 * call at d or deeper (their returns were lost).  A return with no entry
 * in the stream (a --thresh recording, the start of an --overwrite one,
 * after lost events) still counts; its callees' time is collected in a
 * placeholder frame at its depth, so its self time stays right.
 *
 * Recursion is uftrace's rule: total time counts a call only if no call
 * of the same function is open below it in the same thread (fib(30)'s
 * total is the outermost call's duration, not the sum over all levels);
 * min, max and average use every call.  A small per-thread hash counts
 * the open calls of each function, so that test is O(1).
 *
 * Functions are numbered by name (lib/report/func_table.c); statistics live in
 * an array indexed by that number.  Like uftrace, calls still open at the
 * end are timed up to their thread's last event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/func_table.h"
#include "lib/report/profile.h"
#include "lib/report/profile_internal.h"
#include "lib/report/stack_index.h"

#define NONE UINT32_MAX

struct pframe {
	uint32_t fn; /* NONE: a placeholder for a call whose entry is unknown */
	uint32_t depth;
	uint32_t outer; /* no call of fn open below in this thread */
	uint32_t pad;
	uint64_t ts;
	uint64_t child;
};

/* fn -> open calls of fn in one thread (open addressing, linear probing) */
struct actmap {
	uint32_t *key, *cnt;
	uint32_t cap, n;
};

struct pthread {
	struct pframe *st;
	uint32_t n, cap;
	struct actmap act;
	uint64_t last_ts;
	int seen;
};

/* A function's slot: its number itself.  The numbers are dense from 0
 * (func_table.c), so as many as the table has slots never collide, and
 * a mixing hash ran for each event for nothing. */
static inline uint32_t hash32(uint32_t x)
{
	return x;
}

static int act_grow(struct actmap *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 16, *key, *cnt;

	key = malloc(cap * sizeof(*key));
	cnt = malloc(cap * sizeof(*cnt));
	if (!key || !cnt) {
		free(key);
		free(cnt);
		return -1;
	}
	memset(key, 0xff, cap * sizeof(*key));
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t j;

		if (m->key[i] == NONE)
			continue;
		for (j = hash32(m->key[i]) & (cap - 1); key[j] != NONE; j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		cnt[j] = m->cnt[i];
	}
	free(m->key);
	free(m->cnt);
	m->key = key;
	m->cnt = cnt;
	m->cap = cap;
	return 0;
}

/* The slot of fn, or NONE. */
static uint32_t act_find(const struct actmap *m, uint32_t fn)
{
	uint32_t j;

	if (!m->cap)
		return NONE;
	for (j = hash32(fn) & (m->cap - 1); m->key[j] != NONE; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == fn)
			return j;
	return NONE;
}

/* Adds one open call of fn; returns how many were open before, <0. */
static int64_t act_inc(struct actmap *m, uint32_t fn)
{
	uint32_t j = act_find(m, fn);

	if (j != NONE)
		return m->cnt[j]++;
	if ((m->n + 1) * 2 > m->cap && act_grow(m) < 0)
		return -1;
	for (j = hash32(fn) & (m->cap - 1); m->key[j] != NONE; j = (j + 1) & (m->cap - 1))
		;
	m->key[j] = fn;
	m->cnt[j] = 1;
	m->n++;
	return 0;
}

static void act_dec(struct actmap *m, uint32_t fn)
{
	uint32_t mask = m->cap - 1, i = act_find(m, fn), j;

	if (i == NONE || --m->cnt[i])
		return;
	/* backward-shift deletion */
	for (j = i;;) {
		uint32_t k;

		j = (j + 1) & mask;
		if (m->key[j] == NONE)
			break;
		k = hash32(m->key[j]) & mask;
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->key[i] = m->key[j];
		m->cnt[i] = m->cnt[j];
		i = j;
	}
	m->key[i] = NONE;
	m->n--;
}

int utrace_profile_new(struct utrace_dat *d, struct utrace_profile **out, struct utrace_error *err)
{
	struct utrace_profile *p = calloc(1, sizeof(*p));
	unsigned n = utrace_dat_buffer_count(d);

	*out = NULL;
	if (!p)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	p->d = d;
	p->nr_th = p->nr_buf = n;
	p->th = calloc(n ? n : 1, sizeof(*p->th));
	if (!p->th) {
		utrace_profile_free(p);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	}
	if (utrace_func_table_new(d, &p->ft, err) < 0) {
		utrace_profile_free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void utrace_profile_free(struct utrace_profile *p)
{
	if (!p)
		return;
	for (unsigned i = 0; p->th && i < p->nr_th; i++) {
		free(p->th[i].st);
		free(p->th[i].act.key);
		free(p->th[i].act.cnt);
	}
	free(p->th);
	stack_index_free(&p->stacks);
	free(p->e);
	free(p->order);
	utrace_func_table_free(p->ft);
	free(p);
}

static inline int lookup(struct utrace_profile *p, const struct utrace_event *ev, uint32_t *fn,
			 struct utrace_error *err)
{
	int ret = utrace_func_table_lookup_cached(p->ft, &p->fc, ev->image, ev->id, fn, err);

	if (ret < 0)
		return ret;
	if (UTRACE_GROW_ZERO(p->e, p->cap_e, (size_t)*fn + 1) < 0)
		return profile_oom(p, err);
	return 0;
}

static void count_call(struct utrace_profile *p, uint32_t fn, uint64_t dur, uint64_t child,
		       int recursive)
{
	struct utrace_profile_entry *e = &p->e[fn];
	uint64_t self = dur > child ? dur - child : 0;

	if (!e->timed) {
		e->total_min = e->self_min = UINT64_MAX;
	}
	e->calls++;
	e->timed++;
	if (!recursive)
		e->total += dur;
	e->total_sum += dur;
	e->self += self;
	if (dur < e->total_min)
		e->total_min = dur;
	if (dur > e->total_max)
		e->total_max = dur;
	if (self < e->self_min)
		e->self_min = self;
	if (self > e->self_max)
		e->self_max = self;
}

static inline __attribute__((always_inline)) int
push(struct utrace_profile *p, struct pthread *t, struct pframe f,
     struct utrace_error *err)
{
	if (UTRACE_GROW(t->st, t->cap, (size_t)t->n + 1) < 0)
		return profile_oom(p, err);
	if (f.fn != NONE) {
		int64_t before = act_inc(&t->act, f.fn);

		if (before < 0)
			return profile_oom(p, err);
		f.outer = before == 0;
	}
	t->st[t->n++] = f;
	return 0;
}

static void pop(struct pthread *t)
{
	struct pframe *f = &t->st[--t->n];

	if (f->fn != NONE)
		act_dec(&t->act, f->fn);
}

/* Gives dur ns spent in a call at depth d to its caller at d - 1. */
static int credit(struct utrace_profile *p, struct pthread *t, uint32_t d, uint64_t dur,
		  struct utrace_error *err)
{
	struct pframe ph = {NONE, 0, 0, 0, 0, dur};

	if (!d)
		return 0;
	if (t->n && t->st[t->n - 1].depth == d - 1) {
		t->st[t->n - 1].child += dur;
		return 0;
	}
	ph.depth = d - 1;
	return push(p, t, ph, err);
}

static int add_exit(struct utrace_profile *p, struct pthread *t, const struct utrace_event *ev,
		    struct utrace_error *err)
{
	uint32_t d = ev->depth, fn = NONE;
	uint64_t child = 0;
	int have_frame = 0, recursive = 0;

	while (t->n && t->st[t->n - 1].depth > d)
		pop(t);
	if (!(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID &&
	    lookup(p, ev, &fn, err) < 0)
		return -ENOMEM;
	if (t->n && t->st[t->n - 1].depth == d) {
		struct pframe *f = &t->st[t->n - 1];

		if (f->fn == NONE || fn == NONE || f->fn == fn) {
			have_frame = f->fn != NONE;
			if (f->fn != NONE)
				fn = f->fn;
			recursive = !f->outer;
			child = f->child;
		}
		pop(t);
	}
	if (fn == NONE) {
		p->untimed++;
		if (!(ev->flags & UTRACE_EVF_NO_DURATION))
			return credit(p, t, d, ev->duration, err);
		return 0;
	}
	if (!have_frame)
		recursive = act_find(&t->act, fn) != NONE;
	if (ev->flags & UTRACE_EVF_NO_DURATION) {
		p->e[fn].calls++;
		p->untimed++;
		return 0;
	}
	count_call(p, fn, ev->duration, child, recursive);
	return credit(p, t, d, ev->duration, err);
}

int utrace_profile_add(struct utrace_profile *p, const struct utrace_event *ev,
		       struct utrace_error *err)
{
	struct pthread *t;
	uint32_t fn;
	uint64_t end;
	long i;

	if (ev->buf >= p->nr_buf || ev->kind == UTRACE_EV_LOST)
		return 0;
	if (!ev->stack) {
		i = ev->buf; /* the thread's own stack: no call (stack_index.h) */
	} else {
		i = stack_index(&p->stacks, (void **)&p->th, sizeof(*p->th), p->nr_buf, ev->buf,
				ev->stack);
		if (i < 0)
			return profile_oom(p, err);
		p->nr_th = p->nr_buf + (unsigned)p->stacks.nr;
	}
	t = &p->th[i];
	end = ev->kind == UTRACE_EV_LEAF ? ev->ts + ev->duration : ev->ts;
	if (!t->seen || end > t->last_ts)
		t->last_ts = end;
	t->seen = 1;
	switch (ev->kind) {
	case UTRACE_EV_ENTRY: {
		struct pframe f = {0, ev->depth, 0, 0, ev->ts, 0};

		while (t->n && t->st[t->n - 1].depth >= ev->depth)
			pop(t);
		if (lookup(p, ev, &f.fn, err) < 0)
			return -ENOMEM;
		return push(p, t, f, err);
	}
	case UTRACE_EV_LEAF:
		while (t->n && t->st[t->n - 1].depth >= ev->depth)
			pop(t);
		if (lookup(p, ev, &fn, err) < 0)
			return -ENOMEM;
		/* recursive: a call of fn is open (most often the caller) */
		count_call(p, fn, ev->duration, 0,
			   (t->n && t->st[t->n - 1].fn == fn) || act_find(&t->act, fn) != NONE);
		return credit(p, t, ev->depth, ev->duration, err);
	case UTRACE_EV_EXIT:
		return add_exit(p, t, ev, err);
	case UTRACE_EV_FUNC:
		if (lookup(p, ev, &fn, err) < 0)
			return -ENOMEM;
		p->e[fn].calls++;
		return 0;
	default:
		return 0;
	}
}

int utrace_profile_finish(struct utrace_profile *p, struct utrace_error *err)
{
	for (unsigned i = 0; i < p->nr_th; i++) {
		struct pthread *t = &p->th[i];

		if (i >= p->nr_buf && stack_index_moved(&p->stacks, i - p->nr_buf))
			continue;
		while (t->n) {
			struct pframe f = t->st[t->n - 1];
			uint64_t dur = t->last_ts > f.ts ? t->last_ts - f.ts : 0;

			pop(t);
			if (f.fn == NONE)
				continue;
			p->unfinished++;
			count_call(p, f.fn, dur, f.child, !f.outer);
			if (t->n && t->st[t->n - 1].depth + 1 == f.depth)
				t->st[t->n - 1].child += dur;
		}
	}
	for (uint32_t fn = 0; fn < p->cap_e; fn++)
		if (p->e[fn].timed)
			return utrace_profile_sort(p, "total", err);
	/* the function tracer: calls only */
	return utrace_profile_sort(p, "calls", err);
}

uint64_t utrace_profile_unfinished(const struct utrace_profile *p)
{
	return p->unfinished;
}

uint64_t utrace_profile_untimed(const struct utrace_profile *p)
{
	return p->untimed;
}
