/* SPDX-License-Identifier: MIT */
/*
 * callgraph.c - calls aggregated by call path.
 *
 * Design: a tree whose nodes are (caller node, function) pairs, found
 * through one hash table keyed by (parent << 32 | function number), with
 * each node's callees in a list in the order they were first called.
 * Each thread keeps a stack of its open calls (node, depth, entry time,
 * time in callees), as lib/report/profile.c does: an entry adds a call to the
 * node below the caller's node, a return adds its duration.  When the
 * caller of a call is not in the stream (the start of an --overwrite
 * recording, after lost events), the call hangs under an "[unknown]"
 * node, perf's name for a frame it cannot name.  Calls still open at the
 * end are timed up to their thread's last event, as uftrace does.  The
 * walk is iterative (an explicit stack), so a recursion a million calls
 * deep does not overflow the C stack.  lib/report/callgraph_print.c prints the
 * tree as uftrace graph does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/callgraph_internal.h"
#include "lib/report/report_sched.h"

#define NONE CALLGRAPH_NONE

struct gframe {
	uint32_t node, depth;
	uint32_t placeholder; /* stands for callers the stream does not show */
	uint32_t pad;
	uint64_t ts, child;
};

struct gthread {
	struct gframe *st;
	uint32_t n, cap;
	uint64_t last_ts;
	int seen;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int tree_add_node(struct tree *t, uint32_t parent, uint32_t fn)
{
	struct gnode *n;

	if (UTRACE_GROW(t->n, t->cap, (size_t)t->nr + 1) < 0)
		return -1;
	n = &t->n[t->nr];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->fn = fn;
	n->first = n->last = n->next = NONE;
	n->memo_fn = NONE;
	if (parent != NONE) {
		struct gnode *p = &t->n[parent];

		if (p->last == NONE)
			p->first = t->nr;
		else
			t->n[p->last].next = t->nr;
		p->last = t->nr;
		p->nr_children++;
	}
	t->nr++;
	return 0;
}

int callgraph_tree_init(struct tree *t, uint32_t root_fn)
{
	memset(t, 0, sizeof(*t));
	return tree_add_node(t, NONE, root_fn);
}

void callgraph_tree_free(struct tree *t)
{
	free(t->n);
	free(t->h);
}

static int tree_grow_hash(struct tree *t)
{
	uint32_t cap = t->hcap ? t->hcap * 2 : 512;
	struct hslot *h = malloc(cap * sizeof(*h));

	if (!h)
		return -1;
	for (uint32_t i = 0; i < cap; i++)
		h[i].node = NONE;
	for (uint32_t i = 0; i < t->hcap; i++) {
		uint32_t j;

		if (t->h[i].node == NONE)
			continue;
		for (j = mix64(t->h[i].key) & (cap - 1); h[j].node != NONE; j = (j + 1) & (cap - 1))
			;
		h[j] = t->h[i];
	}
	free(t->h);
	t->h = h;
	t->hcap = cap;
	return 0;
}

/* The node of fn called from parent, created if new; <0 out of memory. */
int callgraph_tree_child(struct tree *t, uint32_t parent, uint32_t fn, uint32_t *out)
{
	uint64_t key = (uint64_t)parent << 32 | fn;
	uint32_t j;

	/* a caller mostly calls what it called last (a loop, a recursion):
	 * that child is kept in the caller's node, before the hash */
	if (parent != NONE && t->n[parent].memo_fn == fn) {
		*out = t->n[parent].memo_node;
		return 0;
	}
	if ((uint64_t)t->nr * 2 + 2 > t->hcap && tree_grow_hash(t) < 0)
		return -1;
	for (j = mix64(key) & (t->hcap - 1); t->h[j].node != NONE; j = (j + 1) & (t->hcap - 1)) {
		if (t->h[j].key == key) {
			*out = t->h[j].node;
			goto found;
		}
	}
	if (t->nr == NONE - 1 || tree_add_node(t, parent, fn) < 0)
		return -1;
	t->h[j].key = key;
	t->h[j].node = t->nr - 1;
	*out = t->nr - 1;
found:
	if (parent != NONE) {
		t->n[parent].memo_fn = fn;
		t->n[parent].memo_node = *out;
	}
	return 0;
}

static int oom(const struct utrace_callgraph *g, struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "%s: out of memory for the call graph",
				utrace_dat_path(g->d));
}

