/* SPDX-License-Identifier: MIT */
/*
 * export_pprof.c - call paths as a gzipped pprof profile
 * (lib/export/export_pprof.h).
 *
 * Design: the profile is small (one sample per distinct call path, one
 * function per distinct name), so it is built whole in memory with the
 * protobuf writer (lib/export/protobuf.h), in the order the fields allow:
 * the samples while the call graph is walked, then the locations and
 * functions the walk named, then the string table.  It is compressed
 * with zlib's gzip format at the end.  Field numbers are those of
 * google/pprof's proto/profile.proto.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/base/grow.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_pprof.h"
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
	MAP_FILENAME = 5,
	MAP_HAS_FUNCTIONS = 7,
	LOC_ID = 1,
	LOC_MAPPING_ID = 2,
	LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNC_ID = 1,
	FUNC_NAME = 2,
	FUNC_SYSTEM_NAME = 3,
};

/* The fixed strings, at the start of the string table. */
static const char *const fixed_strings[] = {"", "calls", "count", "time", "nanoseconds"};
enum { STR_CALLS = 1, STR_COUNT, STR_TIME, STR_NS, STR_BINARY, NR_FIXED };

struct pprof {
	struct utrace_pb pb;
	const char **names; /* function id - 1 -> name */
	size_t nr_names, cap_names;
	uint64_t *hash; /* open addressing: function id, 0 empty */
	size_t hash_cap;
	uint64_t *path; /* function ids from the root to the node */
	size_t path_cap;
};

static size_t name_slot(const char *s, size_t cap)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h & (cap - 1);
}

static int hash_grow(struct pprof *pp)
{
	size_t cap = pp->hash_cap ? pp->hash_cap * 2 : 1024;
	uint64_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < pp->nr_names; i++) {
		size_t s = name_slot(pp->names[i], cap);

		while (h[s])
			s = (s + 1) & (cap - 1);
		h[s] = i + 1;
	}
	free(pp->hash);
	pp->hash = h;
	pp->hash_cap = cap;
	return 0;
}

/* The function id of name (from 1), a new one if it is new; 0 when out
 * of memory. */
static uint64_t function_id(struct pprof *pp, const char *name)
{
	size_t s;

	if ((pp->nr_names + 1) * 2 > pp->hash_cap && hash_grow(pp) < 0)
		return 0;
	for (s = name_slot(name, pp->hash_cap); pp->hash[s]; s = (s + 1) & (pp->hash_cap - 1))
		if (!strcmp(pp->names[pp->hash[s] - 1], name))
			return pp->hash[s];
	if (UTRACE_GROW(pp->names, pp->cap_names, pp->nr_names + 1) < 0)
		return 0;
	pp->names[pp->nr_names++] = name;
	pp->hash[s] = pp->nr_names;
	return pp->nr_names;
}

/* One sample per node: the path leaf first, [calls, self ns]. */
static int pprof_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct pprof *pp = arg;
	int cut = n->depth + 1 >= UTRACE_FLAME_MAX_DEPTH && n->has_children;
	uint64_t id, self = cut ? n->total : n->self;

	if (n->depth >= UTRACE_FLAME_MAX_DEPTH)
		return 1;
	if (UTRACE_GROW(pp->path, pp->path_cap, (size_t)n->depth + 1) < 0)
		return -ENOMEM;
	if (!(id = function_id(pp, n->name)))
		return -ENOMEM;
	pp->path[n->depth] = id;
	if (!n->calls && !self)
		return cut;
	utrace_pb_begin(&pp->pb, PROF_SAMPLE);
	utrace_pb_begin(&pp->pb, SAMPLE_LOCATION_ID);
	for (unsigned i = n->depth + 1; i-- > 0;)
		utrace_pb_varint(&pp->pb, pp->path[i]);
	utrace_pb_end(&pp->pb);
	utrace_pb_begin(&pp->pb, SAMPLE_VALUE);
	utrace_pb_varint(&pp->pb, n->calls);
	utrace_pb_varint(&pp->pb, self);
	utrace_pb_end(&pp->pb);
	utrace_pb_end(&pp->pb);
	return cut;
}

