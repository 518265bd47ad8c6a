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
	int other_pid_off; /* sched_switch's next_pid, sched_wakeup's pid; -1 (kernel_follow.c) */
	bool hidden;	   /* enabled for kernel_follow.c only: records discarded */
	bool deferred;	   /* -e's, enabled by utrace_ktrace_start, in order */
};

/* What kernel_follow.c knows of a task (beside kt->tasks). */
enum { KT_OWN_UNSET, KT_OWN_YES, KT_OWN_NO, KT_OWN_UNKNOWN };
struct kt_task_state {
	uint8_t own;	  /* KT_OWN_*: of the command's thread group */
	uint8_t proc;	  /* its tgid is from /proc */
	uint8_t cmdline;  /* its comm looked for in the kernel's saved_cmdlines */
	uint8_t made;	  /* its task_newtask record was read: */
	uint8_t thread;	  /* CLONE_THREAD, */
	uint32_t creator; /* by this task (index) */
};

/* A page held until the tasks of its records are known (kernel_follow.c). */
struct kt_held {
	uint8_t *page;
	size_t size;
	uint64_t round; /* of its read */
};

struct kt_cpu {
	int fd;
	uint32_t cpu;
	struct kt_held *held; /* in the order read */
	size_t nr_held, cap_held;
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
	struct kt_task_state *tstate; /* one per task */
	size_t nr_tasks, cap_tasks;
	uint32_t *task_hash; /* index + 1 */
	size_t hash_size;
	int pid; /* scoped to; 0 = whole system */
	bool children, stopped;
	bool started; /* utrace_ktrace_start done: an event added is enabled at once */
	bool backlog; /* a CPU had pages left at the last read */
	int *tids;    /* threads of pid in set_event_pid */
	size_t nr_tids, cap_tids;
	nlink_t task_nlink;
	bool no_event_fork; /* the kernel cannot follow new tasks: /proc polls */
	bool no_newtask;    /* nor tell threads from processes */
	bool filtering;	    /* the records of child processes are discarded */
	bool lineage;	    /* -c: task_newtask tells utrace_ktrace_follows who made whom */
	bool notrace_ok;    /* set_event_notrace_pid exists */
	int newtask_id, newtask_pid_off, newtask_flags_off;
	bool newtask_hidden;
	int exec_id, exec_file_off; /* sched_process_exec's (kt_exec_start), 0: none */
	bool exec_hidden;
	uint64_t round; /* rounds of reads */
	uint64_t dropped, dropped_unknown;
	char note[200];
	uint64_t last_read, pages, missed;
	bool stacks; /* a stacktrace trigger is armed: kernel_stack entries */
	struct kt_trig *trigs;
	size_t nr_trigs, cap_trigs;
};

/* kernel_trigger.c: the triggers written again as tracing starts (their
 * :N counts whole), and freed. */
/* kernel_tasks.c: settings, events, tasks */
int kt_set(struct utrace_ktrace *kt, const char *file, const char *value,
	   struct utrace_error *err);
ssize_t kt_note_task(struct utrace_ktrace *kt, int pid);
/* kernel_tasks.c: the tasks that had exited when first read, named from the
 * kernel's saved_cmdlines and saved_tgids (those not looked for yet; all:
 * every unnamed one) */
void kt_name_exited(struct utrace_ktrace *kt, bool all);
/* Task i named again from /proc, if it still runs: its comm now. */
void kt_task_rename(struct utrace_ktrace *kt, size_t i);
/* kernel_tasks.c: a task's exec renames it (sched_process_exec, hidden
 * unless an -e asked for it); kt_exec_rename takes one of its records,
 * n bytes, of task pid. */
void kt_exec_start(struct utrace_ktrace *kt);
void kt_exec_rename(struct utrace_ktrace *kt, const uint8_t *rec, size_t n, int32_t pid);
/* The index of task pid in kt->tasks, -1 if no record named it. */
ssize_t kt_find_task(const struct utrace_ktrace *kt, int pid);
/* later: enabled by utrace_ktrace_start, after tracing_on (before it
 * starts); else at once.  1 added, 0 not there or added already, <0 */
int kt_add_event(struct utrace_ktrace *kt, const char *sys, const char *name, const char *filter,
		 bool later, struct utrace_error *err);
int kt_enable_event(struct utrace_ktrace *kt, struct kt_event *e, struct utrace_error *err);

/* kernel_follow.c: the kernel follows the command's new tasks; without
 * -c the records of its child processes are discarded as pages are read */
void kt_add_threads(struct utrace_ktrace *kt);
int kt_follow_start(struct utrace_ktrace *kt, struct utrace_error *err);
int kt_follow_page(struct utrace_ktrace *kt, struct kt_cpu *c, size_t size,
		   utrace_ktrace_page_fn fn, void *arg, struct utrace_error *err);
int kt_follow_round(struct utrace_ktrace *kt, bool force, utrace_ktrace_page_fn fn, void *arg,
		    struct utrace_error *err);
void kt_follow_free(struct utrace_ktrace *kt);

int kt_triggers_rearm(struct utrace_ktrace *kt, struct utrace_error *err);
void kt_triggers_free(struct utrace_ktrace *kt);

#endif
