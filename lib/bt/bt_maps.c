/* SPDX-License-Identifier: MIT */
/*
 * bt_maps.c - the maps of a running program as the tool holds them: one
 * hash table a map, keyed by the key bytes the bytecode builds
 * (common/bt_prog.h), each element with what its aggregation needs (a
 * scalar, count/sum/min/max, or buckets).  They are the callbacks
 * utrace_bt_run() updates, and what bt_maps_print() hands to the printer
 * (bt_print.h) as finished arrays.  A map holds at most
 * BT_MAP_KEYS_MAX elements, as bpftrace's BPFTRACE_MAP_KEYS_MAX (4096 by
 * default, the environment variable read too); an update that would add
 * one more is counted as a drop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bt_table.h"
#include "common/jhash.h"
#include "lib/bt/bt_longval.h"
#include "lib/bt/bt_maps.h"

struct bt_elt {
	uint8_t *key;
	int64_t i, n, sum, min, max;
	char s[UTRACE_BT_STRLEN];
	uint64_t *buckets;
	bool used;
};

struct bt_map {
	struct utrace_bt_mapdesc d;
	unsigned keylen, nbuckets;
	struct bt_elt *elts; /* open addressing, cap a power of two */
	size_t cap, n;
	uint32_t key_stack; /* bt_maps_set_stacks */
	bool value_stack;
	bool value_unsigned; /* bt_maps_set_unsigned */
};

struct bt_maps {
	struct bt_map *m;
	unsigned n;
	size_t max_keys;
	uint64_t drops;
	const struct bt_usym *usym;
	struct bt_longvals *longvals;
};


static struct bt_elt *find(struct bt_map *m, const uint8_t *key, bool add, struct bt_maps *ms);

/* bpftrace's array map: a count() without keys has its one element from
 * the start (`@: 0` if nothing counted), which clear() and delete() zero. */
static bool is_array(const struct bt_map *m)
{
	return m->d.agg == UTRACE_BT_AGG_COUNT && !m->d.nkeys;
}

int bt_maps_new(const void *prog, struct bt_maps **out)
{
	const struct utrace_bt_hdr *h = prog;
	struct bt_maps *ms = calloc(1, sizeof(*ms));
	const char *env = getenv("BPFTRACE_MAP_KEYS_MAX");

	if (!ms || !(ms->m = calloc(h->nr_maps + 1, sizeof(*ms->m)))) {
		free(ms);
		return -ENOMEM;
	}
	ms->n = h->nr_maps;
	ms->max_keys = env && atol(env) > 0 ? (size_t)atol(env) : 4096;
	for (unsigned i = 0; i < ms->n; i++) {
		struct bt_map *m = &ms->m[i];

		m->d = utrace_bt_maps(h)[i];
		m->keylen = utrace_bt_key_len(&m->d);
		if (m->d.agg == UTRACE_BT_AGG_HIST)
			m->nbuckets = UTRACE_BT_HIST_BUCKETS;
		else if (m->d.agg == UTRACE_BT_AGG_LHIST && m->d.lstep > 0)
			m->nbuckets = utrace_bt_lhist_nbuckets(&m->d);
		if (is_array(m) && !find(m, (const uint8_t[]){0}, true, ms)) {
			bt_maps_free(ms);
			return -ENOMEM;
		}
	}
	*out = ms;
	return 0;
}

static void elt_free(struct bt_elt *e)
{
	free(e->key);
	free(e->buckets);
	memset(e, 0, sizeof(*e));
}

static void drop_all(struct bt_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		elt_free(&m->elts[i]);
	m->n = 0;
}

void bt_maps_clear(struct bt_maps *ms, unsigned map)
{
	if (is_array(&ms->m[map]))
		bt_maps_zero(ms, map);
	else
		drop_all(&ms->m[map]);
}

void bt_maps_zero(struct bt_maps *ms, unsigned map)
{
	struct bt_map *m = &ms->m[map];

	for (size_t i = 0; i < m->cap; i++) {
		struct bt_elt *e = &m->elts[i];

		if (!e->used)
			continue;
		e->i = e->n = e->sum = e->min = e->max = 0;
		e->s[0] = 0;
		if (e->buckets)
			memset(e->buckets, 0, m->nbuckets * sizeof(*e->buckets));
	}
}

void bt_maps_free(struct bt_maps *ms)
{
	if (!ms)
		return;
	for (unsigned i = 0; i < ms->n; i++) {
		drop_all(&ms->m[i]);
		free(ms->m[i].elts);
	}
	free(ms->m);
	free(ms);
}

uint64_t bt_maps_drops(const struct bt_maps *ms)
{
	return ms->drops;
}

static struct bt_elt *find(struct bt_map *m, const uint8_t *key, bool add, struct bt_maps *ms)
{
	uint32_t h;

