/* SPDX-License-Identifier: MIT */
/*
 * export_dump.h - `utrace dump`'s work: a recording written in one of the
 * export formats (Perfetto, Chrome JSON, folded stacks, SVG flame graph,
 * pprof) or as raw events one per line, through a selection
 * (lib/report/report_filter.h).  The command parses its options into a
 * struct utrace_dump_opts and calls utrace_export_dump().
 */
#ifndef UTRACE_LIB_EXPORT_DUMP_H
#define UTRACE_LIB_EXPORT_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_svg.h"
#include "lib/report/report_filter.h"
#include "lib/tracefile/dat_reader.h"

/* What a flame graph (or pprof) is drawn from. */
enum utrace_dump_source {
	UTRACE_DUMP_AUTO,      /* functions if the file has calls, else samples */
	UTRACE_DUMP_FUNCTIONS, /* function_graph durations */
	UTRACE_DUMP_SAMPLES,   /* the sampled stacks of record -F */
};

enum utrace_dump_format {
	UTRACE_DUMP_RAW,
	UTRACE_DUMP_CHROME,
	UTRACE_DUMP_FLAME,
	UTRACE_DUMP_PERFETTO,
	UTRACE_DUMP_PPROF
};

/* What the options set, besides the trace and the selection. */
struct utrace_dump_opts {
	const char *outpath; /* -o */
	enum utrace_dump_format fmt;
	uint32_t chrome_flags;
	enum utrace_flame_unit unit;
	bool svg;
	struct utrace_svg_opts svg_opts;
	const char *diff; /* --diff BASE */
	enum utrace_dump_source source;
};

int utrace_export_dump(struct utrace_dat *d, struct utrace_report_filter *f,
		       const struct utrace_dump_opts *a, FILE *out, struct utrace_pass_stats *st,
		       struct utrace_error *err);

#endif
