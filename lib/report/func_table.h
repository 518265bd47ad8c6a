/* SPDX-License-Identifier: MIT */
/*
 * func_table.h - the functions of a trace, numbered by name.
 *
 * Events name a function by (image, id); the same function has another id
 * in another process or object, and analyses (profile, call graph,
 * function filters) count by name, as uftrace and perf do.  A table maps
 * (image, id) to a dense number shared by every id with the same name,
 * so per-function data can live in plain arrays.  Memory grows with the
 * distinct functions met, never with the events.
 */
#ifndef UTRACE_LIB_FUNC_TABLE_H
#define UTRACE_LIB_FUNC_TABLE_H

#include <stdint.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

struct utrace_func_table;

int utrace_func_table_new(struct utrace_dat *d, struct utrace_func_table **out,
			  struct utrace_error *err);
void utrace_func_table_free(struct utrace_func_table *t);

/* The number of the function of (image, id) in *fn; 1 if the name was
 * new, 0 if known, <0 (out of memory) with err filled. */
int utrace_func_table_lookup(struct utrace_func_table *t, uint32_t image, uint32_t id, uint32_t *fn,
			     struct utrace_error *err);
/*
 * A consumer's cache in front of utrace_func_table_lookup, inline: the
 * numbers of the last 256 (image, id) pairs met, one slot each by a hash
 * of the pair (a lookup for every event cost a tenth of a --profile
 * pass).  Zeroed (= {0}) before use: fn1 is the number + 1, 0 = empty.
 */
#define UTRACE_FUNC_CACHE 256
struct utrace_func_cache {
	uint64_t key[UTRACE_FUNC_CACHE];
	uint32_t fn1[UTRACE_FUNC_CACHE];
};

static inline int utrace_func_table_lookup_cached(struct utrace_func_table *t,
						  struct utrace_func_cache *c, uint32_t image,
						  uint32_t id, uint32_t *fn, struct utrace_error *err)
{
	uint64_t key = (uint64_t)image << 32 | id;
	uint32_t h = (id ^ image * 0x9e3779b1u) & (UTRACE_FUNC_CACHE - 1);
	int ret;

	if (c->fn1[h] && c->key[h] == key) {
		*fn = c->fn1[h] - 1;
		return 0;
	}
	ret = utrace_func_table_lookup(t, image, id, fn, err);
	if (ret >= 0 && *fn != UINT32_MAX) {
		c->key[h] = key;
		c->fn1[h] = *fn + 1;
	}
	return ret;
}

/* Numbers a name that is not a function of the file ("[unknown]"). */
int utrace_func_table_intern(struct utrace_func_table *t, const char *name, uint32_t *fn,
			     struct utrace_error *err);

uint32_t utrace_func_table_count(const struct utrace_func_table *t);
const char *utrace_func_table_name(const struct utrace_func_table *t, uint32_t fn);
/* Runtime address of the first (image, id) met with that name; <0 if
 * unknown. */
int utrace_func_table_addr(const struct utrace_func_table *t, uint32_t fn, uint64_t *addr);

#endif