	if (m->cap) {
		h = utrace_jhash(key, m->keylen, 0);
		for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
			struct bt_elt *e = &m->elts[i];

			if (!e->used)
				break;
			if (!memcmp(e->key, key, m->keylen))
				return e;
		}
	}
	if (!add || m->n >= ms->max_keys) {
		ms->drops += add;
		return NULL;
	}
	if (2 * (m->n + 1) > m->cap) { /* grow: rehash every element */
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct bt_elt *old = m->elts, *ne = calloc(cap, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			size_t k;

			if (!old[i].used)
				continue;
			for (k = utrace_jhash(old[i].key, m->keylen, 0) & (cap - 1); ne[k].used;
			     k = (k + 1) & (cap - 1))
				;
			ne[k] = old[i];
		}
		free(old);
		m->elts = ne;
		m->cap = cap;
	}
	h = utrace_jhash(key, m->keylen, 0);
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct bt_elt *e = &m->elts[i];

		if (e->used)
			continue;
		e->key = malloc(m->keylen);
		e->buckets = m->nbuckets ? calloc(m->nbuckets, sizeof(*e->buckets)) : NULL;
		if (!e->key || (m->nbuckets && !e->buckets)) {
			elt_free(e);
			return NULL;
		}
		memcpy(e->key, key, m->keylen);
		e->used = true;
		m->n++;
		return e;
	}
}

int bt_maps_get(void *arg, unsigned map, const uint8_t *key, struct utrace_bt_mval *v)
{
	struct bt_maps *ms = arg;
	struct bt_map *m = &ms->m[map];
	struct bt_elt *e = find(m, key, false, ms);

	memset(v, 0, sizeof(*v));
	if (!e)
		return -1;
	v->i = m->d.agg == UTRACE_BT_AGG_SCALAR ? e->i
	       : m->d.agg == UTRACE_BT_AGG_AVG	? (e->n ? e->sum / e->n : 0)
						: e->i;
	memcpy(v->s, e->s, sizeof(v->s));
	return 0;
}

static void elt_agg(struct bt_map *m, struct bt_elt *e, int agg, int64_t x)
{
	bool first = e->n == 0;

	switch (agg) {
	case UTRACE_BT_AGG_COUNT: e->i++; e->n++; break;
	case UTRACE_BT_AGG_SUM: e->i += x; e->n++; break;
	case UTRACE_BT_AGG_MIN: e->i = first || x < e->i ? x : e->i; e->n++; break;
	case UTRACE_BT_AGG_MAX: e->i = first || x > e->i ? x : e->i; e->n++; break;
	case UTRACE_BT_AGG_AVG:
	case UTRACE_BT_AGG_STATS: e->n++; e->sum += x; break;
	case UTRACE_BT_AGG_HIST: e->buckets[utrace_bt_hist_bucket(x)]++; e->n++; break;
	case UTRACE_BT_AGG_LHIST: e->buckets[utrace_bt_lhist_bucket(&m->d, x)]++; e->n++; break;
	default: break;
	}
}

void bt_maps_update(void *arg, unsigned map, const uint8_t *key, int agg,
		    const struct utrace_bt_mval *v)
{
	struct bt_maps *ms = arg;
	struct bt_map *m = &ms->m[map];
	struct bt_elt *e = find(m, key, agg >= 0, ms);

	if (!e)
		return;
	if (agg < 0 && is_array(m)) {
		e->i = e->n = 0;
		return;
	}
	if (agg < 0) { /* delete: take it out and put the run of followers back */
		size_t i = (size_t)(e - m->elts);

		elt_free(e);
		m->n--;
		for (size_t k = (i + 1) & (m->cap - 1); m->elts[k].used; k = (k + 1) & (m->cap - 1)) {
			struct bt_elt moved = m->elts[k];

			memset(&m->elts[k], 0, sizeof(m->elts[k]));
			m->n--;
			e = find(m, moved.key, true, ms);
			if (e) {
				free(e->key);
				free(e->buckets);
				*e = moved;
			}
		}
		return;
	}
	if (agg == UTRACE_BT_AGG_SCALAR) {
		e->i = v->i;
		memcpy(e->s, v->s, sizeof(e->s));
		return;
	}
	elt_agg(m, e, agg, v->i);
}

void bt_maps_merge(struct bt_maps *ms, unsigned map, const uint8_t *key, uint32_t bucket,
		   uint64_t n, int64_t v)
{
	struct bt_map *m = &ms->m[map];
	struct bt_elt *e = n ? find(m, key, true, ms) : NULL;
	bool first;

	if (!e)
		return;
	first = e->n == 0;
	switch (m->d.agg) {
	case UTRACE_BT_AGG_COUNT: e->i += (int64_t)n; break;
	case UTRACE_BT_AGG_SUM: e->i += v; break;
	case UTRACE_BT_AGG_MIN: e->i = first || v < e->i ? v : e->i; break;
	case UTRACE_BT_AGG_MAX: e->i = first || v > e->i ? v : e->i; break;
	case UTRACE_BT_AGG_AVG:
	case UTRACE_BT_AGG_STATS: e->sum += v; break;
	case UTRACE_BT_AGG_HIST:
	case UTRACE_BT_AGG_LHIST:
		if (bucket < m->nbuckets)
			e->buckets[bucket] += n;
		break;
	default: return;
	}
	e->n += (int64_t)n;
}

