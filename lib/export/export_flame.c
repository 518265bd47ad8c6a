/* SPDX-License-Identifier: MIT */
/*
 * export_flame.c - folded stacks from the call graph.
 *
 * Design: a depth-first walk of lib/report/callgraph.c's tree keeps the names
 * of the path to the current node; a node prints the path and its self
 * time (total minus its callees' total), so the widths add up to the
 * total times as flamegraph.pl sums them.  The tree already merges equal
 * paths, so the output has one line per distinct path (memory and output
 * grow with the paths, not the events).  Beyond UTRACE_FLAME_MAX_DEPTH a
 * node's whole time is given to the deepest frame shown, so a deep
 * recursion cannot produce lines megabytes long.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/export/export_flame.h"

struct flame {
	FILE *out;
	enum utrace_flame_unit unit;
	const char *path[UTRACE_FLAME_MAX_DEPTH];
};

static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' ? ' ' : *s, out);
}

static int flame_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct flame *fl = arg;
	int cut = n->depth + 1 >= UTRACE_FLAME_MAX_DEPTH && n->has_children;
	uint64_t v = cut ? n->total : n->self;

	if (n->depth >= UTRACE_FLAME_MAX_DEPTH)
		return 1;
	fl->path[n->depth] = n->name;
	if (fl->unit == UTRACE_FLAME_US)
		v /= 1000;
	if (v) {
		for (unsigned i = 0; i <= n->depth; i++) {
			if (i)
				fputc(';', fl->out);
			put_name(fl->out, fl->path[i]);
		}
		fprintf(fl->out, " %" PRIu64 "\n", v);
	}
	return cut;
}

int utrace_export_flame(const struct utrace_callgraph *g, FILE *out, enum utrace_flame_unit unit,
			struct utrace_error *err)
{
	struct flame *fl = calloc(1, sizeof(*fl));
	int ret;

	if (!fl)
		return utrace_error_set(err, -ENOMEM, "out of memory writing the flame graph");
	fl->out = out;
	fl->unit = unit;
	ret = utrace_callgraph_walk(g, flame_node, fl);
	free(fl);
	if (ret < 0)
		return utrace_error_set(err, ret, "out of memory writing the flame graph");
	if (ferror(out))
		return utrace_error_set(err, -EIO, "writing the flame graph failed");
	return 0;
}
