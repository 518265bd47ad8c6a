/* SPDX-License-Identifier: MIT */
/*
 * dat_internal.h - what the parts of the utrace.dat reader share:
 * dat_file.c (checked reads, warnings, buffer table, clock), dat_reader.c
 * (open, index, metadata queries), dat_meta.c (metadata records),
 * dat_evfmt.c (event format checks), dat_syms.c (symbol lookup), dat_bins.c
 * (tables shared by binary),
 * dat_kernel.c (kernel pages), dat_decode.c and dat_stacks.c (sub-buffer
 * decoder) and
 * dat_iter.c (merge by time).  Calls go one way: reader -> meta ->
 * evfmt/kernel/syms -> bins -> file.
 */
#ifndef UTRACE_LIB_DAT_INTERNAL_H
#define UTRACE_LIB_DAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/grow.h"
#include "lib/tracefile/dat_reader.h"

/* Limits that tell a damaged file from a real one. */
#define DAT_MAX_META_LEN (1u << 30) /* a metadata record's payload */
#define DAT_MAX_DEPTH (1u << 20)    /* call depth, CONTEXT and GRAPH_LEAF */
#define DAT_MAX_CPU 65535u	    /* struct utrace_subbuf.cpu is 16 bits */
#define DAT_MAX_WARNINGS 8	    /* kept; all are counted */

struct dat_page_ref {
	uint64_t off;	 /* file offset of the struct utrace_subbuf */
	uint32_t commit; /* bytes of records after it */
	uint32_t reserved;
	/* a thread's sub-buffer (dat_reader.c index_page): its seq and
	 * time_stamp, and the offset of its first version in the file (a
	 * bookmark's identity, dat_resume.c; off is that of its newest) */
	uint32_t seq;
	uint64_t tsc, first;
};

struct dat_buffer {
	struct utrace_dat_buffer_info info;
	struct dat_page_ref *pages;
	size_t nr_pages, cap_pages;
	uint64_t first_tsc; /* time_stamp of the first page */
	uint32_t base_id;   /* the BUFFER record's base: an id + 1, or 0 */
};

/* A symbol table: sorted by vaddr, names in strs (str_size bytes and a
 * NUL), [sym_lo, sym_hi) the vaddrs it covers.  Shared by every object
 * of the same content (dat_bins.c). */
struct dat_symtab {
	const struct utrace_dat_sym *syms;
	uint32_t nr_syms, str_size;
	const char *strs;
	uint64_t sym_lo, sym_hi;
};

/* One object of one process image.  What the binary decides (sites,
 * symbols, names) points into dat_bins.c's shared entries; what the
 * process decides (ids, bias) is its own. */
struct dat_object {
	uint32_t image, obj, flags, id_base, nr_sites;
	uint64_t bias;
	char *path;
	const uint64_t *sites;	     /* vaddr of each site, 0 = unknown */
	uint64_t *own_sites;	     /* sites, when SITES records split them */
	uint32_t nr_known;	     /* entries in sites[] (<= nr_sites) */
	const struct dat_symtab *tab; /* NULL until a SYMTAB or the disk gives one */
	const char **names;	     /* nr_known names, shared by (sites, tab) */
	size_t seq;		     /* order in the file: the last one wins */
};

struct dat_image {
	struct utrace_dat_image_info info;
	char *exe;
	struct dat_object **objs; /* sorted by id_base */
	size_t nr_objs;
	size_t seq;
};

struct dat_meta {
	const char *key, *value;
};

/* A SITES or SYMTAB record, kept until every OBJECT is known: its ids
 * and its payload, shared with the records of the same content. */
struct dat_blob {
	uint32_t type;
	uint32_t image, obj;
	struct dat_bin *bin;
};

/* The open pass's state (dat_reader.c), which the metadata handlers
 * (dat_meta.c) fill; kept for a refresh (utrace_dat_refresh), whose
 * pass goes on with the same tables. */
struct dat_scan {
	struct dat_blob *blobs;
	size_t nr_blobs, cap_blobs;
	size_t cap_images, cap_objects, cap_notices, cap_meta, cap_meta_blobs, cap_evfmts;
	size_t seq;
};

