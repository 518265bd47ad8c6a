/* SPDX-License-Identifier: MIT */
/*
 * record_run_internal.h - what the parts of `utrace record`'s work share
 * (cmds/record_run.c): the session, the kernel side, and the calls from
 * record_run.c to record_events.c (the -e/--probe selection),
 * record_spawn.c (the command started), record_kernel.c (the kernel's
 * and the sampler's records) and record_summary.c (what is said at the
 * end).
 */
#ifndef UTRACE_CMDS_RECORD_RUN_INTERNAL_H
#define UTRACE_CMDS_RECORD_RUN_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmds/record.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/sample/sampler.h"

/* Kernel tracing and sampling start while the child waits to exec
 * (record_spawn). */
struct record_kernel {
	struct utrace_ktrace *kt;
	bool children, system_wide;
	const struct utrace_sampler_opts *sopts; /* NULL: no sampling */
	struct utrace_sampler *sampler;
	struct utrace_error err;
};

/* Everything a session holds, released by record_cleanup. */
struct record_session {
	struct record_opts *o;
	struct utrace_recorder *r;
	struct record_kernel k;
	struct utrace_event_select *events;
	struct utrace_event_spec *uspecs, *kspecs;
	unsigned nuspecs, nkspecs;
	char **target_names; /* specs added for enable_event targets */
	unsigned nr_target_names;
	struct record_probes *rp;
	struct utrace_synth **synths; /* --synthetic, o->nsynth of them */
	char *command;
	char runtime[PATH_MAX];
	pid_t pid;
	pid_t sid, cmd_sid; /* record_daemons.c: ours, the command's as it ran */
	uint64_t daemons_looked_ns; /* record_daemons.c: the last look in /proc */
	int status;
	bool exited, stopped;
	struct record_live *live; /* --tracefs */
	struct record_attach *attach; /* -P: processes attached to, no command */
	int failed; /* the error that stopped the recording, said (record_fail) */
};

/* record_events.c: the -e and --probe specs split into user events,
 * kernel events and uprobes, then the kernel instance and the user event
 * selection opened, every filter checked.  0, or the exit status. */
int record_split_events(struct record_session *s);
int record_open_events(struct record_session *s);

/* record_spawn.c: libutrace.so's path (0, or -1 if not found); the
 * command started with kernel tracing and sampling on its pid (see
 * there). */
int record_find_runtime(char *out, size_t len);
pid_t record_spawn(char **argv, const char *sock, const char *runtime, bool bind_now,
		   struct record_kernel *k, struct utrace_error *err);

/* record_kernel.c: the kernel side's and the sampler's records */
int record_kernel_start(struct record_kernel *k, pid_t pid);
int record_kpage(void *r, uint32_t cpu, const void *page, size_t len, struct utrace_error *err);
int record_perf(void *r, uint32_t cpu, const void *records, size_t len, struct utrace_error *err);
int record_offcpu(void *r, uint32_t cpu, const void *records, size_t len, struct utrace_error *err);
int record_perf_attr(struct utrace_recorder *r, const struct utrace_sampler *sp, bool user_only,
		     struct utrace_error *err);
int record_ksyms(struct utrace_recorder *r, struct utrace_sampler *sp, struct utrace_error *err);
int record_kformat(void *r, const char *system, const char *name, int id, const char *text,
		   struct utrace_error *err);
int record_kstack_syms(struct utrace_ktrace *kt, struct utrace_recorder *r,
		       struct utrace_error *err);

/* record_daemons.c: the command's session noted while it runs (each
 * round of the loop); once it has exited, whether the recording is over:
 * 0 (no), RECORD_ALL_GONE, or RECORD_DAEMONS_LEFT (only processes that
 * left its session are still traced, and not --follow-daemons); then
 * record_daemons_end switches tracing off in them and names them. */
enum { RECORD_ALL_GONE = 1, RECORD_DAEMONS_LEFT };
void record_daemons_watch(struct record_session *s);
int record_daemons_end_check(struct record_session *s);
void record_daemons_end(struct record_session *s);

/* record_summary.c: what was saved, what was lost, what matched nothing */
void record_summary(struct record_session *s, const struct utrace_recorder_stats *st);
/* The command died of a signal: said once it is reaped (utrace record
 * then ends with the same signal, which a shell may not say). */
void record_say_killed(const struct record_session *s);

#endif
