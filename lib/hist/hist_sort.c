/* SPDX-License-Identifier: MIT */
/*
 * hist_sort.c - the order of a hist file's entries: the sort of
 * kernel/trace/tracing_map.c (tracing_map_sort_entries()) and lib/sort.c.
 *
 * The order of entries that compare equal is the one thing a stable sort
 * would get wrong: the kernel lists the elements in its slot order, sorts
 * them with lib/sort.c's heapsort (not stable), and then sorts each run
 * of equal primary keys by the secondary key.  This file does the same
 * steps with the same heapsort.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_internal.h"

/* ---- sorting: tracing_map_sort_entries() ---------------------------- */

struct sort_key {
	int is_key;	/* a key (cmp_entries_key) or a sum (cmp_entries_sum) */
	unsigned idx;	/* the key's slot or the sum's index */
	int descending;
};

struct sorter {
	const struct utrace_hist_table *t;
	uint64_t elt_size;
	struct sort_key key;
};

static const uint8_t *elt_of(const struct sorter *so, uint32_t i)
{
	return so->t->elts + (uint64_t)i * so->elt_size;
}

uint64_t hist_sum_of(const struct utrace_hist_table *t, const uint8_t *elt, unsigned idx)
{
	uint64_t v;

	memcpy(&v, elt + t->prog->key_size + 8ull * idx, 8);
	return v;
}

static int cmp_entries(const struct sorter *so, uint32_t a, uint32_t b)
{
	const uint8_t *ea = elt_of(so, a), *eb = elt_of(so, b);
	const struct utrace_hist_slot *sl;
	int ret = 0;

	if (!so->key.is_key) {
		uint64_t va = hist_sum_of(so->t, ea, so->key.idx),
			 vb = hist_sum_of(so->t, eb, so->key.idx);

		ret = va > vb ? 1 : va < vb ? -1 : 0;
	} else if ((sl = &so->t->prog->slots[so->key.idx])->kind == UTRACE_HSLOT_STR) {
		ret = strncmp((const char *)ea + sl->off, (const char *)eb + sl->off, sl->len);
	} else if (sl->len == 8) { /* a stacktrace (longer) compares equal */
		uint64_t va, vb;

		memcpy(&va, ea + sl->off, 8);
		memcpy(&vb, eb + sl->off, 8);
		if (sl->is_signed)
			ret = (int64_t)va > (int64_t)vb ? 1 : (int64_t)va < (int64_t)vb ? -1 : 0;
		else
			ret = va > vb ? 1 : va < vb ? -1 : 0;
	}
	return so->key.descending ? -ret : ret;
}

static void sift(const struct sorter *so, uint32_t *v, size_t a, size_t n)
{
	size_t b, c, d;

	/* bottom-up: the path of larger children to a leaf, then back up */
	for (b = a; c = 2 * b + 1, (d = c + 1) < n;)
		b = cmp_entries(so, v[c], v[d]) >= 0 ? c : d;
	if (d == n)
		b = c;
	while (b != a && cmp_entries(so, v[a], v[b]) >= 0)
		b = (b - 1) / 2;
	for (c = b; b != a;) {
		uint32_t x;

		b = (b - 1) / 2;
		x = v[b];
		v[b] = v[c];
		v[c] = x;
	}
}

/* lib/sort.c's heapsort, element for element, ties included. */
static void heapsort(const struct sorter *so, uint32_t *v, size_t num)
{
	size_t n = num, a = num / 2, shift = 0;
	uint32_t x;

	if (!a)
		return;
	for (;;) {
		if (a) {
			a -= (size_t)1 << shift;
		} else if (n > 3) {
			/* pop the two largest at once */
			n--;
			x = v[0], v[0] = v[n], v[n] = x;
			shift = cmp_entries(so, v[1], v[2]) <= 0;
			a = (size_t)1 << shift;
			n--;
			x = v[a], v[a] = v[n], v[n] = x;
		} else {
			break;
		}
		sift(so, v, a, n);
	}
	n--;
	x = v[0], v[0] = v[n], v[n] = x;
	if (n == 2 && cmp_entries(so, v[0], v[1]) > 0)
		x = v[0], v[0] = v[1], v[1] = x;
}

/* sort_secondary(): each run equal on the first key, by the second. */
static void sort_secondary(struct sorter *so, uint32_t *v, size_t n, const struct sort_key *k)
{
	size_t start = 0, n_sub = 1;

	for (size_t i = 0; i + 1 < n; i++) {
		so->key = k[0];
		if (!cmp_entries(so, v[i], v[i + 1])) {
			n_sub++;
			if (i + 2 < n)
				continue;
		}
		if (n_sub < 2) {
			start = i + 1;
			n_sub = 1;
			continue;
		}
		so->key = k[1];
		heapsort(so, v + start, n_sub);
		start = i + 1;
		n_sub = 1;
	}
}

static unsigned sort_keys(const struct utrace_hist_spec *s, struct sort_key *k)
{
	unsigned n = s->nr_sort ? s->nr_sort : 1;

	for (unsigned i = 0; i < n; i++) {
		unsigned idx = 0;
		int is_key = 0;

		k[i] = (struct sort_key){0, 0, s->nr_sort && s->sort[i].descending};
		if (!s->nr_sort || !strcmp(s->sort[i].name, "hitcount") ||
		    !hist_sort_field(s, s->sort[i].name, &is_key, &idx))
			continue;
		k[i].is_key = is_key;
		k[i].idx = is_key ? idx : utrace_hist_val_sum(s, idx);
	}
	return n;
}

/* The elements in the order of elts (the table's slot order, as the
 * recorder saves them: the kernel lists them so), then sorted. */
uint32_t *hist_sorted_entries(const struct utrace_hist_spec *s, const struct utrace_hist_table *t,
			      size_t *n)
{
	uint32_t *v = malloc(((size_t)t->nr_elts + 1) * sizeof(*v));
	struct sorter so = {t, utrace_hist_elt_size(t->prog->key_size, t->prog->nr_sums), {0}};
	struct sort_key k[UTRACE_HIST_SORT_MAX];
	unsigned nk;

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < t->nr_elts; i++)
		v[(*n)++] = i;
	if (*n < 2)
		return v;
	nk = sort_keys(s, k);
	so.key = k[0];
	heapsort(&so, v, *n);
	if (nk > 1)
		sort_secondary(&so, v, *n, k);
	return v;
}