size_t bt_maps_max_keys(const struct bt_maps *ms)
{
	return ms->max_keys;
}

void bt_maps_add_drops(struct bt_maps *ms, uint64_t n)
{
	ms->drops += n;
}

void bt_maps_set_stacks(struct bt_maps *ms, unsigned map, uint32_t key_stack, bool value_stack,
			const struct bt_usym *u)
{
	ms->m[map].key_stack = key_stack;
	ms->m[map].value_stack = value_stack;
	ms->usym = u;
}

void bt_maps_set_longvals(struct bt_maps *ms, struct bt_longvals *lv)
{
	ms->longvals = lv;
}

void bt_maps_set_unsigned(struct bt_maps *ms, unsigned map)
{
	ms->m[map].value_unsigned = true;
}

/* A ustack id as the printer's scalar: its frames. */
static struct utrace_bt_scalar stack_scalar(const struct bt_maps *ms, int64_t id)
{
	struct utrace_bt_scalar v = {.kind = UTRACE_BT_STACK};

	if (ms->usym)
		v.lines = bt_usym_lines(ms->usym, id, &v.nlines);
	return v;
}

/* The key bytes as the printer's scalars. */
static void key_scalars(const struct bt_maps *ms, const struct bt_map *m, const uint8_t *key,
			struct utrace_bt_scalar *out)
{
	unsigned off = 0;

	for (unsigned i = 0; i < m->d.nkeys; i++) {
		if (m->d.key_str >> i & 1) {
			bool tuple = m->d.key_str >> (8 + i) & 1;
			const char *s = (const char *)key + off;

			out[i] = (struct utrace_bt_scalar){
			    .kind = m->d.key_str >> (16 + i) & 1 ? UTRACE_BT_BUF
				    : tuple			 ? UTRACE_BT_TUPLE
								 : UTRACE_BT_STR,
			    .s = tuple ? bt_longval_text(ms->longvals, s) : bt_longval_str(ms->longvals, s)};
			off += UTRACE_BT_STRLEN;
		} else {
			int64_t x;

			memcpy(&x, key + off, 8);
			out[i] = m->key_stack >> i & 1
					 ? stack_scalar(ms, x)
					 : (struct utrace_bt_scalar){.kind = UTRACE_BT_INT, .i = x};
			off += 8;
		}
	}
}

int bt_maps_print(struct bt_maps *ms, unsigned map, const char *name, size_t top, uint64_t div,
		  enum utrace_bt_format fmt, FILE *out)
{
	struct bt_map *m = &ms->m[map];
	struct utrace_bt_entry *ents = calloc(m->n + 1, sizeof(*ents));
	struct utrace_bt_scalar *keys = calloc(m->n * m->d.nkeys + 1, sizeof(*keys));
	struct utrace_bt_map pm = {.name = name, .nkeys = m->d.nkeys,
				   .agg = (enum utrace_bt_agg)m->d.agg, .lhist_min = m->d.lmin,
				   .lhist_max = m->d.lmax, .lhist_step = m->d.lstep, .entries = ents,
				   .value_unsigned = m->value_unsigned};
	int ret;

	if (!ents || !keys) {
		free(ents);
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		struct bt_elt *e = &m->elts[i];
		struct utrace_bt_entry *en = &ents[pm.nentries];

		if (!e->used)
			continue;
		en->key = m->d.nkeys ? &keys[pm.nentries * m->d.nkeys] : NULL;
		key_scalars(ms, m, e->key, &keys[pm.nentries * m->d.nkeys]);
		en->value = m->d.value_str
				? (struct utrace_bt_scalar){.kind = m->d.value_str == 2   ? UTRACE_BT_TUPLE
								    : m->d.value_str == 3 ? UTRACE_BT_BUF
								    : m->d.value_str == 4 ? UTRACE_BT_TIME
											  : UTRACE_BT_STR,
							    .s = m->d.value_str == 2
								     ? bt_longval_text(ms->longvals, e->s)
								     : bt_longval_str(ms->longvals, e->s)}
				: (struct utrace_bt_scalar){.kind = m->value_unsigned ? UTRACE_BT_UINT
										      : UTRACE_BT_INT,
							    .i = e->i};
		if (m->value_stack)
			en->value = stack_scalar(ms, e->i);
		en->n = m->d.agg == UTRACE_BT_AGG_AVG || m->d.agg == UTRACE_BT_AGG_STATS ? e->n : e->i;
		en->sum = e->sum;
		en->buckets = e->buckets;
		pm.nentries++;
	}
	ret = utrace_bt_map_print(out, &pm, top, div, fmt);
	free(ents);
	free(keys);
	return ret;
}

size_t bt_maps_count(const struct bt_maps *ms, unsigned map)
{
	return ms->m[map].n;
}
