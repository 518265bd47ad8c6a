/* SPDX-License-Identifier: MIT */
/*
 * tracedat_internal.h - what the parts of the trace.dat converter share
 * (lib/export/tracedat.h): the converter's state, and the functions one
 * part calls in another.  Calls go one way: tracedat.c (the two passes,
 * the file) -> tracedat_records.c (events to records) ->
 * tracedat_pages.c (records into each CPU's pages) and
 * tracedat_syms.c (kallsyms entries); tracedat.c -> tracedat_formats.c
 * (the header).
 */
#ifndef UTRACE_LIB_TRACEDAT_INTERNAL_H
#define UTRACE_LIB_TRACEDAT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/export/tracedat.h"

#define PAGE UTRACE_TRACEDAT_PAGE_SIZE
#define PAGE_HDR UTRACE_TRACEDAT_PAGE_HEADER
#define PAGE_DATA (PAGE - PAGE_HDR)
#define TS_BITS 27
#define TYPE_DATA_MAX 28 /* type_len of the longest record without a length word */
#define TYPE_TIME_EXTEND 30
#define MISSING_EVENTS (1ull << 31)
#define MISSING_STORED (1ull << 30)
#define MAX_CPUS 65536u
/* addresses for functions without one of their own: above user space */
#define SYNTHETIC_BASE 0xffffff0000000000ull
#define SYNTHETIC_STEP 16

struct stream {
	unsigned char page[PAGE];
	uint32_t used;		 /* bytes of records after the page header */
	uint64_t flags;		 /* MISSING_* of this page */
	uint64_t lost;		 /* stored after the records if MISSING_STORED */
	uint64_t last_ts;	 /* time of the last record */
	uint64_t pages;		 /* pages finished */
	uint64_t planned;	 /* second pass: the pages the first one counted */
	uint64_t file_off;	 /* second pass: where the stream starts */
	bool pend, pend_unknown; /* losses to flag on the next page */
	uint64_t pend_lost;
};

struct slot {
	uint64_t k1, k2, val;
	bool used;
};

/* Open addressing, linear probing, at most half full. */
struct map {
	struct slot *v;
	size_t cap, n;
};

struct conv {
	struct utrace_dat *d;
	int pass; /* 1: lay out, 2: write */
	int fd;
	const char *path;  /* the output */
	struct stream **s; /* by CPU, NULL for CPUs without events */
	uint32_t nr_s;
	struct map funcs;   /* (image, id) -> address in the file */
	struct map callers; /* (image, caller address) already named */
	struct map addrs;   /* address -> index in syms */
	struct utrace_tracedat_sym *syms;
	size_t nr_syms, cap_syms;
	uint64_t next_synthetic, max_addr;
	struct {
		bool set;
		uint32_t cpu, depth;
		int32_t pid;
		uint64_t func, ts, dur;
		bool tie; /* another CPU has a record at ts before it */
	} leaf;		  /* a LEAF whose exit is not written yet */
	struct {
		uint64_t ts;
		uint32_t cpu;
		bool multi; /* records of several CPUs at ts */
	} now;		    /* the time of the last record written */
	struct {
		uint16_t type;
		int32_t pid;
		uint64_t func;
	} last;		   /* the last record written, of any CPU */
	uint64_t print_ip; /* the "utrace_printf" symbol of print events, 0 if none yet */
	struct utrace_tracedat_format *formats; /* the recording's, ftrace's left out */
	size_t nr_formats;
	unsigned char rec[PAGE]; /* an event being put together */
	struct utrace_tracedat_stats *st;
	struct utrace_error *err;
};

static inline int tracedat_nomem(struct conv *c)
{
	return utrace_error_set(c->err, -ENOMEM, "%s: out of memory while converting it",
				utrace_dat_path(c->d));
}

static inline int tracedat_changed(struct conv *c)
{
	return utrace_error_set(c->err, -EIO, "%s changed while it was being converted",
				utrace_dat_path(c->d));
}

/* tracedat_syms.c: a name listed at an address (taken; see there), a
 * function's address in the file, a function tracer caller's symbol */
int tracedat_add_sym(struct conv *c, uint64_t addr, char *name, bool movable, uint64_t *out);
int tracedat_func_addr(struct conv *c, uint32_t image, uint32_t id, uint64_t *out);
int tracedat_note_caller(struct conv *c, uint32_t image, uint64_t ip);

/* tracedat_pages.c: cpu's stream (NULL with c->err set), its page
 * finished (written in pass 2), one record appended at time ts */
struct stream *tracedat_get_stream(struct conv *c, uint32_t cpu);
int tracedat_flush_page(struct conv *c, struct stream *s);
int tracedat_put_record(struct conv *c, uint32_t cpu, uint64_t ts, const void *data, uint32_t len);

/* tracedat_records.c: one event of the reader as its records; the exit
 * of a pending LEAF, before an event at next_ts if have_next */
int tracedat_on_event(struct conv *c, const struct utrace_event *ev);
int tracedat_put_leaf_exit(struct conv *c, bool have_next, uint64_t next_ts);

#endif
