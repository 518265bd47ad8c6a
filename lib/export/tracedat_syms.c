/* SPDX-License-Identifier: MIT */
/*
 * tracedat_syms.c - the kallsyms of a trace.dat being converted
 * (lib/export/tracedat_internal.h): which address each function gets in
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
int tracedat_add_sym(struct conv *c, uint64_t addr, char *name, bool movable, uint64_t *out)
{
	struct slot *sl;

	while ((sl = map_find(&c->addrs, addr, 0))) {
		if (!strcmp(c->syms[sl->val].name, name) || !movable) {
			free(name);
			*out = addr;
			return 0;
		}
		addr = c->next_synthetic;
		c->next_synthetic += SYNTHETIC_STEP;
	}
	if (UTRACE_GROW(c->syms, c->cap_syms, c->nr_syms + 1) < 0)
		goto oom;
	if (map_add(&c->addrs, addr, 0, c->nr_syms) < 0)
		goto oom;
	c->syms[c->nr_syms++] = (struct utrace_tracedat_sym){addr, name};
	if (addr > c->max_addr)
		c->max_addr = addr;
	*out = addr;
	return 0;
oom:
	free(name);
	return tracedat_nomem(c);
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
int tracedat_func_addr(struct conv *c, uint32_t image, uint32_t id, uint64_t *out)
{
	struct slot *sl = map_find(&c->funcs, image, id);
	uint64_t addr;
	char *name;
	int ret;

	if (sl) {
		*out = sl->val;
		return 0;
	}
	if (c->pass == 2)
		return tracedat_changed(c);
	if (utrace_dat_func_addr(c->d, image, id, &addr) < 0) {
		addr = c->next_synthetic;
		c->next_synthetic += SYNTHETIC_STEP;
	}
	name = sym_name(utrace_dat_func_name(c->d, image, id), addr);
	if (!name)
		return tracedat_nomem(c);
	ret = tracedat_add_sym(c, addr, name, true, out);
	if (ret < 0)
		return ret;
	return map_add(&c->funcs, image, id, *out) < 0 ? tracedat_nomem(c) : 0;
}

/* The first pass lists the symbol holding a function tracer caller. */
int tracedat_note_caller(struct conv *c, uint32_t image, uint64_t ip)
{
	uint64_t off = 0, start = ip, dummy;
	const char *raw;
	char *name;

	if (c->pass == 2 || !ip || map_find(&c->callers, image, ip))
		return 0;
	if (map_add(&c->callers, image, ip, 0) < 0)
		return tracedat_nomem(c);
	raw = utrace_dat_addr_name(c->d, image, ip, &off);
	if (raw && *raw && off <= ip)
		start = ip - off;
	else
		raw = NULL;
	name = sym_name(raw, ip);
	if (!name)
		return tracedat_nomem(c);
	if (ip > c->max_addr)
		c->max_addr = ip;
	return tracedat_add_sym(c, start, name, false, &dummy);
}
