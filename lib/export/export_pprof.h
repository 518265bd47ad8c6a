/* SPDX-License-Identifier: MIT */
/*
 * export_pprof.h - a trace's call paths as a pprof profile
 * (perftools.profiles.Profile, gzipped), which `go tool pprof`, Pyroscope,
 * Parca, Perfetto and OpenTelemetry's profiles read:
 *
 *   sample_type  calls/count, time/nanoseconds   (default: time)
 *   mapping      the program, has_functions: nothing left to symbolize
 *   sample       one per call path: location ids leaf first,
 *                values [calls of the path's last function, its self time]
 *   location     one per function (id = the function's id), one line
 *   function     name, system_name = the symbol name
 *   string_table "" first, then the type names, then the function names
 *
 * So `pprof -top` lists the functions by self time (flat) and by total
 * time (cum), as `utrace report --profile` does, and `-tree`/`-web` show
 * the call graph.  Paths deeper than UTRACE_FLAME_MAX_DEPTH are folded
 * into their ancestor at that depth, as for flame graphs.
 */
#ifndef UTRACE_LIB_EXPORT_PPROF_H
#define UTRACE_LIB_EXPORT_PPROF_H

#include <stdio.h>

#include "lib/base/error.h"
#include "lib/report/callgraph.h"

/* binary: the program's file, for the profile's one mapping (NULL: none
 * known). */
int utrace_export_pprof(const struct utrace_callgraph *g, const char *binary, FILE *out,
			struct utrace_error *err);

#endif
