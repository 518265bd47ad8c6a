/* SPDX-License-Identifier: MIT */
/*
 * perf_sample.h - one PERF_RECORD_SAMPLE as the kernel wrote it, laid out
 * by its sample_type (<linux/perf_event.h>: IP, TID, TIME, CPU, PERIOD,
 * CALLCHAIN, REGS_USER, STACK_USER, the fields utrace asks for, in the
 * kernel's order), into a struct utrace_dat_sample: for the reader of a
 * utrace.dat's PERF records (dat_samples.c) and for the live readers of
 * the perf ring buffers (utrace top).  Every field is checked against the
 * record's size.
 */
#ifndef UTRACE_LIB_TRACEFILE_PERF_SAMPLE_H
#define UTRACE_LIB_TRACEFILE_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/tracefile/dat_samples.h"

/* The room a sample's chain and registers are read into (the sample
 * points into it until the next parse). */
struct utrace_perf_parser {
	uint64_t regs_user; /* PERF_SAMPLE_REGS_USER's mask, set by the caller */
	uint64_t *chain;    /* the call chain without its context markers */
	size_t cap_chain;
	uint64_t regs[64]; /* aligned copies */
};

/* Bits of sample_type this parser lays out; others it cannot. */
#define UTRACE_PERF_KNOWN_SAMPLE                                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |                      \
	 PERF_SAMPLE_STACK_USER)

/* The record of size bytes (header included) laid out by sample_type
 * into *out: 0, 1 if damaged (a field past its end), -ENOMEM. */
int utrace_perf_parse_sample(struct utrace_perf_parser *p, uint64_t sample_type, const void *rec,
			     size_t size, struct utrace_dat_sample *out);
void utrace_perf_parser_free(struct utrace_perf_parser *p);

#endif
