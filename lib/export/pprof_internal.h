/* SPDX-License-Identifier: MIT */
/*
 * pprof_internal.h - what the two pprof writers share
 * (export_pprof.c: call paths; export_pprof_samples.c: sampled stacks):
 * google/pprof's proto/profile.proto field numbers, the string table,
 * id tables, and the gzipped end of the message (pprof_common.c).
 */
#ifndef UTRACE_LIB_EXPORT_PPROF_INTERNAL_H
#define UTRACE_LIB_EXPORT_PPROF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/export/protobuf.h"

enum {
	PROF_SAMPLE_TYPE = 1,
	PROF_SAMPLE = 2,
	PROF_MAPPING = 3,
	PROF_LOCATION = 4,
	PROF_FUNCTION = 5,
	PROF_STRING_TABLE = 6,
	PROF_PERIOD_TYPE = 11,
	PROF_PERIOD = 12,
	PROF_DEFAULT_SAMPLE_TYPE = 14,
	VT_TYPE = 1,
	VT_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	MAP_ID = 1,
	MAP_MEMORY_START = 2,
	MAP_MEMORY_LIMIT = 3,
	MAP_FILE_OFFSET = 4,
	MAP_FILENAME = 5,
	MAP_HAS_FUNCTIONS = 7,
	MAP_HAS_FILENAMES = 8,
	MAP_HAS_LINE_NUMBERS = 9,
	LOC_ID = 1,
	LOC_MAPPING_ID = 2,
	LOC_ADDRESS = 3,
	LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNC_ID = 1,
	FUNC_NAME = 2,
	FUNC_SYSTEM_NAME = 3,
	FUNC_FILENAME = 4,
	FUNC_START_LINE = 5,
};

/* A pair of u64 keys to an id (not 0), open addressing. */
struct pprof_ids {
	uint64_t *v; /* a, b, id per slot; id 0: empty */
	size_t cap, nr;
};
/* The id of (a, b), 0 if none. */
uint64_t pprof_ids_find(const struct pprof_ids *t, uint64_t a, uint64_t b);
int pprof_ids_add(struct pprof_ids *t, uint64_t a, uint64_t b, uint64_t id); /* -ENOMEM */
void pprof_ids_free(struct pprof_ids *t);

/* The string table: "" is string 0; each string once, copied. */
struct pprof_strings {
	char **s;
	size_t nr, cap;
	struct pprof_ids ids; /* (hash, k) -> index + 1 */
};
void pprof_strings_init(struct pprof_strings *t);
/* The index of s (NULL: ""), added if new; -1 when out of memory. */
int64_t pprof_string(struct pprof_strings *t, const char *s);
void pprof_strings_free(struct pprof_strings *t);

/* A sample's location ids (leaf first) at first in an array, n of
 * them, and its two values. */
struct pprof_stack {
	size_t first;
	uint32_t n;
	uint64_t samples, ns;
};
void pprof_put_sample(struct utrace_pb *b, const uint64_t *ids, const struct pprof_stack *st);
void pprof_value_type(struct utrace_pb *b, unsigned field, uint64_t type, uint64_t unit);
/* Appends the string table to b, and writes b gzipped to out. */
int pprof_finish(struct utrace_pb *b, struct pprof_strings *t, FILE *out, struct utrace_error *err);

#endif
