/* SPDX-License-Identifier: MIT */
/*
 * ftrace_formats.h - the kernel's texts for its own ring buffer and its
 * ftrace events, as tracefs prints them (x86-64, 64-bit long):
 * events/header_event and events/ftrace/EVENT/format.  One copy for the
 * readers that show them (lib/tracefs) and the writers that embed them
 * (lib/export's trace.dat).
 */
#ifndef UTRACE_LIB_FTRACE_FORMATS_H
#define UTRACE_LIB_FTRACE_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

/* events/header_event: the kernel's compressed entry header */
extern const char utrace_ftrace_header_event[];

/* The fields every event starts with, as a format lists them. */
#define UTRACE_FTRACE_COMMON_FIELDS                                                                \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                                 \
	"\n"

/* One event of events/ftrace/: its name, whether the kernel gives it an
 * id file (those with a register function: function, print), and the
 * text of its format file. */
struct utrace_ftrace_format {
	const char *name;
	bool has_id;
	unsigned id;
	const char *text;
};

/* The i-th ftrace event, in name order (as ls lists them); NULL past the
 * end.  By name: NULL if the kernel has none so named. */
const struct utrace_ftrace_format *utrace_ftrace_format_get(size_t i);
const struct utrace_ftrace_format *utrace_ftrace_format_find(const char *name);

#endif
