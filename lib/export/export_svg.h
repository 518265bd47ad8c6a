/* SPDX-License-Identifier: MIT */
/*
 * export_svg.h - a trace's call paths as an interactive SVG flame graph,
 * utrace's own (no flamegraph.pl needed): one rectangle per call path,
 * its width the path's total time, callees stacked on their caller
 * (upwards; downwards for an icicle graph).  Opened in a browser it
 *
 *   - shows a frame's name, calls (samples, for a graph of samples), time
 *     and share in a tooltip and in the status line under the graph,
 *   - zooms into a frame on click (its callers shown faded, full width
 *     given to its callees), "Reset zoom" going back,
 *   - searches: "Search" (or Ctrl-F) takes a regular expression, marks
 *     the matching frames and prints the share of time they cover.
 *
 * Everything is in the file (inline CSS and script), so it opens from
 * disk anywhere.  Frames narrower than 0.1 pixel are left out, as
 * flamegraph.pl does, so the file stays small whatever the trace, and
 * frames deeper than UTRACE_FLAME_MAX_DEPTH too.
 */
#ifndef UTRACE_LIB_EXPORT_SVG_H
#define UTRACE_LIB_EXPORT_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/report/callgraph.h"

struct utrace_flame_diff;

struct utrace_svg_opts {
	const char *title; /* NULL: "Flame Graph" ("Icicle Graph") */
	bool icicle;	   /* roots at the top, callees below */
	unsigned width;	   /* pixels; 0: 1200 */
	/* a differential flame graph against this base (export_diff.h):
	 * the widths stay the graph's, each frame is red as its self time
	 * grew, blue as it shrank (flamegraph.pl's colours of difffolded.pl
	 * output), its tooltip has both times; NULL: none */
	struct utrace_flame_diff *diff;
};

int utrace_export_svg(const struct utrace_callgraph *g, const struct utrace_svg_opts *o, FILE *out,
		      struct utrace_error *err);

#endif
