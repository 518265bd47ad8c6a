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
#include "lib/report/report_filter.h"

/* Times, in pairs [from, to) (CLOCK_MONOTONIC ns; to UINT64_MAX: still
 * open), session_inst.c */
struct session_wins {
	uint64_t *t;
	size_t n, cap; /* n: 2 a pair */
};

/* A thread's times in one of a reader's lists (enum utrace_recorder_pids
 * which). */
struct session_tid_wins {
	int32_t tid;
	uint8_t which;
	struct session_wins w;
};

/* What one event of a selection had on, and when (session_inst.c). */
struct session_sel_ev {
	char *sys, *name;
	int id; /* its records' */
	struct session_wins w;
	void *prog; /* an instance's filter of it (common/filter_prog.h), or NULL */
	uint32_t prog_len;
};

/*
 * One reader of the records (session_inst.c): the top level or an
 * instance.  The ops of each get its own as their arg (live_rl() is the
 * recording).  An instance's windows are those in which it had tracing
 * on (on), a tracer (fn), an event on (evs); the top level's are those
 * in which an instance kept on in the processes what it had off (its
 * masks).
 */
struct session_sel {
	struct session_live *rl;
	bool top;
	struct session_wins on, fn, marks; /* marks: an instance's trace_marker writes */
	struct session_sel_ev *evs;
	size_t nevs, cap_evs;
	enum utrace_tracer tracer; /* an instance's, the top level's (its own) */
	const struct utrace_func_filter *filter;
	uint32_t depth;
	uint8_t *rec; /* a record put together for its filters */
	size_t cap_rec;
	unsigned *snaps; /* an instance's snapshots: the recording's numbers */
	size_t nsnaps, cap_snaps;
	uint64_t cpu_off;	  /* its tracing_cpumask's CPUs left out (bit N) */
	/* an instance's reader on the control page (its own triggers:
	 * session_inst_trig.c), 1 .. UTRACE_READERS - 1; 0: none free */
	unsigned reader;
	struct session_wins *cpus; /* by CPU (64), the times it had it out */
	/* its thread-id lists over time (session_inst_pids.c), once the
	 * readers select: the times its set_event_pid (0) and set_ftrace_pid
	 * (1) had ids, and each thread's times in each list */
	struct session_wins listed[2];
	struct session_tid_wins *tids;
	size_t ntids, cap_tids;
};


/* session_wins.c: the windows (in pairs, the last one maybe open) */
bool session_wins_open(const struct session_wins *w);
int session_wins_start(struct session_wins *w);
void session_wins_end(struct session_wins *w);
/* the same at a given time (a trigger's firing), never before the last
 * time w holds */
int session_wins_start_at(struct session_wins *w, uint64_t ns);
void session_wins_end_at(struct session_wins *w, uint64_t ns);
bool session_wins_has(const struct session_wins *w, uint64_t ts);

struct session_live {
	struct utrace_recorder *r;
	struct session_sel top; /* the top level's reader: the ops' arg */
	struct session_sel **insts; /* instances/NAME's */
	size_t ninsts, cap_insts;
	bool sel_used; /* an instance was made: the top level reads through top */
	uint64_t fired; /* the instances' trigger firings applied (session_inst_trig.c) */
	unsigned *inst_snaps; /* the snapshots instances took, ascending */
	size_t ninst_snaps, cap_inst_snaps;
	unsigned snaps_seen; /* the recording's snapshots whose reader is known */
	struct utrace_live_ops ops; /* the top level's, those of an instance start as a copy */
	const char *output;
	char *extract; /* output.extract: utrace_recorder_extract's file */
	struct utrace_dat_kscan *kscan; /* the kernel tasks of the file's earlier readings */
	bool overwrite; /* the rings are read at the end only: trace reads an extract */
	pthread_mutex_t lock;
	int want; /* FUSE threads waiting for lock */
	struct utrace_live *fs;
	/* the ids of events: the recording's selection (-e), else our own,
	 * since then no event is recorded whose id it could contradict */
	struct utrace_event_select *events, *own;
	struct session_dynev *dyn; /* dynamic_events, synthetic_events */
	/* the probes' definitions other than event probes' (session_eprobe.c
	 * takes those first) */
	int (*probe_add)(void *arg, const char *def, enum utrace_live_probe file, char **line,
			 const struct utrace_event_format **fmt, struct utrace_error *err);
	struct utrace_ktrace *kt;  /* the kernel's instance, or NULL */
	/* the kernel's sched events whose records a pid list also keeps for
	 * the other task's id (session_inst_pids.c): kernel id (-1: none),
	 * the offsets of those ids (prev_pid, next_pid; pid) */
	struct session_ksched {
		int kid;
		uint32_t off[2];
		unsigned noff;
	} ksched[4];
	bool ksched_known;
	/* bookmarks in the growing file (live_resume), used under the
	 * tracefs's lock */
	struct utrace_dat_resume **resumes;
	size_t nr_resumes, cap_resumes;
};

static inline struct session_live *live_rl(void *arg)
{
	return ((struct session_sel *)arg)->rl;
}

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
/* The same before an event is switched on or off (rl->lock held): the
 * kernel's records before the switch run under the state they had, the
 * enable of a kernel event, an event probe or a synthetic event taking
 * effect from its write as in the kernel, not from the next merge. */
