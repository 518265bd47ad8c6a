/* SPDX-License-Identifier: MIT */
/*
 * tracedat_records.h - utrace's events as ftrace's records
 * (tracedat_records.c), put into the pages (tracedat_pages.h) with their
 * functions' addresses from the symbols (tracedat_syms.h).  Errors are
 * set in the err given to _new(); the second pass's counts go to st.
 */
#ifndef UTRACE_LIB_TRACEDAT_RECORDS_H
#define UTRACE_LIB_TRACEDAT_RECORDS_H

#include <stddef.h>

#include "lib/export/tracedat.h"
#include "lib/export/tracedat_pages.h"
#include "lib/export/tracedat_syms.h"

struct tracedat_records;

/* formats: the event formats the file carries (kept by the caller). */
struct tracedat_records *tracedat_records_new(struct utrace_dat *d, struct tracedat_syms *syms,
					      struct tracedat_pages *pages,
					      const struct utrace_tracedat_format *formats,
					      size_t nr_formats, struct utrace_tracedat_stats *st,
					      struct utrace_error *err);
void tracedat_records_free(struct tracedat_records *r);
/* One event of the reader as its records. */
int tracedat_records_event(struct tracedat_records *r, const struct utrace_event *ev);
/* The end of a pass: the exit of a LEAF still pending. */
int tracedat_records_end(struct tracedat_records *r);
/* The start of the second pass: counted from now on, the last record forgotten. */
void tracedat_records_rewind(struct tracedat_records *r);

#endif
