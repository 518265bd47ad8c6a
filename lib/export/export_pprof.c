/* SPDX-License-Identifier: MIT */
/*
 * export_pprof.c - call paths as a gzipped pprof profile
 * (lib/export/export_pprof.h).
 *
 * Design: the profile is small (one sample per distinct call path, one
 * function per distinct name), so it is built whole in memory with the
 * protobuf writer (lib/export/protobuf.h), in the order the fields allow:
 * the samples while the call graph is walked, then the locations and
 * functions the walk named, then the string table, gzipped
 * (pprof_common.c, shared with export_pprof_samples.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_pprof.h"
#include "lib/export/pprof_internal.h"

struct pprof {
	struct utrace_pb pb;
	struct pprof_strings strs;
	uint64_t *funcs; /* the functions named: their name's string id */
	size_t nr_funcs, cap_funcs;
	struct pprof_ids func_ids; /* (name's string id, 0) -> function id */
	uint64_t *path;		   /* function ids from the root to the node */
	size_t path_cap;
};

/* The function id of name (from 1), a new one if it is new; 0 when out
 * of memory. */
static uint64_t function_id(struct pprof *pp, const char *name)
{
	int64_t str = pprof_string(&pp->strs, name);
	uint64_t id;

	if (str < 0)
		return 0;
	if ((id = pprof_ids_find(&pp->func_ids, (uint64_t)str, 0)))
		return id;
	if (UTRACE_GROW(pp->funcs, pp->cap_funcs, pp->nr_funcs + 1) < 0)
		return 0;
	pp->funcs[pp->nr_funcs] = (uint64_t)str;
	id = ++pp->nr_funcs;
	return pprof_ids_add(&pp->func_ids, (uint64_t)str, 0, id) < 0 ? 0 : id;
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
	{
		uint64_t leaf_first[UTRACE_FLAME_MAX_DEPTH];
		struct pprof_stack st = {0, n->depth + 1, n->calls, self};

		for (unsigned i = 0; i <= n->depth; i++)
			leaf_first[i] = pp->path[n->depth - i];
		pprof_put_sample(&pp->pb, leaf_first, &st);
	}
	return cut;
}

/* Everything after the samples: the mapping (the program, whose
 * functions are named already: pprof need not symbolize), locations,
 * functions; the strings come last (pprof_finish). */
static void pprof_tables(struct pprof *pp, const char *binary)
{
	struct utrace_pb *b = &pp->pb;
	int64_t file = pprof_string(&pp->strs, binary);

	if (file < 0)
		b->oom = true;
	utrace_pb_begin(b, PROF_MAPPING);
	utrace_pb_uint(b, MAP_ID, 1);
	utrace_pb_uint(b, MAP_FILENAME, (uint64_t)file);
	utrace_pb_uint(b, MAP_HAS_FUNCTIONS, 1);
	utrace_pb_end(b);

	for (size_t i = 0; i < pp->nr_funcs; i++) {
		utrace_pb_begin(b, PROF_LOCATION);
		utrace_pb_uint(b, LOC_ID, i + 1);
		utrace_pb_uint(b, LOC_MAPPING_ID, 1);
		utrace_pb_begin(b, LOC_LINE);
		utrace_pb_uint(b, LINE_FUNCTION_ID, i + 1);
		utrace_pb_end(b);
		utrace_pb_end(b);
		utrace_pb_begin(b, PROF_FUNCTION);
		utrace_pb_uint(b, FUNC_ID, i + 1);
		utrace_pb_uint(b, FUNC_NAME, pp->funcs[i]);
		utrace_pb_uint(b, FUNC_SYSTEM_NAME, pp->funcs[i]);
		utrace_pb_end(b);
	}
}

int utrace_export_pprof(const struct utrace_callgraph *g, const char *binary, FILE *out,
			struct utrace_error *err)
{
	struct pprof pp = {0};
	int64_t calls, count, time, ns;
	int ret;

	pprof_strings_init(&pp.strs);
	calls = pprof_string(&pp.strs, "calls");
	count = pprof_string(&pp.strs, "count");
	time = pprof_string(&pp.strs, "time");
	ns = pprof_string(&pp.strs, "nanoseconds");
	pp.pb.oom = calls < 0 || count < 0 || time < 0 || ns < 0;
	pprof_value_type(&pp.pb, PROF_SAMPLE_TYPE, (uint64_t)calls, (uint64_t)count);
	pprof_value_type(&pp.pb, PROF_SAMPLE_TYPE, (uint64_t)time, (uint64_t)ns);
	ret = utrace_callgraph_walk(g, pprof_node, &pp);
	if (ret == 0) {
		pprof_tables(&pp, binary);
		pprof_value_type(&pp.pb, PROF_PERIOD_TYPE, (uint64_t)time, (uint64_t)ns);
		utrace_pb_uint(&pp.pb, PROF_PERIOD, 1);
		utrace_pb_uint(&pp.pb, PROF_DEFAULT_SAMPLE_TYPE, (uint64_t)time);
		ret = pprof_finish(&pp.pb, &pp.strs, out, err);
	} else {
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	}
	utrace_pb_free(&pp.pb);
	pprof_strings_free(&pp.strs);
	pprof_ids_free(&pp.func_ids);
	free(pp.funcs);
	free(pp.path);
	return ret;
}