bool utrace_callgraph_sampled(const struct utrace_callgraph *g)
{
	return g->sampled;
}

int utrace_callgraph_new(struct utrace_dat *d, struct utrace_callgraph **out,
			 struct utrace_error *err)
{
	struct utrace_callgraph *g = calloc(1, sizeof(*g));
	unsigned n = utrace_dat_buffer_count(d);

	*out = NULL;
	if (!g)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	g->d = d;
	g->nr_th = g->nr_buf = n;
	g->th = calloc(n ? n : 1, sizeof(*g->th));
	if (!g->th || callgraph_tree_init(&g->t, NONE) < 0) {
		utrace_callgraph_free(g);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	}
	if (utrace_func_table_new(d, &g->ft, err) < 0 ||
	    utrace_func_table_intern(g->ft, UTRACE_CALLGRAPH_UNKNOWN, &g->unknown_fn, err) < 0 ||
	    utrace_report_sched_new(d, &g->sched) < 0 ||
	    (g->sched && utrace_func_table_intern(g->ft, UTRACE_SCHED_NAME, &g->sched_fn, err) < 0)) {
		utrace_callgraph_free(g);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	}
	*out = g;
	return 0;
}

void utrace_callgraph_free(struct utrace_callgraph *g)
{
	if (!g)
		return;
	for (unsigned i = 0; g->th && i < g->nr_th; i++)
		free(g->th[i].st);
	free(g->th);
	stack_index_free(&g->stacks);
	callgraph_tree_free(&g->t);
	utrace_func_table_free(g->ft);
	utrace_report_sched_free(g->sched);
	free(g);
}

static void complete(struct tree *t, uint32_t node, uint64_t dur, uint64_t child)
{
	struct gnode *n = &t->n[node];
	uint64_t self = dur > child ? dur - child : 0;

	if (!n->timed) {
		n->tmin = n->smin = UINT64_MAX;
	}
	n->timed++;
	n->time += dur;
	if (dur < n->tmin)
		n->tmin = dur;
	if (dur > n->tmax)
		n->tmax = dur;
	if (self < n->smin)
		n->smin = self;
	if (self > n->smax)
		n->smax = self;
	if (n->parent != NONE)
		t->n[n->parent].child_time += dur;
}

static inline __attribute__((always_inline)) int
push(struct utrace_callgraph *g, struct gthread *t, struct gframe f,
     struct utrace_error *err)
{
	if (UTRACE_GROW(t->st, t->cap, (size_t)t->n + 1) < 0)
		return oom(g, err);
	t->st[t->n++] = f;
	return 0;
}

static void credit(struct gthread *t, uint32_t d, uint64_t dur)
{
	if (d && t->n && t->st[t->n - 1].depth + 1 == d)
		t->st[t->n - 1].child += dur;
}

/* The node of the caller of a call at depth d (the stack popped to
 * below d); a placeholder "[unknown]" if the stream skipped callers. */
static int caller(struct utrace_callgraph *g, struct gthread *t, uint32_t d, uint64_t ts,
		  uint32_t *par, struct utrace_error *err)
{
	struct gframe f = {0, 0, 1, 0, ts, 0};

	if (t->n && t->st[t->n - 1].depth + 1 == d) {
		*par = t->st[t->n - 1].node;
		return 0;
	}
	if (!t->n && !d) {
		*par = 0;
		return 0;
	}
	if (callgraph_tree_child(&g->t, t->n ? t->st[t->n - 1].node : 0, g->unknown_fn, par) < 0)
		return oom(g, err);
	g->t.n[*par].calls++;
	f.node = *par;
	f.depth = d - 1;
	return push(g, t, f, err);
}