struct utrace_dat {
	int fd;
	char *path;
	uint64_t file_size;
	uint64_t bytes_read; /* by dat_pread, every pass (atomic: readers ahead) */
	struct utrace_dat_header hdr;
	int finished;
	int have_clock;
	/* what a refresh (dat_reader.c utrace_dat_refresh) goes on from: the
	 * first record not read yet (one cut short, or the end), the pass's
	 * tables, the warnings before the end's (cut short, no END: said
	 * again at each refresh); refreshing: a record the pass cannot add to
	 * what d holds makes it read the file anew; kmap_stale: the buffers
	 * changed (a new one, a first page, a BUFFER record) since the
	 * kernel's task map was made (dat_kernel.c) */
	uint64_t scan_off;
	struct dat_scan sc;
	unsigned nr_warnings_kept;
	bool refreshing, kmap_stale;
	bool own_kscan; /* kscan is d's: made for it, freed with it */
	bool show_own;	/* utrace_dat_show_own's (dat_own.c) */
	/* tsc -> ns as ns0 + (tsc - tsc0) * tsc_mult >> TSC_SHIFT, like the
	 * kernel's clocksource mult/shift: no division per record */
	uint64_t tsc_mult;
	int tsc_fast;
	struct utrace_dat_clock clock;
	unsigned max_cpu;

	char **meta_blobs;
	size_t nr_meta_blobs;
	struct dat_meta *meta;
	size_t nr_meta;

	struct dat_image *images; /* sorted by image id */
	size_t nr_images;
	struct dat_object *objects; /* sorted by (image, obj) */
	size_t nr_objects;
	struct dat_buffer *buffers;
	size_t nr_buffers, cap_buffers;
	uint32_t *buf_hash; /* buffer index + 1, 0 = empty */
	size_t buf_hash_size;

	char **notices;
	size_t nr_notices;
	struct dat_evfmt {
		int id;
		char *system;
		char *text;
	} * evfmts;
	size_t nr_evfmts;
	char *warnings[DAT_MAX_WARNINGS];
	unsigned nr_warnings;

	struct dat_kernel *kern; /* kernel events (dat_kernel.c), NULL if none */
	struct utrace_dat_kscan *kscan; /* the tasks of earlier openings (dat_kernel.c) */
	struct dat_ksyms *ksyms; /* the kernel's symbols (dat_ksyms.c), NULL if none */
	struct dat_own *own;	 /* windows of utrace's own work (dat_own.c), NULL if none */
	struct dat_samples *samples; /* perf samples (dat_samples.c), NULL if none */
	struct dat_hists *hists;     /* hist trigger tables (dat_hist.c), NULL if none */
	/* snapshots (SNAPSHOT records); snap_sel: the one whose SNAP_PAGEs are
	 * read as the pages (0: the trace's PAGEs), its tsc the cut */
	struct utrace_dat_snapshot *snaps;
	size_t nr_snaps, cap_snaps;
	/* utrace_dat_name_ktasks's names (a copy), for tasks with no record
	 * in the file, by utrace_dat_comm */
	struct utrace_dat_ktask *live_names;
	size_t nr_live_names;
	uint32_t snap_sel;
	uint64_t snap_cut;

	unsigned disk_syms;	/* objects whose symbols came from their file */
	struct dat_bins *bins;	/* tables shared by binary (dat_bins.c) */
	char ring[8][48];	/* names of ids no object covers */
	unsigned ring_pos;
};

/* A refresh (dat_reader.c utrace_dat_refresh) met what it cannot add to
 * what d holds: the file is read anew. */
#define DAT_READ_ANEW 1

