/* SPDX-License-Identifier: MIT */
/*
 * session_live_internal.h - what the parts of the live tracefs of
 * `utrace record --tracefs` share: session_live.c (the files' changes,
 * the recorder held), session_live_read.c (what trace, trace_pipe,
 * utrace.dat and per_cpu/cpuN/stats read of the file written so far)
 * and session_dynev.c (dynamic_events and synthetic_events), which
 * session_live.c calls, none of them calling back.
 */
#ifndef UTRACE_SESSION_LIVE_INTERNAL_H
#define UTRACE_SESSION_LIVE_INTERNAL_H

#include <pthread.h>
#include <stdio.h>

#include "lib/tracefs/live.h"
#include "lib/record/recorder.h"
#include "lib/tracefile/dat_reader.h"

struct session_live {
	struct utrace_recorder *r;
	const char *output;
	char *extract; /* output.extract: utrace_recorder_extract's file */
	bool overwrite; /* the rings are read at the end only: trace reads an extract */
	pthread_mutex_t lock;
	int want; /* FUSE threads waiting for lock */
	struct utrace_live *fs;
	/* the ids of events: the recording's selection (-e), else our own,
	 * since then no event is recorded whose id it could contradict */
	struct utrace_event_select *events, *own;
	struct session_dynev *dyn; /* dynamic_events, synthetic_events */
	struct utrace_ktrace *kt;  /* the kernel's instance, or NULL */
	/* bookmarks in the growing file (live_resume), used under the
	 * tracefs's lock */
	struct utrace_dat_resume **resumes;
	size_t nr_resumes, cap_resumes;
};

static inline void live_lock(struct session_live *rl)
{
	__atomic_add_fetch(&rl->want, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&rl->lock);
	__atomic_sub_fetch(&rl->want, 1, __ATOMIC_RELAXED);
}

/* session_live_wakeup.c: the wakeup tracers (utrace_live_ops) */
int session_live_wakeup_start(void *arg, bool on, bool rt, struct utrace_error *err);
void session_live_wakeup_clear(void *arg);
int session_live_wakeup_max(void *arg, bool set, uint64_t *max_ns, struct utrace_error *err);
/* whether trace prints for tracer as the wakeup tracers do */
bool session_live_wakeup_tracer(const char *tracer);
/* trace of the wakeup tracers: the longest wakeup latency's */
int session_live_wakeup_print(struct session_live *rl, FILE *out, struct utrace_error *err);

/* session_live_read.c */
/* The records so far read and merged (the kernel's triggers run on
 * them), with rl->lock held. */
int session_live_merge(struct session_live *rl, struct utrace_error *err);
/* The file as written so far (an extract with --overwrite), opened with
 * the recorder held. */
int session_live_open_dat(struct session_live *rl, struct utrace_dat **d, struct utrace_error *err);
/* The utrace_live_ops that read it (lib/tracefs/live.h). */
int session_live_extract(void *arg, FILE *out, struct utrace_error *err);
/* trace_stat/functionN: the function profiler's table of cpu from the
 * file written so far (lib/report/fprofile.c) */
int session_live_print_profile(void *arg, FILE *out, int cpu, uint64_t from_ns, uint64_t to_ns,
			       uint64_t thresh_ns, struct utrace_error *err);
int session_live_print_trace(void *arg, FILE *out, const char *tracer, uint32_t options,
			     uint64_t since_ns, int cpu, uint64_t *last_ns,
			     struct utrace_error *err);
/* kprobe_profile: the records of event SYSTEM:NAME the recording holds */
int session_live_event_hits(void *arg, const char *system, const char *name, uint64_t *hits,
			    uint64_t *missed, struct utrace_error *err);
int session_live_cpu_stats(void *arg, int cpu, uint64_t since_ns, uint64_t read_ns,
			   struct utrace_live_stats *st, struct utrace_error *err);
/* Frees the bookmarks of trace's and trace_pipe's reads. */
void session_live_resumes_free(struct session_live *rl);

#endif