static void value_type(struct utrace_pb *b, unsigned field, uint64_t type, uint64_t unit)
{
	utrace_pb_begin(b, field);
	utrace_pb_uint(b, VT_TYPE, type);
	utrace_pb_uint(b, VT_UNIT, unit);
	utrace_pb_end(b);
}

/* Everything after the samples: the mapping (the program, whose
 * functions are named already: pprof need not symbolize), locations,
 * functions, strings. */
static void pprof_tables(struct pprof *pp, const char *binary)
{
	struct utrace_pb *b = &pp->pb;

	utrace_pb_begin(b, PROF_MAPPING);
	utrace_pb_uint(b, MAP_ID, 1);
	utrace_pb_uint(b, MAP_FILENAME, STR_BINARY);
	utrace_pb_uint(b, MAP_HAS_FUNCTIONS, 1);
	utrace_pb_end(b);

	for (size_t i = 0; i < pp->nr_names; i++) {
		utrace_pb_begin(b, PROF_LOCATION);
		utrace_pb_uint(b, LOC_ID, i + 1);
		utrace_pb_uint(b, LOC_MAPPING_ID, 1);
		utrace_pb_begin(b, LOC_LINE);
		utrace_pb_uint(b, LINE_FUNCTION_ID, i + 1);
		utrace_pb_end(b);
		utrace_pb_end(b);
		utrace_pb_begin(b, PROF_FUNCTION);
		utrace_pb_uint(b, FUNC_ID, i + 1);
		utrace_pb_uint(b, FUNC_NAME, NR_FIXED + i);
		utrace_pb_uint(b, FUNC_SYSTEM_NAME, NR_FIXED + i);
		utrace_pb_end(b);
	}
	for (size_t i = 0; i < STR_BINARY; i++)
		utrace_pb_str(b, PROF_STRING_TABLE, fixed_strings[i]);
	utrace_pb_str(b, PROF_STRING_TABLE, binary ? binary : "");
	for (size_t i = 0; i < pp->nr_names; i++)
		utrace_pb_str(b, PROF_STRING_TABLE, pp->names[i]);
}

/* data[0..len) gzipped to out. */
static int write_gzip(const unsigned char *data, size_t len, FILE *out, struct utrace_error *err)
{
	unsigned char chunk[1 << 16];
	z_stream zs = {0};
	int zr;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return utrace_error_set(err, -ENOMEM, "zlib: cannot start compressing");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR || fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out) !=
						sizeof(chunk) - zs.avail_out) {
			deflateEnd(&zs);
			return utrace_error_set(err, -EIO, "writing the profile failed");
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	return 0;
}

int utrace_export_pprof(const struct utrace_callgraph *g, const char *binary, FILE *out,
			struct utrace_error *err)
{
	struct pprof pp = {0};
	int ret;

	value_type(&pp.pb, PROF_SAMPLE_TYPE, STR_CALLS, STR_COUNT);
	value_type(&pp.pb, PROF_SAMPLE_TYPE, STR_TIME, STR_NS);
	ret = utrace_callgraph_walk(g, pprof_node, &pp);
	if (ret == 0) {
		pprof_tables(&pp, binary);
		value_type(&pp.pb, PROF_PERIOD_TYPE, STR_TIME, STR_NS);
		utrace_pb_uint(&pp.pb, PROF_PERIOD, 1);
		utrace_pb_uint(&pp.pb, PROF_DEFAULT_SAMPLE_TYPE, STR_TIME);
	}
	if (ret < 0 || pp.pb.oom)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	else if (pp.pb.len > UINT32_MAX)
		ret = utrace_error_set(err, -EFBIG, "the profile is larger than 4 GB");
	else
		ret = write_gzip(pp.pb.p, pp.pb.len, out, err);
	utrace_pb_free(&pp.pb);
	free(pp.names);
	free(pp.hash);
	free(pp.path);
	return ret;
}
