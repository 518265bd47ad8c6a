/* SPDX-License-Identifier: MIT */
/*
 * lib/export - a recording in other tools' formats:
 * trace-cmd's trace.dat (this file), Chrome/Perfetto JSON
 * (export_chrome.h), folded stacks for flame graphs (export_flame.h).
 * May use: every layer below it, lib/report's selections and call graph
 * included.
 *
 * tracedat.h - writes a utrace.dat as a trace-cmd trace.dat, so that
 * `trace-cmd report` prints it in its function_graph (or function) layout
 * and KernelShark opens it.
 *
 * The file is trace-cmd's format version 6 (trace-cmd.dat.v6(5)), which
 * every trace-cmd and KernelShark since 2010 reads, 3.x included: the
 * header_page and header_event texts, the ftrace event formats function
 * (id 1), print (5, utrace_printf text), funcgraph_exit (10) and
 * funcgraph_entry (11), every event format the recording saved (kernel
 * events with the kernel's ids, user tracepoints under their systems with
 * the ids after the highest of those: below 32768, for KernelShark),
 * a kallsyms made of
 * the traced functions, saved_cmdlines ("tid comm"), the options
 * TRACECLOCK ([mono]: utrace's times are CLOCK_MONOTONIC ns) and CPUCOUNT,
 * then one stream of 4096-byte ring-buffer pages per CPU.  See
 * docs/utrace-convert.md for the mapping of utrace's events.
 *
 * Memory stays bounded whatever the size of the input: the input is read
 * twice, once to lay out the pages of each CPU and to collect the
 * functions, once to write the pages where they belong with pwrite().
 */
#ifndef UTRACE_LIB_TRACEDAT_H
#define UTRACE_LIB_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/tracefile/dat_reader.h"
#include "lib/base/error.h"

struct utrace_tracedat_stats {
	uint64_t events;       /* records written: entries, exits, functions, events */
	uint64_t tracepoints;  /* of which tracepoint, kernel and print events */
	uint64_t skipped;      /* events left out: no format in the recording, or too big */
	uint64_t lost;	       /* events the recording lost, where it counted them */
	uint64_t lost_unknown; /* losses of an unknown number of events */
	uint64_t pages;	       /* ring-buffer pages written */
	uint64_t clamped;      /* events moved forward to keep a CPU's time order */
	uint64_t file_bytes;
	uint64_t warnings; /* sub-buffers the reader cut short at a bad record */
	uint64_t unread, unread_unknown; /* their records not read (utrace_dat_iter_unread) */
	uint64_t own; /* kernel events of utrace's own work left out (utrace_dat_iter_own) */
	unsigned nr_cpus;
	unsigned nr_tasks; /* saved_cmdlines lines */
	unsigned nr_syms;  /* kallsyms lines, the end marker included */
	char warning[256]; /* the first of those warnings, "" if none */
};

/*
 * Writes the events of d to a trace.dat at path (created or truncated; a
 * regular file, since the pages are written in place).  On failure the
 * partial file is removed.  st may be NULL.
 */
int utrace_tracedat_convert(struct utrace_dat *d, const char *path,
			    struct utrace_tracedat_stats *st, struct utrace_error *err);

/*
 * How a demangled C++ name is written into kallsyms, where a name ends at
 * the first blank and trace-cmd adds "()" itself: without its parameter
 * list and qualifiers, a template function without its return type, a gcc
 * clone suffix as the kernel shows it ("f(int) [clone .cold]" ->
 * "f.cold"), no blank after a comma or between "> >", other blanks as '_'.
 * C names come back unchanged.  malloc'ed, NULL when out of memory.
 */
char *utrace_tracedat_symbol_name(const char *name);

/* ---- Shared by the converter's files, lib/export/tracedat*.c, only. ---- */

#define UTRACE_TRACEDAT_PAGE_SIZE 4096u
#define UTRACE_TRACEDAT_PAGE_HEADER 16u /* u64 time_stamp, long commit */

/* Event ids and record sizes of the ftrace formats the file carries. */
enum {
	UTRACE_TRACEDAT_FUNCTION = 1,	      /* ip @8, parent_ip @16 */
	UTRACE_TRACEDAT_KERNEL_STACK = 4,     /* int size @8, unsigned long caller[size] @16 */
	UTRACE_TRACEDAT_PRINT = 5,	      /* ip @8, char buf[] @16 */
	UTRACE_TRACEDAT_FUNCGRAPH_EXIT = 10,  /* func, depth, overrun, calltime, rettime */
	UTRACE_TRACEDAT_FUNCGRAPH_ENTRY = 11, /* func @8, depth @16 */
	UTRACE_TRACEDAT_FUNCTION_SIZE = 24,
	UTRACE_TRACEDAT_EXIT_SIZE = 40,
	UTRACE_TRACEDAT_ENTRY_SIZE = 24,
};

struct utrace_tracedat_sym {
	uint64_t addr;
	char *name; /* without blanks */
};

struct utrace_tracedat_task {
	int32_t pid;
	const char *comm;
};

/* An event format of a system other than ftrace, as the kernel's format
 * file text ("name: ...\nID: ...\nformat:...").  id is the recording's,
 * file_id the one the file gives it (and its text's "ID:" line): a user
 * event's id from 32768 is renumbered below it, above the kernel's ids,
 * because KernelShark keeps event ids in an int16_t. */
struct utrace_tracedat_format {
	const char *system;
	const char *text;
	int id, file_id;
	char *own; /* text when renumbered (malloc'ed), else NULL */
};

struct utrace_tracedat_layout {
	const struct utrace_tracedat_sym *syms; /* sorted by address */
	size_t nr_syms;
	uint64_t end; /* above every address of the records: the end marker */
	const struct utrace_tracedat_task *tasks;
	size_t nr_tasks;
	uint32_t nr_cpus;
	const uint64_t *cpu_pages;		      /* pages of each CPU, in file order */
	const char *clock;			      /* trace_clock name, "mono" */
	const struct utrace_tracedat_format *formats; /* other systems' events */
	size_t nr_formats;
};

/* saved_cmdlines: a thread's tid and comm, once a thread, with the name
 * of its last buffer (the program it ran last, after an exec); threads
 * without a name are left out.  malloc'ed (comm points into d), NULL when
 * out of memory. */
struct utrace_tracedat_task *utrace_tracedat_tasks(struct utrace_dat *d, size_t *n);

/*
 * Everything of the file before the first page: magic, header_page,
 * header_event, ftrace formats, kallsyms, printk formats (none),
 * saved_cmdlines, CPU count, options, flyrecord offsets and clock, zero
 * padded to a whole page.  CPU c's pages follow at *len plus the pages of
 * the CPUs before it.  *out is malloc'ed.
 */
int utrace_tracedat_header(const struct utrace_tracedat_layout *l, char **out, size_t *len,
			   struct utrace_error *err);

#endif
