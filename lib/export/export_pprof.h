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
 *
 * A recording's samples are a CPU profile instead
 * (utrace_export_pprof_samples, export_pprof_samples.c):
 *
 *   sample_type  samples/count, cpu/nanoseconds      (default: cpu)
 *   sample       one per distinct stack: location ids leaf first,
 *                values [its samples, their CPU ns]
 *   mapping      one per file, from 0 over the whole space (the
 *                addresses are the file's), has_functions and, with
 *                DWARF, filenames and lines; a file utrace cannot read:
 *                the mapping the kernel reported, runtime addresses
 *   location     one per address (a caller's: its return address - 1,
 *                the file's address as addr2line takes it), its mapping,
 *                its function and source line
 *   function     name (report --samples'), the file and line declaring it
 *
 * So `pprof -top` gives each function's own samples (flat) and those
 * under it (cum), `-list` the source lines and `-disasm` the instructions
 * that the samples hit.
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

/* d's on-CPU samples; -ENOENT (err filled) if it has none. */
int utrace_export_pprof_samples(struct utrace_dat *d, FILE *out, struct utrace_error *err);

#endif
