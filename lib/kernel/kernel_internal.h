/* SPDX-License-Identifier: MIT */
/*
 * kernel_internal.h - the session of kernel_trace.h, shared by its files:
 * kernel_trace.c (events, pages, tasks) and kernel_trigger.c (the
 * triggers the kernel runs itself).
 */
#ifndef UTRACE_LIB_KERNEL_INTERNAL_H
#define UTRACE_LIB_KERNEL_INTERNAL_H

#include <limits.h>
#include <sys/types.h>

#include "lib/kernel/kernel_trace.h"

#define KT_READ_INTERVAL_NS 10000000ull /* pages are read at most every 10 ms */
#define KT_PAGES_PER_POLL 1024		/* per CPU, so user buffers get their turn */
#define KT_COMMIT_MASK ((1u << 27) - 1)
#define KT_MISSED_EVENTS (1ull << 31)
#define KT_MISSED_STORED (1ull << 30)

struct kt_event {
	char *system, *name, *format;
	int id;
	bool format_only; /* ftrace:kernel_stack: written by a trigger, never enabled */
};

struct kt_cpu {
	int fd;
	uint32_t cpu;
};

struct kbuffer;

/* A trigger written to an event's trigger file (kernel_trigger.c). */
struct kt_trig {
	size_t ev; /* in evs */
	char *cmd, *text;
};

struct utrace_ktrace {
	char dir[PATH_MAX]; /* the instance */
	char name[32];
	char clock[16];
	uint32_t subbuf_size;
	char *header_page, *header_event;
	struct kt_event *evs;
	size_t nr_evs, cap_evs;
	struct kt_cpu *cpus;
	size_t nr_cpus, cap_cpus;
	int free_fd;
	uint8_t *page;
	struct kbuffer *kb;
	struct utrace_dat_ktask *tasks;
	size_t nr_tasks, cap_tasks;
	uint32_t *task_hash; /* index + 1 */
	size_t hash_size;
	int pid; /* scoped to; 0 = whole system */
	bool children, stopped;
	bool backlog; /* a CPU had pages left at the last read */
	int *tids;    /* threads of pid in set_event_pid */
	size_t nr_tids, cap_tids;
	nlink_t task_nlink;
	uint64_t last_read, pages, missed;
	bool stacks; /* a stacktrace trigger is armed: kernel_stack entries */
	struct kt_trig *trigs;
	size_t nr_trigs, cap_trigs;
};

/* kernel_trigger.c: the triggers written again as tracing starts (their
 * :N counts whole), and freed. */
int kt_triggers_rearm(struct utrace_ktrace *kt, struct utrace_error *err);
void kt_triggers_free(struct utrace_ktrace *kt);

#endif