/* dat_file.c */
void dat_warn(struct utrace_dat *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the warning for a record skipped, at file offset off, and why */
void dat_bad_record(struct utrace_dat *d, uint64_t off, uint32_t type, const char *why);
/* pread() the whole range; -EIO with err filled if the file is shorter. */
int dat_pread(const struct utrace_dat *d, void *buf, size_t len, uint64_t off,
	      struct utrace_error *err);
/* The buffer with file id `id`, created (unnamed) if new; NULL if out of
 * memory.  Pointers into d->buffers do not survive it. */
struct dat_buffer *dat_buf_get(struct utrace_dat *d, uint32_t id);
struct dat_buffer *dat_buf_find(const struct utrace_dat *d, uint32_t id);
/* ticks (a duration) to ns, with the slope of the clock */
uint64_t dat_ticks_to_ns(const struct utrace_dat *d, uint64_t ticks);
/* the fast tsc->ns conversion's multiplier, from d->clock */
void dat_clock_prepare(struct utrace_dat *d);


/* dat_meta.c: one metadata record whose payload p[0..len) was read whole
 * (p[len] is a NUL), at file offset off; takes p.  <0 only when out of
 * memory. */
int dat_meta_record(struct utrace_dat *d, struct dat_scan *sc, uint32_t type, char *p, uint32_t len,
		    uint64_t off);

/* dat_evfmt.c: whether an event format text is sound to keep */
bool dat_format_ok(const char *system, const char *text);

/* dat_samples.c: the PERF_ATTR record, a PERF record indexed (head: its
 * first n bytes, record header included), the tables freed */
int dat_samples_attr(struct utrace_dat *d, const char *p, uint32_t len, uint64_t off);
/* the PERF_KSYMS record (the kernel symbols the samples need); -ENOMEM */
int dat_samples_ksyms(struct utrace_dat *d, const char *p, uint32_t len);
int dat_samples_index(struct utrace_dat *d, const unsigned char *head, size_t n, uint32_t len,
		      uint64_t off, bool offcpu);
void dat_samples_free(struct utrace_dat *d);
/* The samples in file order, each first given to fix (if set) with its
 * number in that order; utrace_dat_samples_each (dat_samples_graph.c)
 * passes the fix-up of function_graph's return trampolines. */
struct utrace_dat_sample;
struct dat_sgraph;
typedef void (*dat_sample_fix_fn)(struct utrace_dat *d, uint64_t k, struct utrace_dat_sample *s);
int dat_samples_each(struct utrace_dat *d,
		     int (*fn)(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err),
		     void *arg, uint64_t *lost, dat_sample_fix_fn fix, struct utrace_error *err);
/* Where dat_samples_graph.c keeps its state for d (NULL: d has no
 * samples), freed with *free_fn (if given, it is set) when d is. */
struct dat_sgraph **dat_samples_sgraph(struct utrace_dat *d,
				       void (**free_fn)(struct dat_sgraph *g));

/* dat_hist.c: one HIST record (keeps p when it is sound), the tables freed */
int dat_hist_meta(struct utrace_dat *d, char *p, uint32_t len, bool *kept, const char **bad);
void dat_hist_free(struct utrace_dat *d);

/* dat_snap.c: one SNAPSHOT record; whether a PAGE or SNAP_PAGE record
 * (its first n bytes in head, record header included) is one of the pages
 * d shows; the snapshot d shows found and its cut set (an error if the
 * file has no such snapshot) */
int dat_snap_meta(struct utrace_dat *d, const char *p, uint32_t len, const char **bad);
bool dat_snap_page_wanted(const struct utrace_dat *d, uint32_t type, const unsigned char *head,
			  size_t n);
int dat_snap_select(struct utrace_dat *d, struct utrace_error *err);

/* dat_bins.c: a SITES or SYMTAB payload p[0..len) (p[len] a NUL) kept
 * once per content, taking p (NULL only when out of memory, p freed);
 * its payload (the ids in it are the first record's); a SYMTAB's table,
 * checked and sorted the first time (the caller checked its size) */
struct dat_bin;
struct dat_bin *dat_bin_intern(struct utrace_dat *d, uint32_t type, char *p, uint32_t len);
const char *dat_bin_payload(const struct dat_bin *b, uint32_t *len);
const struct dat_symtab *dat_bin_symtab(struct dat_bin *b);
/* the table of the file at path as it is now (its imports: a libcall
 * part's), read once per path; the empty table if it has none.  *loaded:
 * this call read it. */
const struct dat_symtab *dat_bin_disk(struct utrace_dat *d, const char *path, bool imports,
				      bool *loaded);
const struct dat_symtab *dat_symtab_empty(void);
/* the name cache of n sites with that table, zeroed the first time;
 * NULL out of memory */
const char **dat_bin_names(struct utrace_dat *d, const uint64_t *sites,
			   const struct dat_symtab *tab, uint32_t n);
/* "<id N>" or "0x..." (a runtime address), made once; NULL out of memory */
enum dat_made { DAT_MADE_ID, DAT_MADE_ADDR };
const char *dat_bin_made_name(struct utrace_dat *d, enum dat_made kind, uint64_t v);
void dat_bins_free(struct utrace_dat *d);

/* dat_syms.c */
struct dat_image *dat_find_image(const struct utrace_dat *d, uint32_t image);
int dat_syms_finish(struct utrace_dat *d, struct dat_blob *blobs, size_t nr_blobs);
void dat_syms_free(struct utrace_dat *d);

/* utrace_dat_tsc_to_ns's common case, inlined into the iterator (three
 * conversions per call event made the function call itself a hot spot). */
#define DAT_TSC_SHIFT 40
static inline uint64_t dat_tsc_ns(const struct utrace_dat *d, uint64_t tsc)
{
	if (d->tsc_fast && tsc >= d->clock.tsc0 && tsc - d->clock.tsc0 < (1ull << 60)) {
		uint64_t ns = (uint64_t)(((unsigned __int128)(tsc - d->clock.tsc0) * d->tsc_mult) >>
					 DAT_TSC_SHIFT);

		if (ns <= UINT64_MAX - d->clock.ns0)
			return d->clock.ns0 + ns;
	}
	return utrace_dat_tsc_to_ns(d, tsc);
}

#endif
