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

/* Whose CPU time is sampled. */
enum utrace_sample_target {
	UTRACE_SAMPLE_EXEC,    /* a child held before its exec, from its exec on */
	UTRACE_SAMPLE_PROCESS, /* a running process: its threads now, from now on */
	UTRACE_SAMPLE_SYSTEM,  /* every task of every CPU (pid unused) */
};

struct utrace_sampler_opts {
	enum utrace_sample_target target;
	unsigned freq;	/* samples per second of CPU time (perf record -F) */
	bool callchain; /* -g: the stack by frame pointers */
	/* --call-graph dwarf[,SIZE]: each sample also carries the user
	 * registers and a copy of this many bytes of the user stack, for an
	 * unwinder to walk later by the files' CFI (a multiple of 8, at most
	 * UTRACE_SAMPLER_MAX_STACK); 0: none */
	uint32_t stack_size;
	bool user_only; /* leave the kernel's addresses out */
	bool off_cpu;	/* --off-cpu: also the time threads spend switched out */
};

/* perf's limit of a stack copy: the kernel's u16 record size, in u64s */
#define UTRACE_SAMPLER_MAX_STACK 65528u
#define UTRACE_SAMPLER_DEFAULT_STACK 8192u

/* What utrace_sampler_attr() says of the samples, for their reader. */
struct utrace_sampler_attr {
	uint64_t sample_type; /* PERF_SAMPLE_* */
	uint32_t freq;
	uint32_t nr_cpus;
	uint64_t regs_user;  /* PERF_SAMPLE_REGS_USER's mask (asm/perf_regs.h bits) */
	uint32_t stack_user; /* PERF_SAMPLE_STACK_USER's size */
};

/* The user registers a DWARF unwinder needs (x86_64: the sixteen general
 * ones and ip); 0 where utrace cannot unwind by DWARF. */
uint64_t utrace_sampler_dwarf_regs(void);

/* Opens the events on pid as o->target says (a child held before its
 * exec: they start at its exec).  -errno with err filled, perf's hint included where the
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

/* The kernel symbols the samples drained so far need (lib/sample/ksyms.h's
 * layout; *len 0 if none, or the kernel was left out): a malloc'd *out. */
int utrace_sampler_ksyms(struct utrace_sampler *s, void **out, size_t *len,
			 struct utrace_error *err);

/* Samples and lost records seen by the drains so far (the off-CPU
 * samples made in *offcpu, if not NULL). */
void utrace_sampler_stats(const struct utrace_sampler *s, uint64_t *samples, uint64_t *lost,
			  uint64_t *offcpu);
void utrace_sampler_close(struct utrace_sampler *s);

/* For a process sampled while it runs (UTRACE_SAMPLE_PROCESS): the COMM
 * and MMAP records the kernel wrote before (its threads' names, the files
 * it maps executable), made from /proc (sampler_synth.c), laid out as
 * the sampler's records, to save before them; a malloc'd *out. */
int utrace_sampler_synthesize(pid_t pid, void **out, size_t *len, struct utrace_error *err);

#endif
