/* SPDX-License-Identifier: MIT */
/*
 * samples_fold.c - the sampled stacks of a recording as a call graph
 * (samples.h, utrace_samples_callgraph), so that the flame graph exports
 * (folded stacks, SVG, icicle, diff, pprof: lib/export/) draw samples as
 * they draw function_graph durations.
 *
 * Design: each cpu-clock sample's chain (its frame pointers' or, with
 * --call-graph dwarf, unwound: samples_unwind.c) is named frame by frame
 * as report --samples names them (samples_frame_of), then added from the
 * outermost frame in as one path of the call graph's tree
 * (callgraph_internal.h): every node on it gets one "call" (a sample) and
 * the sample's period (ns of CPU time) as time, its parent that time as
 * its callees', so the innermost frame's self time is the period, as
 * stackcollapse-perf.pl gives a folded line the samples' count.  Off-CPU
 * samples are another event and are left out.  utrace_samples_stacks
 * passes the same stacks frame by frame with their addresses and
 * mappings instead, for pprof's locations (one sample per stack).
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/base/grow.h"

#include "lib/report/callgraph_internal.h"
#include "lib/report/samples.h"
#include "lib/report/samples_internal.h"
#include "lib/report/samples_unwind.h"
#include "lib/tracefile/dat_samples.h"

struct fold {
	struct report r;
	struct utrace_callgraph *g;
	struct utrace_unwind *unwind;
	/* utrace_samples_stacks: one stack's frames, and where they go */
	struct utrace_sample_frame *v;
	size_t cap_v;
	int (*fn)(void *arg, const struct utrace_dat_sample *s, const struct utrace_sample_frame *v,
		  uint32_t n, struct utrace_error *err);
	void *arg;
};

/* The name of a frame in the graph: its symbol, else "[unknown]" as
 * perf script and stackcollapse-perf.pl write it. */
static int frame_fn(struct fold *f, uint32_t frame, uint32_t *fn, struct utrace_error *err)
{
	const char *name = f->r.frames[frame].name;

	return utrace_func_table_intern(f->g->ft, name ? name : UTRACE_CALLGRAPH_UNKNOWN, fn, err);
}

static int add_path(struct fold *f, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	uint64_t w = s->period ? s->period : 1;
	uint32_t n = s->nr ? s->nr : 1, parent = 0, node, fn;
	struct tree *t = &f->g->t;

	for (uint32_t i = n; i-- > 0;) { /* outermost first */
		int64_t fr = samples_frame_of(&f->r, s->pid, s->nr ? s->chain[i] : s->ip);

		if (fr < 0 || frame_fn(f, (uint32_t)fr, &fn, err) < 0 ||
		    callgraph_tree_child(t, parent, fn, &node) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		t->n[node].calls++;
		t->n[node].timed++;
		t->n[node].time += w;
		if (parent)
			t->n[parent].child_time += w;
		parent = node;
	}
	return 0;
}

/* A sample's frames named, innermost first, to f->fn. */
static int pass_stack(struct fold *f, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	uint32_t n = s->nr ? s->nr : 1;

	if (UTRACE_GROW(f->v, f->cap_v, n) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ip = s->nr ? s->chain[i] : s->ip;
		int64_t fr = samples_frame_of(&f->r, s->pid, ip);
		struct utrace_sample_frame *v = &f->v[i];
		struct utrace_dat_mapping m;

		if (fr < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		*v = (struct utrace_sample_frame){.ip = ip, .name = f->r.frames[fr].name,
						  .kernel = f->r.frames[fr].kernel,
						  .at = i == 0 || i == s->nr_kernel};
		if (v->kernel) {
			v->path = f->r.frames[fr].dso_path;
		} else if (utrace_dat_sample_mapping(f->r.d, s->pid, ip, &m)) {
			v->path = m.path;
			v->map_start = m.start;
			v->map_len = m.len;
			v->map_pgoff = m.pgoff;
		}
	}
	return f->fn(f->arg, s, f->v, n, err);
}

static int fold_sample(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct fold *f = arg;
	struct utrace_dat_sample full;

	if (s->offcpu)
		return 0;
	if (f->unwind) {
		if (utrace_unwind_sample(f->unwind, s, &full) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		s = &full;
	}
	return f->fn ? pass_stack(f, s, err) : add_path(f, s, err);
}

/* d's on-CPU samples, unwound where they need it, through fold_sample. */
static int fold_each(struct utrace_dat *d, struct fold *f, struct utrace_error *err)
{
	struct dso *dsos = NULL;
	uint64_t lost;
	int ret = 0;

	f->r = (struct report){.d = d, .dsos = &dsos};
	if (!utrace_dat_has_samples(d, NULL, NULL))
		return utrace_error_set(err, -ENOENT,
					"%s: no samples (record with -F HZ to sample)",
					utrace_dat_path(d));
	if (utrace_dat_samples_have_stacks(d))
		ret = utrace_unwind_new(d, &f->unwind, err);
	if (ret == 0)
		ret = utrace_dat_samples_each(d, fold_sample, f, &lost, err);
	samples_report_free(&f->r);
	samples_dsos_free(dsos);
	utrace_unwind_free(f->unwind);
	free(f->v);
	return ret;
}

int utrace_samples_stacks(struct utrace_dat *d,
			  int (*fn)(void *arg, const struct utrace_dat_sample *s,
				    const struct utrace_sample_frame *v, uint32_t n,
				    struct utrace_error *err),
			  void *arg, struct utrace_error *err)
{
	struct fold f = {.fn = fn, .arg = arg};

	return fold_each(d, &f, err);
}

int utrace_samples_callgraph(struct utrace_dat *d, struct utrace_callgraph **out,
			     struct utrace_error *err)
{
	struct fold f = {0};
	int ret;

	*out = NULL;
	if (!utrace_dat_has_samples(d, NULL, NULL))
		return utrace_error_set(err, -ENOENT,
					"%s: no samples (record with -F HZ to sample)",
					utrace_dat_path(d));
	ret = utrace_callgraph_new(d, &f.g, err);
	if (ret == 0) {
		f.g->sampled = true;
		ret = fold_each(d, &f, err);
	}
	if (ret < 0) {
		utrace_callgraph_free(f.g);
		return ret;
	}
	*out = f.g;
	return 0;
}
