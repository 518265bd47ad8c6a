/* SPDX-License-Identifier: MIT */
/*
 * export_diff.h - the call paths of a base recording, for a differential
 * flame graph of another (utrace dump --flame-graph --svg --diff BASE):
 * FlameGraph's difffolded.pl pairs the folded stacks of two profiles,
 * "main;parse 1200 1800", and flamegraph.pl draws the second's widths,
 * coloured by how much each frame's own (self) time changed.  This keeps
 * BASE's paths by their folded name, so that the frames of the new graph
 * find their base time as the SVG is written (export_svg.c).
 */
#ifndef UTRACE_LIB_EXPORT_DIFF_H
#define UTRACE_LIB_EXPORT_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/report/callgraph.h"

struct utrace_flame_diff;

struct utrace_flame_base {
	uint64_t self, total, calls; /* ns, ns, calls of the path in BASE */
};

int utrace_flame_diff_new(const struct utrace_callgraph *base, struct utrace_flame_diff **out,
			  struct utrace_error *err);
void utrace_flame_diff_free(struct utrace_flame_diff *d);

/* BASE's figures for the path of n frames (zeros if BASE has none); the
 * path is marked as seen. */
struct utrace_flame_base utrace_flame_diff_find(struct utrace_flame_diff *d,
						const char *const *path, unsigned n);
/* The largest self-time change over the paths seen and BASE's others
 * (difffolded.pl's paths only in BASE count with a new time of 0). */
uint64_t utrace_flame_diff_max(const struct utrace_flame_diff *d, uint64_t seen_max);

#endif
