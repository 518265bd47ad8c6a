/* SPDX-License-Identifier: MIT */
/*
 * session_internal.h - what the parts of a recording share
 * (lib/session/session.c): the session, the kernel side, and the calls from
 * session.c to session_events.c (the -e/--probe selection),
 * session_spawn.c (the command started), session_kernel.c (the kernel's
 * and the sampler's records) and session_summary.c (what is said at the
 * end).
 */
#ifndef UTRACE_SESSION_INTERNAL_H
#define UTRACE_SESSION_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/kernel/kernel_trace.h"
#include "lib/sample/sampler.h"
#include "lib/session/session.h"
#include "lib/session/session_fail.h"

/* Kernel tracing and sampling start while the child waits to exec
 * (session_spawn). */
struct session_kernel {
	struct utrace_ktrace *kt;
	bool children, system_wide;
	const struct utrace_sampler_opts *sopts; /* NULL: no sampling */
	struct utrace_sampler *sampler;
	struct utrace_error err;
	uint64_t go_tsc; /* the TSC just before the child was let exec (OWN) */
};

/* Everything a session holds, released by utrace_session_free. */
struct utrace_session {
	struct utrace_session_opts *o;
	struct utrace_recorder *r;
	struct session_kernel k;
	struct utrace_event_select *events;
	struct utrace_event_spec *uspecs, *kspecs;
	unsigned nuspecs, nkspecs;
	unsigned cap_uspecs, cap_kspecs; /* UTRACE_GROW's capacities */
	char **target_names; /* specs added for enable_event targets */
	unsigned nr_target_names, cap_target_names;
	struct session_probes *rp;
	struct utrace_synth **synths; /* --synthetic, o->nsynth of them */
	char *command;
	char runtime[PATH_MAX];
	pid_t pid;
	pid_t sid, cmd_sid;	    /* session_daemons.c: ours, the command's as it ran */
	uint64_t daemons_looked_ns; /* session_daemons.c: the last look in /proc */
	int status;
	bool exited, stopped;
	bool step_killed; /* o->step ended the recording: the SIGTERM was ours */
	struct session_live *live;     /* --tracefs */
	struct session_attach *attach; /* -P: processes attached to, no command */
	int failed;		  /* the error that stopped the recording, said (session_fail) */
	bool started;		  /* utrace_session_start got as far as the loop */
	struct session_fail fail; /* what stopped utrace_session_start */
};

/* session_events.c: the -e and --probe specs split into user events,
 * kernel events and uprobes, then the kernel instance and the user event
 * selection opened, every filter checked.  0, or the exit status. */
int session_split_events(struct utrace_session *s);
int session_open_events(struct utrace_session *s);

/* session_spawn.c: the command started with kernel tracing and sampling
 * on its pid (see there). */
pid_t session_spawn(char **argv, const char *sock, const char *runtime, bool bind_now,
		    struct session_kernel *k, struct utrace_error *err);

/* session_kernel.c: the kernel side's and the sampler's records */
int session_kernel_start(struct session_kernel *k, pid_t pid);
int session_kpage(void *r, uint32_t cpu, const void *page, size_t len, struct utrace_error *err);
int session_perf(void *r, uint32_t cpu, const void *records, size_t len, struct utrace_error *err);
int session_offcpu(void *r, uint32_t cpu, const void *records, size_t len,
		   struct utrace_error *err);
int session_perf_attr(struct utrace_recorder *r, const struct utrace_sampler *sp, bool user_only,
		      struct utrace_error *err);
int session_ksyms(struct utrace_recorder *r, struct utrace_sampler *sp, struct utrace_error *err);
int session_kformat(void *r, const char *system, const char *name, int id, const char *text,
		    struct utrace_error *err);
int session_kstack_syms(struct utrace_ktrace *kt, struct utrace_recorder *r,
			struct utrace_error *err);

/* session_daemons.c: the command's session noted while it runs (each
 * round of the loop); once it has exited, whether the recording is over:
 * 0 (no), SESSION_ALL_GONE, or SESSION_DAEMONS_LEFT (only processes that
 * left its session are still traced, and not --follow-daemons); then
 * session_daemons_end switches tracing off in them and names them. */
enum { SESSION_ALL_GONE = 1, SESSION_DAEMONS_LEFT };
void session_daemons_watch(struct utrace_session *s);
int session_daemons_end_check(struct utrace_session *s);
void session_daemons_end(struct utrace_session *s);

/* session_summary.c: what was saved, what was lost, what matched nothing */
void session_summary(struct utrace_session *s, const struct utrace_recorder_stats *st);
/* The command died of a signal: said once it is reaped (utrace record
 * then ends with the same signal, which a shell may not say). */
void session_say_killed(const struct utrace_session *s);

/* session_crash.c: --dump-on-crash's dump, once the command is reaped */
void session_crash_dump(struct utrace_session *s);

#endif
