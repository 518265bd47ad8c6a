/* SPDX-License-Identifier: MIT */
/*
 * export_diff.c - a base recording's call paths by their folded names
 * (export_diff.h).
 *
 * Design: one walk of BASE's call graph keeps the path to the current
 * node and stores each node under its folded name ("main;parse", with ';'
 * in a name as ':', as export_flame.c writes it), in a hash table with
 * open addressing.  A lookup builds the same name from the new graph's
 * path.  Paths deeper than UTRACE_FLAME_MAX_DEPTH are left out, as the
 * flame graphs leave them out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/export_diff.h"
#include "lib/export/export_flame.h"

struct slot {
	char *key;
	struct utrace_flame_base v;
	bool seen;
};

struct utrace_flame_diff {
	struct slot *v;
	size_t cap, nr;
	const char *path[UTRACE_FLAME_MAX_DEPTH];
	char *key; /* a path's name being built */
	size_t cap_key;
	int oom;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* d->key = the folded name of path; NULL when out of memory. */
static const char *fold(struct utrace_flame_diff *d, const char *const *path, unsigned n)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++)
		len += strlen(path[i]) + 1;
	if (UTRACE_GROW(d->key, d->cap_key, len + 1) < 0)
		return NULL;
	len = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i)
			d->key[len++] = ';';
		for (const char *s = path[i]; *s; s++)
			d->key[len++] = *s == ';' ? ':' : *s;
	}
	d->key[len] = '\0';
	return d->key;
}

static struct slot *find(const struct utrace_flame_diff *d, const char *key)
{
	size_t s;

	if (!d->cap)
		return NULL;
	for (s = hash(key) & (d->cap - 1); d->v[s].key; s = (s + 1) & (d->cap - 1))
		if (!strcmp(d->v[s].key, key))
			return &d->v[s];
	return &d->v[s];
}

static int grow(struct utrace_flame_diff *d)
{
	size_t cap = d->cap ? d->cap * 2 : 256;
	struct slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap; i++) {
		size_t s;

		if (!d->v[i].key)
			continue;
		for (s = hash(d->v[i].key) & (cap - 1); v[s].key; s = (s + 1) & (cap - 1))
			;
		v[s] = d->v[i];
	}
	free(d->v);
	d->v = v;
	d->cap = cap;
	return 0;
}

static int add_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct utrace_flame_diff *d = arg;
	const char *key;
	struct slot *s;

	if (n->depth >= UTRACE_FLAME_MAX_DEPTH)
		return 1;
	d->path[n->depth] = n->name;
	if (((d->nr + 1) * 2 > d->cap && grow(d) < 0) || !(key = fold(d, d->path, n->depth + 1)))
		return -ENOMEM;
	s = find(d, key);
	if (!s->key) {
		if (!(s->key = strdup(key)))
			return -ENOMEM;
		d->nr++;
	}
	/* a recursion cut at the depth limit sums into its last frame */
	s->v.self += n->self;
	s->v.total += n->total;
	s->v.calls += n->calls;
	return 0;
}

int utrace_flame_diff_new(const struct utrace_callgraph *base, struct utrace_flame_diff **out,
			  struct utrace_error *err)
{
	struct utrace_flame_diff *d = calloc(1, sizeof(*d));
	int ret = d ? utrace_callgraph_walk(base, add_node, d) : -ENOMEM;

	if (ret < 0) {
		utrace_flame_diff_free(d);
		*out = NULL;
		return utrace_error_set(err, ret, "out of memory reading the base call paths");
	}
	*out = d;
	return 0;
}

void utrace_flame_diff_free(struct utrace_flame_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->cap; i++)
		free(d->v[i].key);
	free(d->v);
	free(d->key);
	free(d);
}

struct utrace_flame_base utrace_flame_diff_find(struct utrace_flame_diff *d,
						const char *const *path, unsigned n)
{
	const char *key = fold(d, path, n);
	struct slot *s = key ? find(d, key) : NULL;

	if (!s || !s->key)
		return (struct utrace_flame_base){0, 0, 0};
	s->seen = true;
	return s->v;
}

uint64_t utrace_flame_diff_max(const struct utrace_flame_diff *d, uint64_t seen_max)
{
	for (size_t i = 0; i < d->cap; i++)
		if (d->v[i].key && !d->v[i].seen && d->v[i].v.self > seen_max)
			seen_max = d->v[i].v.self;
	return seen_max;
}