void session_live_catch_up(struct session_live *rl);
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
/* The same, of a selection's records (session_inst.c's keep; sel's own
 * reads have no bookmarks: its times are not the top level's). */
int session_live_print_sel(struct session_live *rl, utrace_report_keep_fn keep, void *sel,
			   FILE *out, const char *tracer, uint32_t options, uint64_t since_ns,
			   int cpu, uint64_t *last_ns, struct utrace_error *err);

/* session_inst.c: the top level's event_enable, tracing_on, set_tracer
 * and print_trace, which an instance's reader changes; and
 * instance_new, instance_free (lib/tracefs/live.h) */
int session_sel_event_enable(void *arg, const char *system, const char *name, int set);
uint32_t session_sel_tracing_on(void *arg, int set);
int session_sel_set_tracer(void *arg, enum utrace_tracer tracer,
			   const struct utrace_func_filter *filter, uint32_t max_depth,
			   struct utrace_error *err);
int session_sel_print_trace(void *arg, FILE *out, const char *tracer, uint32_t options,
			    uint64_t since_ns, int cpu, uint64_t *last_ns,
			    struct utrace_error *err);
/* utrace_report_keep_fn: the records reader arg (a struct session_sel)
 * shows */
int session_sel_keep(void *arg, const struct utrace_event *ev, const char *func);
/* session_sel.c: a selection's entry of an event (NULL: none), made if it has none
 * (NULL: out of memory); an event of the processes switched (set 1, 0)
 * or read (-1); whether an instance other than but has the event on,
 * or tracing on */
struct session_sel_ev *session_sel_ev_find(struct session_sel *s, const char *sys,
					   const char *name);
struct session_sel_ev *session_sel_ev_get(struct session_sel *s, const char *sys, const char *name);
int session_rec_event(struct session_live *rl, const char *sys, const char *name, int set);
bool session_insts_have_event(struct session_live *rl, const struct session_sel *but,
			      const char *sys, const char *name);
bool session_insts_on(struct session_live *rl, const struct session_sel *but);
/* The instance whose reader (control page slot) is reader, NULL if none */
struct session_sel *session_reader_sel(struct session_live *rl, unsigned reader);
/* session_inst_snap.c: snapshot of the top level and of an instance
 * (lib/tracefs/live.h's take_snapshot, print_snapshot) */
int session_sel_take_snapshot(void *arg, struct utrace_error *err);
/* session_inst_trig.c: an instance's own triggers.  The firings of the
 * instances' triggers applied to their windows (before each of the
 * files' reads and writes, with the tracefs's lock held); an instance's
 * trigger ops; its reader taken at mkdir (before its tracing_on), and
 * dropped at rmdir. */
void session_inst_sync(struct session_live *rl);
void session_inst_trig_ops(struct session_sel *s, struct utrace_live_ops *ops);
/* session_live.c: a reader's hist file (ops->print_hist) */
int session_sel_print_hist(void *arg, FILE *out, const char *system, const char *name,
			   struct utrace_error *err);
void session_inst_reader_take(struct session_live *rl, struct session_sel *s);
void session_inst_reader_drop(struct session_live *rl, struct session_sel *s);
int session_sel_print_snapshot(void *arg, FILE *out, const char *tracer, uint32_t options,
			       unsigned from, unsigned *count, struct utrace_error *err);
/* session_inst_pids.c: a reader's set_event_pid, set_event_notrace_pid,
 * set_ftrace_pid, set_ftrace_notrace_pid and their options event-fork and
 * function-fork (lib/tracefs/live.h's event_pids, ftrace_pids, pids_get,
 * follow_fork); the readers that count and their lists' times, after an
 * instance was made or removed; the forks' and exits' changes to the
 * lists applied (in session_inst_sync); whether reader s wants record ev
 * by its lists (its events' lists, or for a call the function lists) */
int session_sel_event_pids(void *arg, const int32_t *tids, unsigned n, const int32_t *notrace,
			   unsigned nn);
int session_sel_ftrace_pids(void *arg, const int32_t *tids, unsigned n, const int32_t *notrace,
			    unsigned nn);
unsigned session_sel_pids_get(void *arg, enum utrace_live_pids which, int32_t *tids);
void session_sel_follow_fork(void *arg, unsigned follow);
void session_pids_readers(struct session_live *rl, bool first);
void session_pids_sync(struct session_live *rl);
bool session_sel_pids_keep(const struct session_sel *s, const struct utrace_event *ev, bool call);
void session_sel_pids_free(struct session_sel *s);
/* session_inst.c: tracing_cpumask of a reader (ops->cpu_off) */
void session_sel_cpu_off(void *arg, uint64_t off);
int session_inst_new(void *arg, const char *name, struct utrace_live_ops *ops,
		     struct utrace_error *err);
void session_inst_free(void *arg, void *inst);
void session_sel_free(struct session_sel *s);

/* Frees the bookmarks of trace's and trace_pipe's reads. */
void session_live_resumes_free(struct session_live *rl);

#endif
