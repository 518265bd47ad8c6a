/* SPDX-License-Identifier: MIT */
/*
 * tracedat_pages.h - the ring-buffer pages of a trace.dat being converted
 * (tracedat_pages.c): one stream of pages per CPU.  The first pass counts
 * each CPU's pages; tracedat_pages_place() puts each stream at its offset
 * in the file, and the second pass writes the same pages there.  Errors
 * are set in the err given to _new(); the second pass's counts go to st.
 */
#ifndef UTRACE_LIB_TRACEDAT_PAGES_H
#define UTRACE_LIB_TRACEDAT_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/export/tracedat.h"

struct tracedat_pages;

struct tracedat_pages *tracedat_pages_new(struct utrace_dat *d, const char *path,
					  struct utrace_tracedat_stats *st,
					  struct utrace_error *err);
void tracedat_pages_free(struct tracedat_pages *p);
/* Appends one record of len bytes to cpu's page at time ts. */
int tracedat_pages_put(struct tracedat_pages *p, uint32_t cpu, uint64_t ts, const void *data,
		       uint32_t len);
/* Events lost on cpu (n of them, or unknown): its page ends, the next is flagged. */
int tracedat_pages_lost(struct tracedat_pages *p, uint32_t cpu, bool unknown, uint64_t n);
/* Whether cpu's next record opens a page after lost events. */
bool tracedat_pages_after_loss(const struct tracedat_pages *p, uint32_t cpu);
/* Whether a record at ts on cpu ties with one another CPU wrote at ts. */
bool tracedat_pages_tie(const struct tracedat_pages *p, uint32_t cpu, uint64_t ts);
/* The end of a pass: every page with records finished. */
int tracedat_pages_finish(struct tracedat_pages *p);
/* The CPUs with a stream (0 .. n-1), and the pages the first pass counted. */
uint32_t tracedat_pages_nr_cpus(const struct tracedat_pages *p);
uint64_t tracedat_pages_count(const struct tracedat_pages *p, uint32_t cpu);
/* The second pass: streams placed one after the other from off in fd;
 * returns the file's end. */
uint64_t tracedat_pages_place(struct tracedat_pages *p, int fd, uint64_t off);
/* After the second pass: every CPU wrote the pages the first one counted. */
int tracedat_pages_check(struct tracedat_pages *p);

#endif
