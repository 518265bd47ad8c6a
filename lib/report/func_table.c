/* SPDX-License-Identifier: MIT */
/*
 * func_table.c - (image, id) -> function number, one number per name.
 *
 * Design: two open-addressing hash tables with linear probing, kept at
 * most half full: one keyed by (image << 32 | id), one by name (FNV-1a).
 * Names are copied (utrace_dat_func_name() may return a buffer that is
 * reused for ids no object covers).  The last lookup is remembered: most
 * events name the function of the event before (a loop, a recursion).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/report/func_table.h"

#define EMPTY UINT32_MAX

struct id_slot {
	uint64_t key;
	uint32_t fn; /* EMPTY: free */
};

struct func {
	char *name;
	uint64_t hash;
	uint32_t image, id; /* first met; id EMPTY for interned names */
};

struct utrace_func_table {
	struct utrace_dat *d;
	struct id_slot *ids;
	size_t ids_cap, nr_ids;
	uint32_t *names; /* fn per slot, EMPTY: free */
	size_t names_cap;
	struct func *funcs;
	uint32_t nr_funcs, cap_funcs;
	uint64_t last_key;
	uint32_t last_fn;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int oom(struct utrace_func_table *t, struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "%s: out of memory for the function table",
				utrace_dat_path(t->d));
}

int utrace_func_table_new(struct utrace_dat *d, struct utrace_func_table **out,
			  struct utrace_error *err)
{
	struct utrace_func_table *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	t->d = d;
	t->last_fn = EMPTY;
	*out = t;
	return 0;
}

void utrace_func_table_free(struct utrace_func_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nr_funcs; i++)
		free(t->funcs[i].name);
	free(t->funcs);
	free(t->ids);
	free(t->names);
	free(t);
}

static int grow_ids(struct utrace_func_table *t)
{
	size_t cap = t->ids_cap ? t->ids_cap * 2 : 256;
	struct id_slot *n = malloc(cap * sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < cap; i++)
		n[i].fn = EMPTY;
	for (size_t i = 0; i < t->ids_cap; i++) {
		size_t j;

		if (t->ids[i].fn == EMPTY)
			continue;
		for (j = mix64(t->ids[i].key) & (cap - 1); n[j].fn != EMPTY;
		     j = (j + 1) & (cap - 1))
			;
		n[j] = t->ids[i];
	}
	free(t->ids);
	t->ids = n;
	t->ids_cap = cap;
	return 0;
}

static int grow_names(struct utrace_func_table *t)
{
	size_t cap = t->names_cap ? t->names_cap * 2 : 256;
	uint32_t *n = malloc(cap * sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < cap; i++)
		n[i] = EMPTY;
	for (uint32_t f = 0; f < t->nr_funcs; f++) {
		size_t j;

		for (j = t->funcs[f].hash & (cap - 1); n[j] != EMPTY; j = (j + 1) & (cap - 1))
			;
		n[j] = f;
	}
	free(t->names);
	t->names = n;
	t->names_cap = cap;
	return 0;
}

/* The number of name, adding it if new: 1 new, 0 known, <0. */
static int name_number(struct utrace_func_table *t, const char *name, uint32_t image, uint32_t id,
		       uint32_t *fn, struct utrace_error *err)
{
	uint64_t h = str_hash(name);
	struct func *f;
	size_t j;

	if ((t->nr_funcs + 1) * 2 > t->names_cap && grow_names(t) < 0)
		return oom(t, err);
	for (j = h & (t->names_cap - 1); t->names[j] != EMPTY; j = (j + 1) & (t->names_cap - 1)) {
		f = &t->funcs[t->names[j]];
		if (f->hash == h && !strcmp(f->name, name)) {
			*fn = t->names[j];
			return 0;
		}
	}
	if (UTRACE_GROW(t->funcs, t->cap_funcs, (size_t)t->nr_funcs + 1) < 0)
		return oom(t, err);
	f = &t->funcs[t->nr_funcs];
	f->name = strdup(name);
	if (!f->name)
		return oom(t, err);
	f->hash = h;
	f->image = image;
	f->id = id;
	t->names[j] = t->nr_funcs;
	*fn = t->nr_funcs++;
	return 1;
}

int utrace_func_table_lookup(struct utrace_func_table *t, uint32_t image, uint32_t id, uint32_t *fn,
			     struct utrace_error *err)
{
	uint64_t key = (uint64_t)image << 32 | id;
	size_t j;
	int ret;

	if (t->last_fn != EMPTY && t->last_key == key) {
		*fn = t->last_fn;
		return 0;
	}
	if ((t->nr_ids + 1) * 2 > t->ids_cap && grow_ids(t) < 0)
		return oom(t, err);
	for (j = mix64(key) & (t->ids_cap - 1); t->ids[j].fn != EMPTY;
	     j = (j + 1) & (t->ids_cap - 1)) {
		if (t->ids[j].key == key) {
			*fn = t->last_fn = t->ids[j].fn;
			t->last_key = key;
			return 0;
		}
	}
	ret = name_number(t, utrace_dat_func_name(t->d, image, id), image, id, fn, err);
	if (ret < 0)
		return ret;
	t->ids[j].key = key;
	t->ids[j].fn = *fn;
	t->nr_ids++;
	t->last_key = key;
	t->last_fn = *fn;
	return ret;
}

int utrace_func_table_intern(struct utrace_func_table *t, const char *name, uint32_t *fn,
			     struct utrace_error *err)
{
	return name_number(t, name, 0, EMPTY, fn, err);
}

uint32_t utrace_func_table_count(const struct utrace_func_table *t)
{
	return t->nr_funcs;
}

const char *utrace_func_table_name(const struct utrace_func_table *t, uint32_t fn)
{
	return fn < t->nr_funcs ? t->funcs[fn].name : "?";
}

int utrace_func_table_addr(const struct utrace_func_table *t, uint32_t fn, uint64_t *addr)
{
	if (fn >= t->nr_funcs || t->funcs[fn].id == EMPTY)
		return -ENOENT;
	return utrace_dat_func_addr(t->d, t->funcs[fn].image, t->funcs[fn].id, addr);
}
