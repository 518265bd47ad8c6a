/* SPDX-License-Identifier: MIT */
/*
 * dat_samples.h - the samples of `utrace record -F` in a utrace.dat
 * (PERF_ATTR and PERF records, lib/tracefile/dat_format.h), with the
 * mappings and names the kernel reported alongside, so that a sample's
 * addresses can be named (lib/report/samples.c does the naming).
 */
#ifndef UTRACE_LIB_TRACEFILE_DAT_SAMPLES_H
#define UTRACE_LIB_TRACEFILE_DAT_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

struct utrace_dat_sample {
	uint64_t ts; /* ns, CLOCK_MONOTONIC, as every other record's time */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t period; /* ns of CPU time the sample stands for (off CPU: switched out) */
	bool offcpu;	 /* record --off-cpu's: a switch-out, perf's offcpu-time event */
	uint64_t ip;
	uint32_t nr;	       /* call chain, innermost first (ip too); 0 without -g */
	const uint64_t *chain; /* valid during the callback */
	uint32_t nr_kernel;    /* its first nr_kernel addresses are the kernel's */
	/* --call-graph dwarf: the user registers (regs_user's bits of
	 * PERF_ATTR, in bit order) and the copy of the stack from the user
	 * sp; nr_regs 0 when the kernel had none (a kernel thread) */
	uint32_t nr_regs;
	uint64_t regs_mask;
	const uint64_t *regs;
	uint64_t stack_size; /* the bytes of stack copied (the kernel's dyn_size) */
	const unsigned char *stack;
	/* under function_graph (dat_samples_graph.c): the return addresses
	 * the thread's open traced calls hooked, innermost first, for an
	 * unwinder that meets the return trampoline (a frame-pointer chain
	 * comes with its trampolines already replaced); 0 if none */
	uint32_t nr_graph_rets;
	const uint64_t *graph_rets;
};

/* Whether d holds samples; their frequency and whether the kernel's
 * addresses were left out (either pointer may be NULL). */
bool utrace_dat_has_samples(const struct utrace_dat *d, uint32_t *freq, bool *user_only);
/* Whether its samples carry the user call chain (record --call-graph fp)
 * or what to unwind it from (dwarf). */
bool utrace_dat_samples_have_chains(const struct utrace_dat *d);

/*
 * Calls fn for every sample in file order.  *lost: samples the kernel
 * could not write (PERF_RECORD_LOST).  A damaged record ends its block
 * with a warning (utrace_dat_warning), the rest goes on.  Stops at the
 * first non-zero return of fn and returns it.
 */
int utrace_dat_samples_each(struct utrace_dat *d,
			    int (*fn)(void *arg, const struct utrace_dat_sample *s,
				      struct utrace_error *err),
			    void *arg, uint64_t *lost, struct utrace_error *err);

/* Whether addr is the function_graph return trampoline in process pid
 * (utrace_graph_return or _keepflags of the runtime mapped there). */
bool utrace_dat_sample_is_graph_return(struct utrace_dat *d, int32_t pid, uint64_t addr);
/* How many samples d holds (on and off CPU), for the exports that carry
 * none to say so; 0 without samples. */
int utrace_dat_sample_count(struct utrace_dat *d, uint64_t *n, struct utrace_error *err);

/* The file mapped at ip in process pid, and ip's offset in it; NULL if
 * no mapping the kernel reported covers it (a child process looks in its
 * parent's, as fork left them). */
const char *utrace_dat_sample_map(struct utrace_dat *d, int32_t pid, uint64_t ip,
				  uint64_t *file_off);
/* The same mapping whole, as the kernel reported it (pprof's mappings:
 * lib/export/export_pprof_samples.c). */
struct utrace_dat_mapping {
	uint64_t start, len, pgoff;
	const char *path;
};
const char *utrace_dat_sample_mapping(struct utrace_dat *d, int32_t pid, uint64_t ip,
				      struct utrace_dat_mapping *out);
/* Whether its samples carry stack copies (record --call-graph dwarf). */
bool utrace_dat_samples_have_stacks(const struct utrace_dat *d);
/* The kernel symbol at or below addr that the recording saved
 * (PERF_KSYMS: only those its samples needed) and its start; NULL if
 * none. */
const char *utrace_dat_sample_ksym(struct utrace_dat *d, uint64_t addr, uint64_t *start);
/* The last name the kernel gave thread tid (its comm), NULL if none. */
const char *utrace_dat_sample_comm(struct utrace_dat *d, int32_t tid);

#endif
