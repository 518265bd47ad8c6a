/* SPDX-License-Identifier: MIT */
/*
 * kernel_kcap_internal.h - what the two halves of a capture share: the
 * BPF programs' side (kernel_kcap.c) and the reader's (kernel_kcap_take.c).
 */
#ifndef UTRACE_LIB_KERNEL_KCAP_INTERNAL_H
#define UTRACE_LIB_KERNEL_KCAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/kernel/kernel_kcap.h"

/* A record's layout (kernel_kcap.c's picture): the header, a string
 * read (s64 ret, then its bytes), a STRV field's j-th string read. */
#define KCAP_HDR 32u
#define KCAP_SBLOCK (8u + UTRACE_KCAP_STRLEN)
#define KCAP_STRV_STR(o, j) ((o) + 8u + 8u * UTRACE_KCAP_STRV_MAX + (j)*KCAP_SBLOCK)

struct kc_attach {
	int perf_fd, prog_fd;
	unsigned n;
	enum utrace_kcap_kind kind[UTRACE_KCAP_FIELDS_MAX];
	uint32_t size;	  /* of its records */
	uint32_t comm_at; /* the thread's name in them (UTRACE_KCAP_COMM), 0: none */
	int64_t lag;	  /* its records' time after their captures', as the takes found it */
};

#define KCAP_BUCKETS 1024u

struct kc_thread; /* kernel_kcap_take.c: one thread's captures waiting */

struct utrace_kcap {
	int ring_fd, lost_fd;
	struct ring_buffer *rb;
	struct kc_attach *at;
	unsigned nat;
	/* the reader's: the captures waiting for their records, by thread */
	struct kc_thread *bucket[KCAP_BUCKETS];
	uint64_t waiting;     /* their bytes */
	uint64_t takes;	      /* utrace_kcap_take calls, for the sweeps */
	uint64_t last_ns;     /* the time of the last record taken */
	uint8_t *cur;	      /* the capture the last take matched (NULL: none) */
	int cur_tid, cur_tag; /* that take's hit (cur_tag -1: none yet) */
	uint64_t cur_ns;
	uint64_t dropped; /* lost by the reader (no room) */
};

/* A field's bytes in a record: its pointer, then STR: one string read;
 * STRV: the array's pointers, then a string read each. */
static inline uint32_t kcap_block_size(enum utrace_kcap_kind kind)
{
	return kind == UTRACE_KCAP_STR ? 8u + KCAP_SBLOCK : KCAP_STRV_STR(0u, UTRACE_KCAP_STRV_MAX);
}
/* libbpf's ring callback: a record, kept for its thread. */
int kcap_on_record(void *arg, void *data, size_t size);
/* Every capture waiting let go. */
void kcap_threads_free(struct utrace_kcap *k);

#endif
