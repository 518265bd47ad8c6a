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
/* Numbers a name that is not a function of the file ("[unknown]"). */
int utrace_func_table_intern(struct utrace_func_table *t, const char *name, uint32_t *fn,
			     struct utrace_error *err);

uint32_t utrace_func_table_count(const struct utrace_func_table *t);
const char *utrace_func_table_name(const struct utrace_func_table *t, uint32_t fn);
/* Runtime address of the first (image, id) met with that name; <0 if
 * unknown. */
int utrace_func_table_addr(const struct utrace_func_table *t, uint32_t fn, uint64_t *addr);

#endif
