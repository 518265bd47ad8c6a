/* SPDX-License-Identifier: MIT */
/*
 * recorder_kmerge.h - the state of the merge of the kernel's records
 * (recorder_kmerge.c), shared with the pages it writes (recorder_kpages.c).
 */
#ifndef UTRACE_RECORDER_KMERGE_H
#define UTRACE_RECORDER_KMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct utrace_recorder;
struct utrace_error;

#define KM_MISSED (1ull << 31) /* the page header's commit: events lost before */
#define KM_SMALL_MAX 112u      /* RB_MAX_SMALL_DATA: longer data has its length word */
#define KM_DELTA_BITS 27       /* TS_SHIFT */
/* A kernel snapshot holds each CPU's last pages: as many as the
 * instance's ring (lib/kernel's default buffer_size_kb, 2 MiB a CPU). */
#define KM_RING_BYTES (2048u * 1024u)

struct km_cpu {
	uint8_t *q; /* queued: {u64 ts, u32 len, u32 0, data padded to 8} */
	size_t qlen, qcap, head;
	uint64_t last_ts; /* of the last record queued */
	bool got;	  /* pages in this round */
	bool missed;	  /* the next page written says events were lost */
	uint8_t *page;	  /* being written: header, then events */
	uint32_t used;	  /* bytes of events in it */
	uint64_t page_ts, out_ts;
	int last_kid;	/* the last record run (not a stack): its event */
	bool last_kept; /* and whether it was saved */
	uint8_t *ring;	/* snapshots: the last pages written, KM_RING_BYTES of them */
	uint32_t *ring_len;
	uint32_t ring_n, ring_next;
};

struct rec_kmerge {
	struct km_cpu *cpus;
	uint32_t nr_cpus, cap_cpus;
	struct km_cpu marks; /* trace_marker's records: each with its CPU and reader */
	uint64_t round_end; /* E: the trace clock when the last round ended */
	uint64_t read_at;   /* a live read's start (0: none): a round runs up to it */
	struct kbuffer *kb;
	uint32_t cpu; /* the record being run: its CPU, time and task */
	uint64_t ts;
	int32_t pid;
	unsigned reader; /* a marker's: whose trace_marker (REC_HIST_ALL_READERS) */
	uint32_t depth; /* synthetic events fired by synthetic events */
	bool keep_pages;      /* a snapshot trigger: the last pages kept (ring) */
	bool ktsc;	      /* the kernel's trace_clock is x86-tsc (recorder_kfmt.c) */
	int kstack_id;	      /* ftrace:kernel_stack's kernel id, -1: none */
	uint32_t ksubbuf;     /* the kernel's sub-buffer size */
	const uint8_t *stack; /* the kernel_stack entry after the record, or NULL */
	uint32_t stack_len;
	uint64_t *addrs; /* the frames of the stacks saved or keyed on, to name */
	size_t nr_addrs, cap_addrs, sorted;
};

/* recorder_kpages.c: the page being filled of CPU cpu (c) written out; a
 * record into it at ts (the page written when full); the pages saved so
 * far (each CPU's last ones and the one being filled) as KPAGEs of
 * snapshot id, counted in *pages.  0 or <0 with err. */
int rec_kpage_flush(struct utrace_recorder *r, uint32_t cpu, struct km_cpu *c,
		    struct utrace_error *err);
int rec_kpage_put(struct utrace_recorder *r, uint32_t cpu, uint64_t ts, const uint8_t *rec,
		  uint32_t len, struct utrace_error *err);
int rec_kpage_snap(struct utrace_recorder *r, uint32_t id, uint32_t *pages,
		   struct utrace_error *err);

#endif
