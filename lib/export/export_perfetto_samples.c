/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_samples.c - the samples of `record -F` in the Perfetto
 * trace (export_perfetto_internal.h, utrace_perfetto_samples): one
 * PerfSample packet per on-CPU sample, as Perfetto's own traced_perf
 * writes them, so that the UI's and trace_processor's CPU profile views
 * (perf_sample, stack_profile_callsite) show them beside the calls.
 *
 *   packet { timestamp, sequence_flags: NEEDS_STATE,
 *            interned_data { function_names, mapping_paths, mappings,
 *                            frames, callstacks }      (what is new only)
 *            perf_sample { cpu, pid, tid, cpu_mode, callstack_iid } }
 *
 * Design: a stack is interned as a trie, each callstack being its
 * parent's plus one frame, keyed (parent iid, frame iid), so a sample
 * whose stack was seen costs a lookup per frame and writes none; a new
 * Callstack lists every frame id, outermost ("bottom") first, as the
 * format wants.  A frame is (mapping, pc relative to it) where the file
 * is known, else (its name, pc); a mapping is (start, path), its path
 * split at '/' into interned components as Perfetto splits it.  Each
 * interned table has its own ids from 1, as InternedData's fields do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/export_perfetto_internal.h"
#include "lib/export/pprof_internal.h"
#include "lib/report/callgraph.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

/* perfetto.protos field numbers (profile_common.proto, interned_data.proto,
 * profile_packet.proto, trace_packet.proto) */
enum {
	PKT_PERF_SAMPLE = 66,
	ID_FUNCTION_NAMES = 5,
	ID_FRAMES = 6,
	ID_CALLSTACKS = 7,
	ID_MAPPING_PATHS = 17,
	ID_MAPPINGS = 19,
	IS_IID = 1,
	IS_STR = 2,
	MAP_IID = 1,
	MAP_START_OFFSET = 3,
	MAP_START = 4,
	MAP_END = 5,
	MAP_PATH_IDS = 7,
	MAP_EXACT_OFFSET = 8,
	FRAME_IID = 1,
	FRAME_NAME_ID = 2,
	FRAME_MAPPING_ID = 3,
	FRAME_REL_PC = 4,
	CS_IID = 1,
	CS_FRAME_IDS = 2,
	PS_CPU = 1,
	PS_PID = 2,
	PS_TID = 3,
	PS_CALLSTACK = 4,
	PS_CPU_MODE = 5,
};
enum { MODE_KERNEL = 1, MODE_USER = 2 };

struct psamples {
	struct utrace_pb *pb;
	int (*end)(void *arg, struct utrace_error *err);
	void *arg;
	struct pprof_strings names, parts, paths; /* function names, path parts, paths */
	struct pprof_ids maps, frames, stacks;	  /* -> mapping, frame, callstack iid */
	uint64_t nmaps, nframes, nstacks;
	uint64_t *fids; /* the sample's frame iids, outermost first */
	size_t cap_fids;
	uint64_t samples;
};

/* The iid of s in table t (0 when out of memory); new ones are written
 * into the packet as InternedString of InternedData's field. */
static uint64_t intern_str(struct psamples *ps, struct pprof_strings *t, unsigned field,
			   const char *s)
{
	size_t before = t->nr;
	int64_t id = pprof_string(t, s);

	if (id <= 0)
		return 0;
	if (t->nr != before) {
		utrace_pb_begin(ps->pb, PKT_INTERNED);
		utrace_pb_begin(ps->pb, field);
		utrace_pb_uint(ps->pb, IS_IID, (uint64_t)id);
		utrace_pb_str(ps->pb, IS_STR, s);
		utrace_pb_end(ps->pb);
		utrace_pb_end(ps->pb);
	}
	return (uint64_t)id;
}

/* The mapping of frame v, written if new; 0 if v has no file. */
static uint64_t mapping_iid(struct psamples *ps, const struct utrace_sample_frame *v)
{
	int64_t path = v->path && !v->kernel ? pprof_string(&ps->paths, v->path) : 0;
	uint64_t iid, part[64];
	unsigned np = 0;
	char buf[4096];

	if (path <= 0)
		return 0;
	if ((iid = pprof_ids_find(&ps->maps, v->map_start, (uint64_t)path)))
		return iid;
	snprintf(buf, sizeof(buf), "%s", v->path);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c && np < 64;
	     c = strtok_r(NULL, "/", &save))
		if (!(part[np++] = intern_str(ps, &ps->parts, ID_MAPPING_PATHS, c)))
			return 0;
	iid = ++ps->nmaps;
	if (pprof_ids_add(&ps->maps, v->map_start, (uint64_t)path, iid) < 0)
		return 0;
	utrace_pb_begin(ps->pb, PKT_INTERNED);
	utrace_pb_begin(ps->pb, ID_MAPPINGS);
	utrace_pb_uint(ps->pb, MAP_IID, iid);
	utrace_pb_uint(ps->pb, MAP_START_OFFSET, 0);
	utrace_pb_uint(ps->pb, MAP_START, v->map_start);
	utrace_pb_uint(ps->pb, MAP_END, v->map_start + v->map_len);
	utrace_pb_begin(ps->pb, MAP_PATH_IDS);
	for (unsigned i = 0; i < np; i++)
		utrace_pb_varint(ps->pb, part[i]);
	utrace_pb_end(ps->pb);
	utrace_pb_uint(ps->pb, MAP_EXACT_OFFSET, v->map_pgoff);
	utrace_pb_end(ps->pb);
	utrace_pb_end(ps->pb);
	return iid;
}

