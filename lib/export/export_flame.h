/* SPDX-License-Identifier: MIT */
/*
 * export_flame.h - a trace's call paths as folded stacks, the input of
 * Brendan Gregg's flamegraph.pl (and speedscope, inferno, Perfetto):
 *
 *   main;parse;next_token 1234
 *
 * one line per call path with the time spent in the path's last
 * function itself (its self time), so that a frame's width in the flame
 * graph is its total time.  Built from lib/report/callgraph.h.
 */
#ifndef UTRACE_LIB_EXPORT_FLAME_H
#define UTRACE_LIB_EXPORT_FLAME_H

#include <stdio.h>

#include "lib/report/callgraph.h"
#include "lib/base/error.h"

enum utrace_flame_unit {
	UTRACE_FLAME_NS, /* nanoseconds (the default) */
	UTRACE_FLAME_US, /* microseconds, rounded down; shorter paths vanish */
};

/* Paths deeper than this are folded into their ancestor at this depth. */
#define UTRACE_FLAME_MAX_DEPTH 1024

/* Writes one line per path with a non-zero weight; ';' in a function name
 * is written as ':' (it separates frames). */
int utrace_export_flame(const struct utrace_callgraph *g, FILE *out, enum utrace_flame_unit unit,
			struct utrace_error *err);

#endif
