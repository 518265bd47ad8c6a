/* SPDX-License-Identifier: MIT */
/*
 * lib/sample - sampling a command with perf_event_open, perf record's way:
 * every 1/HZ second of CPU time of one of its threads, the kernel writes a
 * sample (ip, pid/tid, time, CPU and, with a call graph, the user stack by
 * frame pointers) into a ring buffer we map; it also tells where every
 * file was mapped (PERF_RECORD_MMAP) and what each task is called
 * (PERF_RECORD_COMM), which is what turns addresses into functions
 * later.  May use: lib/base.
 *
 * sampler.h - the sampler of one command (sampler.c).
 *
 * One event per CPU on the command's pid, inherited by every thread and
 * child it starts (the kernel maps an inherited event only per CPU),
 * enabled at its exec, on CLOCK_MONOTONIC so samples fall on the same
 * timeline as utrace's records.  The records are handed out as the kernel
 * wrote them (struct perf_event_header framed, as in <linux/perf_event.h>),
 * for the recorder to save as they are (docs/utrace-dat.md, PERF records).
 */
#ifndef UTRACE_LIB_SAMPLE_SAMPLER_H
#define UTRACE_LIB_SAMPLE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/error.h"

struct utrace_sampler;

struct utrace_sampler_opts {
	unsigned freq;	/* samples per second of CPU time (perf record -F) */
	bool callchain; /* -g: the stack by frame pointers */
	bool user_only; /* leave the kernel's addresses out */
	bool off_cpu;	/* --off-cpu: also the time threads spend switched out */
};

/* What utrace_sampler_attr() says of the samples, for their reader. */
struct utrace_sampler_attr {
	uint64_t sample_type; /* PERF_SAMPLE_* */
	uint32_t freq;
	uint32_t nr_cpus;
};

/* Opens the events on pid (a child held before its exec: they start at
 * its exec).  -errno with err filled, perf's hint included where the
 * kernel refuses (perf_event_paranoid). */
int utrace_sampler_open(pid_t pid, const struct utrace_sampler_opts *o, struct utrace_sampler **out,
			struct utrace_error *err);
void utrace_sampler_attr(const struct utrace_sampler *s, struct utrace_sampler_attr *a);

/* Hands every record the kernel has written since the last call to fn,
 * in chunks of whole records of one CPU's buffer, then frees their room.
 * With off_cpu, the off-CPU samples made since (lib/sample/offcpu.h, laid
 * out by UTRACE_OFFCPU_SAMPLE_TYPE) go to offcpu_fn, cpu 0; last (once the
 * command is gone) pairs every switch left.  fn returns 0 or a negative
 * error, which stops the drain and is returned. */
typedef int (*utrace_sampler_fn)(void *arg, uint32_t cpu, const void *records, size_t len,
				 struct utrace_error *err);
int utrace_sampler_drain(struct utrace_sampler *s, utrace_sampler_fn fn,
			 utrace_sampler_fn offcpu_fn, bool last, void *arg,
			 struct utrace_error *err);

/* Samples and lost records seen by the drains so far (the off-CPU
 * samples made in *offcpu, if not NULL). */
void utrace_sampler_stats(const struct utrace_sampler *s, uint64_t *samples, uint64_t *lost,
			  uint64_t *offcpu);
void utrace_sampler_close(struct utrace_sampler *s);

#endif
