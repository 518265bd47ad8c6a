/* SPDX-License-Identifier: MIT */
/*
 * tracedat_internal.h - what every part of the trace.dat converter
 * (lib/export/tracedat.h) uses: the page size and the converter's two
 * errors.  Each part keeps its state to itself behind its own header, and
 * calls go one way: tracedat.c (the two passes, the file) ->
 * tracedat_records.c (events to records, tracedat_records.h) ->
 * tracedat_pages.c (records into each CPU's pages, tracedat_pages.h) and
 * tracedat_syms.c (kallsyms entries, tracedat_syms.h); tracedat.c ->
 * tracedat_formats.c (the header).
 */
#ifndef UTRACE_LIB_TRACEDAT_INTERNAL_H
#define UTRACE_LIB_TRACEDAT_INTERNAL_H

#include <errno.h>

#include "lib/export/tracedat.h"

#define PAGE UTRACE_TRACEDAT_PAGE_SIZE
#define PAGE_HDR UTRACE_TRACEDAT_PAGE_HEADER
#define PAGE_DATA (PAGE - PAGE_HDR)
#define MAX_CPUS 65536u

static inline int tracedat_nomem(struct utrace_dat *d, struct utrace_error *err)
{
	return utrace_error_set(err, -ENOMEM, "%s: out of memory while converting it",
				utrace_dat_path(d));
}

static inline int tracedat_changed(struct utrace_dat *d, struct utrace_error *err)
{
	return utrace_error_set(err, -EIO, "%s changed while it was being converted",
				utrace_dat_path(d));
}

#endif