/* The node of the event's function below its caller, one call added. */
static int call_node(struct utrace_callgraph *g, struct gthread *t, const struct utrace_event *ev,
		     uint32_t *node, struct utrace_error *err)
{
	uint32_t fn, par;

	if (utrace_func_table_lookup_cached(g->ft, &g->fc, ev->image, ev->id, &fn, err) < 0)
		return -ENOMEM;
	if (caller(g, t, ev->depth, ev->ts, &par, err) < 0)
		return -ENOMEM;
	if (callgraph_tree_child(&g->t, par, fn, node) < 0)
		return oom(g, err);
	g->t.n[*node].calls++;
	return 0;
}

static int add_exit(struct utrace_callgraph *g, struct gthread *t, const struct utrace_event *ev,
		    struct utrace_error *err)
{
	int known = !(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID;
	int timed = !(ev->flags & UTRACE_EVF_NO_DURATION);
	uint32_t d = ev->depth, node;

	while (t->n && t->st[t->n - 1].depth > d)
		t->n--;
	if (t->n && t->st[t->n - 1].depth == d) {
		struct gframe f = t->st[--t->n];
		uint32_t fn = NONE;

		if (known && !f.placeholder &&
		    utrace_func_table_lookup_cached(g->ft, &g->fc, ev->image, ev->id, &fn, err) < 0)
			return -ENOMEM;
		if (f.placeholder || !known || fn == g->t.n[f.node].fn) {
			if (timed) {
				complete(&g->t, f.node, ev->duration, f.child);
				credit(t, d, ev->duration);
			}
			return 0;
		}
	}
	if (!known) {
		if (timed)
			credit(t, d, ev->duration);
		return 0;
	}
	if (call_node(g, t, ev, &node, err) < 0)
		return -ENOMEM;
	if (timed) {
		complete(&g->t, node, ev->duration, 0);
		credit(t, d, ev->duration);
	}
	return 0;
}

/* The call stack of buffer buf's program stack, or NULL out of memory. */
static struct gthread *thread_of(struct utrace_callgraph *g, uint32_t buf, uint32_t stack)
{
	long i;

	if (!stack) /* the thread's own stack: no call (stack_index.h) */
		return &g->th[buf];
	i = stack_index(&g->stacks, (void **)&g->th, sizeof(*g->th), g->nr_buf, buf, stack);
	if (i < 0)
		return NULL;
	g->nr_th = g->nr_buf + (unsigned)g->stacks.nr;
	return &g->th[i];
}

/* The off-CPU spans ev ends, each a call of linux:schedule below the call
 * that was running (report_sched.c); a sched_switch that begins one is
 * noted there. */
static int add_sched(struct utrace_callgraph *g, const struct utrace_event *ev,
		     struct utrace_error *err)
{
	struct utrace_sched_span sp;
	uint32_t par, node;
	struct gthread *t;

	while (utrace_report_sched_end(g->sched, ev, true, &sp) ||
	       utrace_report_sched_end(g->sched, ev, false, &sp)) {
		if (sp.buf >= g->nr_buf)
			continue;
		if (!(t = thread_of(g, sp.buf, sp.buf == ev->buf ? ev->stack : 0)))
			return oom(g, err);
		while (t->n && t->st[t->n - 1].depth >= sp.depth)
			t->n--;
		if (caller(g, t, sp.depth, sp.ts, &par, err) < 0)
			return -ENOMEM;
		if (callgraph_tree_child(&g->t, par, g->sched_fn, &node) < 0)
			return oom(g, err);
		g->t.n[node].calls++;
		complete(&g->t, node, sp.dur, 0);
		credit(t, sp.depth, sp.dur);
	}
	utrace_report_sched_begin(g->sched, ev);
	return 0;
}

int utrace_callgraph_add(struct utrace_callgraph *g, const struct utrace_event *ev,
			 struct utrace_error *err)
{
	struct gframe f = {0, 0, 0, 0, 0, 0};
	struct gthread *t;
	uint64_t end;