/* The frame of v, written if new; 0 when out of memory. */
static uint64_t frame_iid(struct psamples *ps, const struct utrace_sample_frame *v)
{
	uint64_t name = intern_str(ps, &ps->names, ID_FUNCTION_NAMES,
				   v->name && *v->name ? v->name : UTRACE_CALLGRAPH_UNKNOWN);
	uint64_t map = name ? mapping_iid(ps, v) : 0;
	uint64_t rel = map ? v->ip - v->map_start + v->map_pgoff : v->ip;
	uint64_t a = map ? map : 1ull << 63 | name, iid;

	if (!name)
		return 0;
	if ((iid = pprof_ids_find(&ps->frames, a, rel)))
		return iid;
	iid = ++ps->nframes;
	if (pprof_ids_add(&ps->frames, a, rel, iid) < 0)
		return 0;
	utrace_pb_begin(ps->pb, PKT_INTERNED);
	utrace_pb_begin(ps->pb, ID_FRAMES);
	utrace_pb_uint(ps->pb, FRAME_IID, iid);
	utrace_pb_uint(ps->pb, FRAME_NAME_ID, name);
	if (map) {
		utrace_pb_uint(ps->pb, FRAME_MAPPING_ID, map);
		utrace_pb_uint(ps->pb, FRAME_REL_PC, rel);
	}
	utrace_pb_end(ps->pb);
	utrace_pb_end(ps->pb);
	return iid;
}

/* The callstack of fids[0..k], whose parent is fids[0..k-1]'s. */
static uint64_t stack_iid(struct psamples *ps, uint64_t parent, size_t k)
{
	uint64_t iid = pprof_ids_find(&ps->stacks, parent, ps->fids[k]);

	if (iid)
		return iid;
	iid = ++ps->nstacks;
	if (pprof_ids_add(&ps->stacks, parent, ps->fids[k], iid) < 0)
		return 0;
	utrace_pb_begin(ps->pb, PKT_INTERNED);
	utrace_pb_begin(ps->pb, ID_CALLSTACKS);
	utrace_pb_uint(ps->pb, CS_IID, iid);
	utrace_pb_begin(ps->pb, CS_FRAME_IDS);
	for (size_t i = 0; i <= k; i++)
		utrace_pb_varint(ps->pb, ps->fids[i]);
	utrace_pb_end(ps->pb);
	utrace_pb_end(ps->pb);
	utrace_pb_end(ps->pb);
	return iid;
}

static int put_sample(void *arg, const struct utrace_dat_sample *s,
		      const struct utrace_sample_frame *v, uint32_t n, struct utrace_error *err)
{
	struct psamples *ps = arg;
	uint64_t cs = 0;

	if (UTRACE_GROW(ps->fids, ps->cap_fids, n + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	utrace_pb_reset(ps->pb);
	utrace_pb_begin(ps->pb, TRACE_PACKET);
	utrace_pb_uint(ps->pb, PKT_SEQ_ID, SEQ_ID);
	utrace_pb_uint(ps->pb, PKT_TIMESTAMP, s->ts);
	utrace_pb_uint(ps->pb, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	for (uint32_t i = n, k = 0; i-- > 0; k++) /* outermost first */
		if (!(ps->fids[k] = frame_iid(ps, &v[i])) || !(cs = stack_iid(ps, cs, k)))
			ps->pb->oom = true;
	utrace_pb_begin(ps->pb, PKT_PERF_SAMPLE);
	utrace_pb_uint(ps->pb, PS_CPU, s->cpu);
	utrace_pb_uint(ps->pb, PS_PID, (uint32_t)s->pid);
	utrace_pb_uint(ps->pb, PS_TID, (uint32_t)s->tid);
	utrace_pb_uint(ps->pb, PS_CPU_MODE, n && v[0].kernel ? MODE_KERNEL : MODE_USER);
	if (cs)
		utrace_pb_uint(ps->pb, PS_CALLSTACK, cs);
	utrace_pb_end(ps->pb);
	ps->samples++;
	return ps->end(ps->arg, err);
}

int utrace_perfetto_samples(struct utrace_dat *d, struct utrace_pb *pb,
			    int (*end)(void *arg, struct utrace_error *err), void *arg,
			    struct utrace_error *err)
{
	struct psamples ps = {.pb = pb, .end = end, .arg = arg};
	int ret;

	if (!utrace_dat_has_samples(d, NULL, NULL))
		return 0;
	pprof_strings_init(&ps.names);
	pprof_strings_init(&ps.parts);
	pprof_strings_init(&ps.paths);
	ret = utrace_samples_stacks(d, put_sample, &ps, err);
	pprof_strings_free(&ps.names);
	pprof_strings_free(&ps.parts);
	pprof_strings_free(&ps.paths);
	pprof_ids_free(&ps.maps);
	pprof_ids_free(&ps.frames);
	pprof_ids_free(&ps.stacks);
	free(ps.fids);
	return ret;
}
