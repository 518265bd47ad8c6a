/* SPDX-License-Identifier: MIT */
/*
 * export_chrome_samples.c - the samples of `record -F` in Chrome JSON
 * (lib/export/export_chrome.h, utrace_chrome_samples): the Trace Event
 * Format's "samples" array and its "stackFrames" dictionary.
 *
 * Design: each on-CPU sample (its stack named as report --samples names
 * it, samples_fold.c, as the flame graphs draw it) is one entry of
 * "samples" with its time, thread,
 * CPU and weight (ns of CPU time), and "sf" the id of its innermost
 * frame; "stackFrames" holds every frame once per path, {"name",
 * "parent"}, so a stack is the chain of parents, as Chrome's own
 * profiler writes it.  The frames are a trie interned by (parent, name)
 * in pprof_common.c's id table; the samples stream out as they are read
 * and the frames follow them, written from memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/base/grow.h"
#include "lib/export/export_chrome.h"
#include "lib/export/json.h"
#include "lib/export/pprof_internal.h"
#include "lib/report/callgraph.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

struct cframe {
	uint64_t parent; /* frame id, 0: a root */
	uint64_t name;	 /* string id */
};

struct csamples {
	FILE *out;
	struct pprof_strings strs;
	struct pprof_ids ids; /* (parent, name) -> frame id */
	struct cframe *frames;
	size_t nr, cap;
	uint64_t samples;
};

/* The frame of name under parent, added if new; 0 when out of memory. */
static uint64_t frame_id(struct csamples *cs, uint64_t parent, const char *name)
{
	int64_t str = pprof_string(&cs->strs, name);
	uint64_t id;

	if (str < 0)
		return 0;
	if ((id = pprof_ids_find(&cs->ids, parent, (uint64_t)str)))
		return id;
	if (UTRACE_GROW(cs->frames, cs->cap, cs->nr + 1) < 0)
		return 0;
	cs->frames[cs->nr] = (struct cframe){parent, (uint64_t)str};
	id = ++cs->nr;
	return pprof_ids_add(&cs->ids, parent, (uint64_t)str, id) < 0 ? 0 : id;
}

static int put_sample(void *arg, const struct utrace_dat_sample *s,
		      const struct utrace_sample_frame *v, uint32_t n, struct utrace_error *err)
{
	struct csamples *cs = arg;
	uint64_t sf = 0;

	/* outermost first; a frame without a symbol is "[unknown]", as in
	 * the flame graphs (perf script's name) */
	for (uint32_t i = n; i-- > 0;)
		if (!(sf = frame_id(cs, sf, v[i].name ? v[i].name : UTRACE_CALLGRAPH_UNKNOWN)))
			return utrace_error_set(err, -ENOMEM, "out of memory");
	fprintf(cs->out,
		"%s\n{\"ts\":%" PRIu64 ".%03u,\"pid\":%d,\"tid\":%d,\"cpu\":%u,"
		"\"name\":\"cpu-clock\",\"sf\":\"%" PRIu64 "\",\"weight\":%" PRIu64 "}",
		cs->samples++ ? "," : "", s->ts / 1000, (unsigned)(s->ts % 1000), s->pid, s->tid,
		s->cpu, sf, s->period ? s->period : 1);
	return 0;
}

static void put_frames(struct csamples *cs)
{
	fputs(",\n\"stackFrames\":{", cs->out);
	for (size_t i = 0; i < cs->nr; i++) {
		fprintf(cs->out, "%s\n\"%zu\":{\"name\":", i ? "," : "", i + 1);
		fputc('"', cs->out);
		utrace_json_string(cs->out, cs->strs.s[cs->frames[i].name]);
		fputc('"', cs->out);
		if (cs->frames[i].parent)
			fprintf(cs->out, ",\"parent\":\"%" PRIu64 "\"", cs->frames[i].parent);
		fputc('}', cs->out);
	}
	fputs("}", cs->out);
}

int utrace_chrome_samples(struct utrace_dat *d, FILE *out, uint64_t *n, struct utrace_error *err)
{
	struct csamples cs = {.out = out};
	int ret = 0;

	*n = 0;
	if (!utrace_dat_has_samples(d, NULL, NULL))
		return 0;
	pprof_strings_init(&cs.strs);
	fputs(",\n\"samples\":[", out);
	ret = utrace_samples_stacks(d, put_sample, &cs, err);
	fputs("]", out);
	if (ret == 0)
		put_frames(&cs);
	*n = cs.samples;
	pprof_strings_free(&cs.strs);
	pprof_ids_free(&cs.ids);
	free(cs.frames);
	return ret;
}