	if (g->sched && add_sched(g, ev, err) < 0)
		return -ENOMEM;
	if (ev->buf >= g->nr_buf || ev->kind == UTRACE_EV_LOST || ev->kind == UTRACE_EV_FUNC)
		return 0;
	if (!(t = thread_of(g, ev->buf, ev->stack)))
		return oom(g, err);
	end = ev->kind == UTRACE_EV_LEAF ? ev->ts + ev->duration : ev->ts;
	if (!t->seen || end > t->last_ts)
		t->last_ts = end;
	t->seen = 1;
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
		while (t->n && t->st[t->n - 1].depth >= ev->depth)
			t->n--;
		if (call_node(g, t, ev, &f.node, err) < 0)
			return -ENOMEM;
		f.depth = ev->depth;
		f.ts = ev->ts;
		return push(g, t, f, err);
	case UTRACE_EV_LEAF:
		while (t->n && t->st[t->n - 1].depth >= ev->depth)
			t->n--;
		if (call_node(g, t, ev, &f.node, err) < 0)
			return -ENOMEM;
		complete(&g->t, f.node, ev->duration, 0);
		credit(t, ev->depth, ev->duration);
		return 0;
	case UTRACE_EV_EXIT:
		return add_exit(g, t, ev, err);
	default:
		return 0;
	}
}

int utrace_callgraph_finish(struct utrace_callgraph *g, struct utrace_error *err)
{
	for (unsigned i = 0; i < g->nr_th; i++) {
		struct gthread *t = &g->th[i];

		if (i >= g->nr_buf && stack_index_moved(&g->stacks, i - g->nr_buf))
			continue;
		while (t->n) {
			struct gframe f = t->st[--t->n];
			uint64_t dur = t->last_ts > f.ts ? t->last_ts - f.ts : 0;

			if (f.placeholder)
				continue;
			g->unfinished++;
			complete(&g->t, f.node, dur, f.child);
			credit(t, f.depth, dur);
		}
	}
	return 0;
}

uint64_t utrace_callgraph_unfinished(const struct utrace_callgraph *g)
{
	return g->unfinished;
}

int utrace_callgraph_walk(const struct utrace_callgraph *g,
			  int (*fn)(void *arg, const struct utrace_callgraph_node *node), void *arg)
{
	struct item {
		uint32_t node, depth;
	} *st = NULL;
	size_t n = 0, cap = 0;
	const struct tree *t = &g->t;
	int ret = 0;

	for (uint32_t c = t->n[0].first, depth = 0, node;;) {
		/* push the callees of the node just visited (c: its first) */
		size_t base = n;

		for (; c != NONE; c = t->n[c].next) {
			if (UTRACE_GROW(st, cap, n + 1) < 0) {
				free(st);
				return -ENOMEM;
			}
			st[n++] = (struct item){c, depth};
		}
		for (size_t i = base, j = n; i + 1 < j; i++, j--) {
			struct item x = st[i];

			st[i] = st[j - 1];
			st[j - 1] = x;
		}
		if (!n)
			break;
		node = st[--n].node;
		depth = st[n].depth;
		{
			const struct gnode *gn = &t->n[node];
			struct utrace_callgraph_node info = {utrace_func_table_name(g->ft, gn->fn),
							     depth,
							     gn->calls,
							     gn->time,
							     callgraph_self_time(gn),
							     gn->first != NONE};

			ret = fn(arg, &info);
		}
		if (ret < 0)
			break;
		c = ret ? NONE : t->n[node].first;
		depth++;
		ret = 0;
	}
	free(st);
	return ret;
}
