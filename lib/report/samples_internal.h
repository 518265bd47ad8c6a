/* SPDX-License-Identifier: MIT */
/*
 * samples_internal.h - what samples.c (entries, naming) and
 * samples_graph.c (the call chain trees) share.
 */
#ifndef UTRACE_LIB_REPORT_SAMPLES_INTERNAL_H
#define UTRACE_LIB_REPORT_SAMPLES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

/* A mapped file of the samples, loaded once (samples_frames.c). */
struct dso {
	char *path;
	const char *base;	   /* file name shown as the Shared Object */
	struct utrace_symtab *tab; /* NULL: no symbols (not an ELF file, [vdso], ...) */
	struct utrace_elf_section *secs;
	size_t nr_secs;
	struct dso *next;
};
struct utrace_unwind;

/*
 * A function of a call chain, named once: perf merges the chain entries of
 * one function (its default key "function"), and one without a symbol by
 * its address.  Frames are interned, a chain is an array of their ids.
 */
struct frame {
	const struct dso *o; /* NULL: mapped nowhere */
	const char *dso_path;
	uint64_t addr;	  /* the symbol's start, or the address without one */
	const char *name; /* NULL: no symbol, printed as addr */
	bool kernel;	  /* a kernel address, [kernel.kallsyms] */
};

/* One node of an entry's call chain tree: a trie of frames, one per node. */
struct cnode {
	uint32_t frame;
	uint32_t nr_kids, cap_kids;
	uint64_t hit;	/* period of the chains that end here */
	uint64_t cumul; /* period of the chains through here */
	struct cnode **kids;
};

struct entry {
	char *key; /* the sort keys' values joined by '\x1f' */
	char *cols[4];
	uint64_t period, samples; /* Self */
	uint64_t acc;		  /* Children: the samples with this entry in their chain */
	int32_t tid;		  /* the first sample's thread (perf's tie rule) */
	uint32_t max_depth;	  /* the longest chain added */
	struct cnode root;	  /* its frame unused */
};

/* Where addresses are named when not from a recording (utrace top: the
 * live system's /proc): the file mapped at ip in pid and ip's offset in
 * it, the kernel symbol at or below addr, a thread's name; NULL if none. */
struct samples_names {
	const char *(*map)(void *arg, int32_t pid, uint64_t ip, uint64_t *off);
	const char *(*ksym)(void *arg, uint64_t addr, uint64_t *start);
	const char *(*comm)(void *arg, int32_t pid, int32_t tid);
};

struct report {
	struct utrace_dat *d;
	const struct samples_names *names; /* NULL: the recording d's */
	void *names_arg;
	const struct utrace_samples_opts *o;
	enum utrace_sample_graph graph; /* DEFAULT resolved */
	bool caller;			/* chains outermost frame first */
	struct dso **dsos;		/* the files named so far, shared by the events' reports */
	bool offcpu;			/* the report of record --off-cpu's samples */
	struct entry **v;		/* open addressing by key */
	size_t cap, nr;
	uint64_t total, samples;
	struct frame *frames;
	size_t nr_frames, cap_frames;
	uint32_t *fslot; /* open addressing of frames by (dso, addr): id + 1 */
	size_t cap_fslot;
	uint32_t *chain; /* one sample's frames, in the graph's order */
	size_t cap_chain;
	struct entry **seen;	      /* one sample's entries, counted once (recursion) */
	struct utrace_unwind *unwind; /* --call-graph dwarf's samples, else NULL */
};

/* The frame of ip in process pid, named and interned: its index in
 * r->frames; -ENOMEM. */
int64_t samples_frame_of(struct report *r, int32_t pid, uint64_t ip);
/* One sample into its entry (and chains, children): -ENOMEM. */
int samples_add(struct report *r, const struct utrace_dat_sample *s, struct utrace_error *err);
/* r's entries, largest first (NULL if none; -ENOMEM in *ret). */
struct entry **samples_sorted(struct report *r, int *ret, struct utrace_error *err);
/* The columns' widths over the nr entries of v (each its widest value
 * or header), and one entry's line, perf report's. */
void samples_widths(const struct report *r, struct entry **v, size_t nr, size_t w[4]);
void samples_print_row(const struct report *r, const struct entry *e, const size_t *w, FILE *out);
/* What a report holds (not r itself), and the files it loaded. */
void samples_report_free(struct report *r);
void samples_dsos_free(struct dso *o);

/* Adds the chain of n frames to e's tree with period; -ENOMEM. */
int samples_chain_add(struct entry *e, const uint32_t *chain, uint32_t n, uint64_t period);
void samples_chain_free(struct cnode *root);
/* Prints e's tree as perf report -g graph,0.5 does; parent is the entry's
 * Overhead (or Children) period. */
void samples_graph_print(const struct report *r, const struct entry *e, uint64_t parent, FILE *out);

#endif
