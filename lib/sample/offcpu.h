/* SPDX-License-Identifier: MIT */
/*
 * offcpu.h - off-CPU time (record --off-cpu, perf record --off-cpu's
 * offcpu-time event) from the context switches of the sampled threads
 * (offcpu.c).
 *
 * The sampler's context-switch event (PERF_COUNT_SW_CONTEXT_SWITCHES,
 * period 1) writes a sample with the thread's user stack each time a
 * thread is switched out, and a PERF_RECORD_SWITCH each time one is
 * switched in.  This pairs them: a thread's switch-out sample and its
 * next switch-in make one off-CPU sample, at the switch-out's time and
 * stack, its period the ns the thread spent switched out.  The samples
 * are handed out as PERF_RECORD_SAMPLE records laid out by
 * UTRACE_OFFCPU_SAMPLE_TYPE.
 */
#ifndef UTRACE_LIB_SAMPLE_OFFCPU_H
#define UTRACE_LIB_SAMPLE_OFFCPU_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#define UTRACE_OFFCPU_SAMPLE_TYPE                                                                  \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
/* The layout of the context-switch event's own samples. */
#define UTRACE_OFFCPU_CS_TYPE                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_CALLCHAIN)

struct utrace_offcpu;

struct utrace_offcpu *utrace_offcpu_new(void);
void utrace_offcpu_free(struct utrace_offcpu *o);

/* Takes the records of one context-switch ring buffer (a drain's); -ENOMEM. */
int utrace_offcpu_feed(struct utrace_offcpu *o, const void *records, size_t len);

/*
 * Pairs what was fed with a time below upto (ns, CLOCK_MONOTONIC) and
 * gives the off-CPU samples made in *records, *len (valid until the next
 * call); later ones wait, since a switch on another CPU may still be on
 * its way.  UINT64_MAX at the end: everything.  -ENOMEM.
 */
int utrace_offcpu_flush(struct utrace_offcpu *o, uint64_t upto, const void **records, size_t *len);

/* Off-CPU samples made so far. */
uint64_t utrace_offcpu_samples(const struct utrace_offcpu *o);

#endif
