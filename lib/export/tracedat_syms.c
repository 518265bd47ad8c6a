/* SPDX-License-Identifier: MIT */
/*
 * tracedat_syms.c - the kallsyms of a trace.dat being converted
 * (lib/export/tracedat_syms.h): which address each function gets in
 * the records, and the symbol list the header prints.
 *
 * Design.  Each function's runtime address (its call site) is its value
 * in the records and its kallsyms entry, named as utrace names it (C++
 * names shortened for kallsyms, see utrace_tracedat_symbol_name()).
 * Function tracer callers are named by the symbol holding them, listed at
 * its start; a caller without a symbol gets an entry of its own named by
 * its address, so that trace-cmd, which names an address after the
 * closest symbol below it, never borrows a wrong name.  The processes of
 * one recording can share addresses (fork) or reuse them (exec): a
 * function whose address is taken by another name, or that has no known
 * address, is given one above any user address.  An end marker follows
 * the highest address.  Only the first pass adds symbols; the second
 * finds every one it needs already listed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/tracedat_internal.h"
#include "lib/export/tracedat_syms.h"

/* addresses for functions without one of their own: above user space */
#define SYNTHETIC_BASE 0xffffff0000000000ull
#define SYNTHETIC_STEP 16

struct slot {
	uint64_t k1, k2, val;
	bool used;
};

/* Open addressing, linear probing, at most half full. */
struct map {
	struct slot *v;
	size_t cap, n;
};

struct tracedat_syms {
	struct utrace_dat *d;
	struct utrace_error *err;
	bool closed;	    /* sorted: the first pass is over */
	struct map funcs;   /* (image, id) -> address in the file */
	struct map callers; /* (image, caller address) already named */
	struct map addrs;   /* address -> index in syms */
	struct utrace_tracedat_sym *syms;
	size_t nr_syms, cap_syms;
	uint64_t next_synthetic, max_addr;
};

struct tracedat_syms *tracedat_syms_new(struct utrace_dat *d, struct utrace_error *err)
{
	struct tracedat_syms *y = calloc(1, sizeof(*y));

	if (!y) {
		tracedat_nomem(d, err);
		return NULL;
	}
	y->d = d;
	y->err = err;
	y->next_synthetic = SYNTHETIC_BASE;
	return y;
}

void tracedat_syms_free(struct tracedat_syms *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->nr_syms; i++)
		free(y->syms[i].name);
	free(y->syms);
	free(y->funcs.v);
	free(y->callers.v);
	free(y->addrs.v);
	free(y);
}

static uint64_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

static struct slot *map_find(const struct map *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash2(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->v[i].used)
			return NULL;
		if (m->v[i].k1 == k1 && m->v[i].k2 == k2)
			return &m->v[i];
	}
}

/* Adds a key that is not in the map. */
static int map_add(struct map *m, uint64_t k1, uint64_t k2, uint64_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->v[j].used)
				continue;
			for (i = hash2(m->v[j].k1, m->v[j].k2) & (cap - 1); v[i].used;
			     i = (i + 1) & (cap - 1))
				;
			v[i] = m->v[j];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	for (i = hash2(k1, k2) & (m->cap - 1); m->v[i].used; i = (i + 1) & (m->cap - 1))
		;
	m->v[i] = (struct slot){k1, k2, val, true};
	m->n++;
	return 0;
}

/*
 * Lists name at addr, taking name.  An address listed under another name
 * is kept for the first one; if movable, the function moves to a new
 * address.  *out: the address listed.
 */
int tracedat_syms_add(struct tracedat_syms *y, uint64_t addr, char *name, bool movable,
		      uint64_t *out)
{
	struct slot *sl;

	while ((sl = map_find(&y->addrs, addr, 0))) {
		if (!strcmp(y->syms[sl->val].name, name) || !movable) {
			free(name);
			*out = addr;
			return 0;
		}
		addr = y->next_synthetic;
		y->next_synthetic += SYNTHETIC_STEP;
	}
	if (UTRACE_GROW(y->syms, y->cap_syms, y->nr_syms + 1) < 0)
		goto oom;
	if (map_add(&y->addrs, addr, 0, y->nr_syms) < 0)
		goto oom;
	y->syms[y->nr_syms++] = (struct utrace_tracedat_sym){addr, name};
	if (addr > y->max_addr)
		y->max_addr = addr;
	*out = addr;
	return 0;
oom:
	free(name);
	return tracedat_nomem(y->d, y->err);
}

int tracedat_syms_add_synthetic(struct tracedat_syms *y, char *name, uint64_t *out)
{
	int ret = tracedat_syms_add(y, y->next_synthetic, name, true, out);

	y->next_synthetic += SYNTHETIC_STEP;
	return ret;
}

void tracedat_syms_reach(struct tracedat_syms *y, uint64_t addr)
{
	if (addr > y->max_addr)
		y->max_addr = addr;
}

/* name for kallsyms, or its address when it has none. */
static char *sym_name(const char *name, uint64_t addr)
{
	char *s;

	if (name && *name)
		return utrace_tracedat_symbol_name(name);
	return asprintf(&s, "0x%" PRIx64, addr) < 0 ? NULL : s;
}

/* The address of a function in the file; the first pass lists it. */
int tracedat_syms_func(struct tracedat_syms *y, uint32_t image, uint32_t id, uint64_t *out)
{
	struct slot *sl = map_find(&y->funcs, image, id);
	uint64_t addr;
	char *name;
	int ret;

	if (sl) {
		*out = sl->val;
		return 0;
	}
	if (y->closed)
		return tracedat_changed(y->d, y->err);
	if (utrace_dat_func_addr(y->d, image, id, &addr) < 0) {
		addr = y->next_synthetic;
		y->next_synthetic += SYNTHETIC_STEP;
	}
	name = sym_name(utrace_dat_func_name(y->d, image, id), addr);
	if (!name)
		return tracedat_nomem(y->d, y->err);
	ret = tracedat_syms_add(y, addr, name, true, out);
	if (ret < 0)
		return ret;
	return map_add(&y->funcs, image, id, *out) < 0 ? tracedat_nomem(y->d, y->err) : 0;
}

/* The first pass lists the symbol holding a function tracer caller. */
int tracedat_syms_caller(struct tracedat_syms *y, uint32_t image, uint64_t ip)
{
	uint64_t off = 0, start = ip, dummy;
	const char *raw;
	char *name;

	if (y->closed || !ip || map_find(&y->callers, image, ip))
		return 0;
	if (map_add(&y->callers, image, ip, 0) < 0)
		return tracedat_nomem(y->d, y->err);
	raw = utrace_dat_addr_name(y->d, image, ip, &off);
	if (raw && *raw && off <= ip)
		start = ip - off;
	else
		raw = NULL;
	name = sym_name(raw, ip);
	if (!name)
		return tracedat_nomem(y->d, y->err);
	if (ip > y->max_addr)
		y->max_addr = ip;
	return tracedat_syms_add(y, start, name, false, &dummy);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct utrace_tracedat_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t tracedat_syms_close(struct tracedat_syms *y)
{
	qsort(y->syms, y->nr_syms, sizeof(*y->syms), sym_cmp);
	y->closed = true;
	return y->nr_syms;
}

const struct utrace_tracedat_sym *tracedat_syms_list(const struct tracedat_syms *y, size_t *n,
						     uint64_t *end)
{
	*n = y->nr_syms;
	*end = y->max_addr + 1;
	return y->syms;
}
