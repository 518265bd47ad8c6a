/* SPDX-License-Identifier: MIT */
/*
 * lib/tracefs - a tracefs of the traced processes (utrace record --tracefs):
 * a FUSE filesystem with the kernel's file names, contents and write
 * semantics, served by threads of the recorder.  May use: lib/base,
 * lib/events, lib/hist (the triggers' syntax).
 *
 * This layer knows the files and their rules (what `>`, `>>`, `!` and a
 * bad value do, the error_log's format); what a file shows or changes in
 * the recording is asked of the recording through struct utrace_live_ops,
 * which `utrace record` implements over lib/record and lib/report (above
 * this layer).  Files:
 *   live_fs.c     the FUSE operations, the mount and its thread
 *   live_files.c  the table of files: each one's content and writes
 *   live_state.c  the state the files share: tracer, function lists,
 *                 error_log
 *   live_pipe.c   trace_pipe: consuming, blocking reads
 *   live_events.c available_events, set_event, set_event_pid, events/enable,
 *                 events/SYSTEM/enable, events/SYSTEM/EVENT/{enable,format,id}
 *   live_ftrace.c events/header_page, header_event, ftrace/EVENT/{format,id}
 *                 (the kernel's texts: lib/events/ftrace_formats.h),
 *                 ftrace/print/{trigger,hist} (trace_marker's triggers)
 *   live_pids.c   set_ftrace_pid, set_ftrace_notrace_pid; the thread-id
 *                 lists' syntax
 *   live_clock.c  trace_clock
 *   live_evconf.c events/SYSTEM/EVENT/{filter,trigger,hist}
 *   live_snapshot.c snapshot
 *   live_readme.c README: the features this tracefs has, the kernel's layout
 *   live_buffers.c tracing_thresh, buffer_total_size_kb, per_cpu/cpuN/stats
 *   live_options.c trace_options, options/
 *   live_profile.c kprobe_profile
 *   live_errpos.c  the kernel's caret columns of filter errors
 *   live_reset.c  unmounting what a killed recorder left
 *   live_wakeup.c the wakeup and wakeup_rt tracers, tracing_max_latency
 *   live_stack.c  stack_trace, stack_max_size, stack_trace_filter,
 *                 utrace.stack_tracer_enabled: the stack tracer
 *   live_kprobes.c utrace.kprobes_list, utrace.kprobes-optimization:
 *                 the kernel's debugfs kprobes/list and sysctl
 *                 debug.kprobes-optimization over the probes
 *   live_dynev.c  dynamic_events, kprobe_events, uprobe_events,
 *                 synthetic_events: probes and synthetic events added and
 *                 removed while the programs run
 *
 * The ops are called from the FUSE threads, several at once; the
 * implementation serialises them with its own work (the recorder's poll
 * loop).
 */
#ifndef UTRACE_LIB_LIVE_H
#define UTRACE_LIB_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/proto.h"
#include "lib/base/error.h"

struct utrace_event_format;
struct utrace_func_filter;
struct utrace_hist_synth_info;
struct utrace_hist_var_info;
struct utrace_trigger;
struct utrace_live;

/* The group of the probes of set_ftrace_filter's function commands
 * (live_ftcmd.c), which probe_add takes from an instance too. */
#define UTRACE_LIVE_FTCMD_GROUP "ftrace_cmd"

/* The file a probe definition was written to (utrace_live_ops.probe_add):
 * dynamic_events takes both kinds of point, kprobe_events SYMBOL[+OFFS]
 * (default group "kprobes"), uprobe_events PATH:OFFSET (default group
 * "uprobes"). */
enum utrace_live_probe { UTRACE_LIVE_DYNAMIC, UTRACE_LIVE_KPROBE, UTRACE_LIVE_UPROBE };

/* The thread-id lists (live_pids.c), and the options that add a fork
 * child to those its parent is in */
enum utrace_live_pids {
	UTRACE_LIVE_PIDS_EVENT,		/* set_event_pid */
	UTRACE_LIVE_PIDS_EVENT_NOTRACE, /* set_event_notrace_pid */
	UTRACE_LIVE_PIDS_FTRACE,	/* set_ftrace_pid */
	UTRACE_LIVE_PIDS_FTRACE_NOTRACE, /* set_ftrace_notrace_pid */
};
#define UTRACE_LIVE_PIDS_MAX 64
enum { UTRACE_LIVE_FOLLOW_EVENT = 1u << 0, UTRACE_LIVE_FOLLOW_FUNCTION = 1u << 1 };

/* trigger_ctl: what is done to a hist trigger's table (:pause, :cont,
 * :clear of one written again), or nothing */
enum utrace_live_trig_ctl {
	UTRACE_LIVE_TRIG_READ,
	UTRACE_LIVE_TRIG_PAUSE,
	UTRACE_LIVE_TRIG_CONT,
	UTRACE_LIVE_TRIG_CLEAR,
};

/* One traceable function: its demangled name, symbol and object path. */
typedef void (*utrace_live_func_cb)(void *cbarg, const char *name, const char *raw,
				    const char *module, bool main_object);

/* One function symbol of a traced object at its run-time address (size
 * 0: up to the next symbol), nm's type letter, the symbol as in the
 * table and its object's path (main_object: a program's own). */
typedef void (*utrace_live_sym_cb)(void *cbarg, uint64_t addr, uint64_t size, char type,
				   const char *raw, const char *module, bool main_object);

/* per_cpu/cpuN/stats: the kernel's figures of one CPU (tracing_stats_read) */
struct utrace_live_stats {
	uint64_t entries;   /* events in the buffer: after the clear, not read */
	uint64_t overrun;   /* overwritten before they were saved */
	uint64_t bytes;	    /* the entries' bytes in the recording's encoding */
	uint64_t oldest_ns; /* the first entry's time, 0: none */
	uint64_t dropped;   /* lost (a full buffer) */
	uint64_t read;	    /* consumed through trace_pipe */
};

/* A probe as a process's text has it (live_kprobes.c's lines). */
struct utrace_live_kprobe {
	uint64_t addr;
	char type;	    /* 'k', or 'r' for a return probe (the kernel's kretprobe) */
	const char *sym;    /* the function symbol holding addr, NULL if none */
	uint64_t off;	    /* addr's offset in it */
	const char *module; /* a library's base name, NULL for the program */
	bool disabled;	    /* its event records nothing now */
	bool optimized;	    /* its jmp to a detour is written, or queued to be */
	bool ftrace;	    /* its function's call site calls it */
};

struct utrace_live_ops {
	void *arg;
	/* the tracer and the function filter of every traced process, now;
	 * filter stays valid until utrace_live_stop */
	int (*set_tracer)(void *arg, enum utrace_tracer tracer,
			  const struct utrace_func_filter *filter, uint32_t max_depth,
			  struct utrace_error *err);
	/* tracing_on: set (0/1) or only read (-1); returns the value */
	uint32_t (*tracing_on)(void *arg, int set);
	/* the recording as the kernel's trace file prints it for tracer:
	 * the events at or after since_ns (CLOCK_MONOTONIC, 0: all) of cpu
	 * (-1: every CPU); *last_ns (if not NULL) gets the time of the last
	 * one, 0 if there is none */
	int (*print_trace)(void *arg, FILE *out, const char *tracer, uint32_t options,
			   uint64_t since_ns, int cpu, uint64_t *last_ns, struct utrace_error *err);
	/* trace_options: the names the printing knows (space separated),
	 * the options word it starts with, and one name or noNAME applied
	 * to a word (-EINVAL if unknown) */
	const char *option_names;
	uint32_t options;
	int (*set_option)(void *arg, const char *name, uint32_t *options);
	/* every object file of the traced processes (each may be named
	 * more than once), and the id the recording gives an event (<0: out
	 * of memory) */
	void (*objects)(void *arg, void (*cb)(void *cbarg, const char *path), void *cbarg);
	int (*event_id)(void *arg, const char *system, const char *name);
	/* the kernel events the recording shows as its own (record -e
	 * SYS:EVENT of the kernel's): the i-th one's format, NULL past the
	 * end; one of them hides a traced object's event of its name */
	const struct utrace_event_format *(*kernel_event)(void *arg, size_t i);
	/* events/.../enable, set_event: event SYSTEM:NAME of every process
	 * switched on (set 1) or off (0), or only read (-1); its state (1,
	 * 0) or -errno */
	int (*event_enable)(void *arg, const char *system, const char *name, int set);
	/* events/.../filter: the event's filter (NULL: none) in every
	 * process */
	int (*event_filter)(void *arg, const char *system, const char *name, const char *filter,
			    struct utrace_error *err);
	/* events/.../trigger: the event's triggers, the whole list (the
	 * kernel's syntax, each checked: trigs[i] is texts[i] parsed, once,
	 * as it was written; utrace_trigger_get() to keep one), in every
	 * process */
	int (*event_triggers)(void *arg, const char *system, const char *name,
			      const char *const *texts, struct utrace_trigger *const *trigs,
			      unsigned n, struct utrace_error *err);
	/* events/.../hist: the tables of the event's hist triggers, as the
	 * kernel's file prints them */
	int (*print_hist)(void *arg, FILE *out, const char *system, const char *name,
			  struct utrace_error *err);
	/* events/.../trigger: the trigger of the list event_triggers set
	 * written as text, as it is in the recording now (*count: its :N
	 * left, -1 unlimited; *paused: its hist table's), after what (enum
	 * utrace_live_trig_ctl) was done to its table; -ENOENT if none */
	int (*trigger_ctl)(void *arg, const char *system, const char *name, const char *text,
			   int what, long *count, bool *paused);
	/* events/.../enable: whether the event has a trigger or one's
	 * enable_/disable_event (or _hist) names it (the kernel's
	 * SOFT_MODE: "0*", "1*") */
	bool (*event_soft)(void *arg, const char *system, const char *name);
	/* a hist trigger of SYSTEM:NAME checked before it is set: its $vars
	 * and actions' synthetic events, as the recording finds them
	 * (lib/hist/hist_compile.h's env callbacks: 0 with *out, or a
	 * UTRACE_HIST_ERR_*); NULL: none is found */
	int (*hist_var)(void *arg, const char *system, const char *name, const char *var,
			const char *match_system, const char *match_event,
			struct utrace_hist_var_info *out);
	int (*hist_synth)(void *arg, const char *synth, struct utrace_hist_synth_info *out);
	/* snapshot: take one now (its id, 1, 2, ...); print the newest of
	 * the recording's if it is after the first `from` (1, and *count
	 * the snapshots there are; 0 if none; out NULL: only count) */
	int (*take_snapshot)(void *arg, struct utrace_error *err);
	int (*print_snapshot)(void *arg, FILE *out, const char *tracer, uint32_t options,
			      unsigned from, unsigned *count, struct utrace_error *err);
	/* tracing_thresh (usecs, 0: off) of every process */
	int (*set_thresh)(void *arg, uint64_t usecs, struct utrace_error *err);
	/* the threads' buffers mapped now (buffer_total_size_kb) */
	unsigned (*nr_buffers)(void *arg);
	/* per_cpu/cpuN/stats: the recording's figures of cpu, the events at
	 * or after since_ns (the last clear), those up to read_ns consumed */
	int (*cpu_stats)(void *arg, int cpu, uint64_t since_ns, uint64_t read_ns,
			 struct utrace_live_stats *st, struct utrace_error *err);
	/* set_event_pid, set_event_notrace_pid: only the events of the
	 * threads tids recorded (n 0: every thread's), never notrace's */
	int (*event_pids)(void *arg, const int32_t *tids, unsigned n, const int32_t *notrace,
			  unsigned nn);
	/* set_ftrace_pid, set_ftrace_notrace_pid: only the function records
	 * of the threads pids (n 0: every thread's), never notrace's */
	int (*ftrace_pids)(void *arg, const int32_t *pids, unsigned n, const int32_t *notrace,
			   unsigned nn);
	/* trace_stat/functionN: the function profiler's table of CPU cpu,
	 * the calls that entered at or after from_ns and returned at or
	 * before to_ns (0: now), functions averaging under thresh_ns left out
	 * (lib/report/fprofile.h) */
	int (*print_profile)(void *arg, FILE *out, int cpu, uint64_t from_ns, uint64_t to_ns,
			     uint64_t thresh_ns, struct utrace_error *err);
	/* one of those lists as the recording has it now (forks add to
	 * them), into tids (room for UTRACE_LIVE_PIDS_MAX); how many */
	unsigned (*pids_get)(void *arg, enum utrace_live_pids which, int32_t *tids);
	/* event-fork, function-fork (UTRACE_LIVE_FOLLOW_*): a process forked
	 * by a thread of the lists joins them */
	void (*follow_fork)(void *arg, unsigned follow);
	/* trace_clock: the clocks trace can print its time stamps in, the
	 * kernel's names and order, space separated, the first the one it
	 * starts with; one of them applied to an options word (<0: unknown) */
	const char *clock_names;
	int (*set_clock)(void *arg, const char *name, uint32_t *options);
	/* trace_marker: text into the trace as a print record of the
	 * writer, the thread pid (the kernel's current: FUSE's caller); the
	 * bytes of text taken, or -errno */
	int (*marker)(void *arg, int32_t pid, const char *text, size_t len,
		      struct utrace_error *err);
	/* utrace.dat: what the recording holds now, as a complete utrace.dat
	 * (utrace extract) */
	int (*extract)(void *arg, FILE *out, struct utrace_error *err);
	/* every traceable function of the traced processes */
	void (*functions)(void *arg, utrace_live_func_cb cb, void *cbarg);
	/* every function symbol of the traced processes' objects, each
	 * object once, at the run-time address of the first process that
	 * has it (utrace.kallsyms, the address points of kprobe_events) */
	void (*symbols)(void *arg, utrace_live_sym_cb cb, void *cbarg);
	/* dynamic_events, kprobe_events, uprobe_events, synthetic_events
	 * (live_dynev.c): a probe definition (the in-process syntax, or a
	 * PATH:OFFSET point; file: which file it was written to, for its
	 * default group and the points it takes) or a synthetic event's
	 * ("NAME TYPE FIELD; ...") added to the recording, its event off; 0
	 * with *line what dynamic_events lists for it (malloc'ed) and *fmt
	 * its format (the recording's, valid until utrace_live_stop), or <0
	 * with err (err->column: the column of the error, 1-based, 0: none) */
	int (*probe_add)(void *arg, const char *def, enum utrace_live_probe file, char **line,
			 const struct utrace_event_format **fmt, struct utrace_error *err);
	int (*synth_add)(void *arg, const char *def, char **line,
			 const struct utrace_event_format **fmt, struct utrace_error *err);
	/* removes the event added so (-ENOENT); of an event of several
	 * points (probe_add of another point under its name: the kernel's
	 * multiprobe), only the point it listed as line */
	int (*dynev_remove)(void *arg, const char *sys, const char *name, const char *line,
			    struct utrace_error *err);
	/* its records on (1), off (0) or only asked (-1): whether they are
	 * on, or -errno */
	int (*dynev_enable)(void *arg, const char *sys, const char *name, int on);
	/* the probes of the command line, for dynamic_events (at start) */
	void (*dynev_initial)(void *arg,
			      void (*cb)(void *cbarg, const char *line,
					 const struct utrace_event_format *fmt),
			      void *cbarg);
	/* instances/NAME (mkdir): the ops of a new instance, its own event
	 * set, tracer, tracing_on and trace over the same processes (*ops
	 * filled, ops->arg its own); instance_free (rmdir) gets that arg.
	 * NULL: there is no instances/ */
	int (*instance_new)(void *arg, const char *name, struct utrace_live_ops *ops,
			    struct utrace_error *err);
	void (*instance_free)(void *arg, void *inst);
	/* per-thread buffer size in KiB */
	uint32_t buffer_kb;
	/* buffer_size_kb: the buffers threads make from now on hold kb KiB
	 * (0: only asked); the size a buffer made now gets (KiB), or -errno */
	long (*buffer_kb_set)(void *arg, uint64_t kb);
	/* buffer_subbuf_size_kb: the buffers hold sub-buffers of size bytes
	 * from now on (a power of two, 4 KiB to 512 KiB; 0: only asked),
	 * those made too once their threads write again; the size asked
	 * now (bytes), or -errno.  NULL: a fixed UTRACE_SUBBUF_SIZE */
	long (*subbuf_size)(void *arg, uint32_t size);
	/* kprobe_profile: the hits of event SYSTEM:NAME (the records the
	 * recording holds) and the misses */
	int (*event_hits)(void *arg, const char *system, const char *name, uint64_t *hits,
			  uint64_t *missed, struct utrace_error *err);
	/* tracing_cpumask: no record written on the CPUs of off (bit N) */
	void (*cpu_off)(void *arg, uint64_t off);
	/* options/dump-on-crash: a crash signal of the program leaves its
	 * record and the recorder dumps the last calls (on) or not; its value
	 * at the start (record --dump-on-crash); NULL: no such option */
	void (*dump_on_crash)(void *arg, bool on);
	bool dump_on_crash_on;
	/* options/funcgraph-retval: function_graph's exits carry the return
	 * value (on) or not, in every process from their next exit; its value
	 * at the start (record -O funcgraph-retval); NULL: no such option */
	int (*graph_retval)(void *arg, bool on, struct utrace_error *err);
	bool graph_retval_on;
	/* current_tracer wakeup, wakeup_rt (live_wakeup.c): the latency of
	 * the traced tasks' wakeups measured from now on (rt: real-time
	 * tasks only; tracing_max_latency reset), or no longer (on false);
	 * NULL: the recording cannot (it has not the kernel's sched_wakeup
	 * and sched_switch) */
	int (*wakeup_start)(void *arg, bool on, bool rt, struct utrace_error *err);
	/* `echo > trace`: the trace kept is dropped (the kernel's max buffer
	 * cleared) */
	void (*wakeup_clear)(void *arg);
	/* tracing_max_latency (ns): set to *max_ns now (set), or read */
	int (*wakeup_max)(void *arg, bool set, uint64_t *max_ns, struct utrace_error *err);
	/* the stack tracer (live_stack.c): on or off in every process, with
	 * stack_trace_filter's functions (filter NULL: every function; valid
	 * until utrace_live_stop); stack_max_size read (set false) or set;
	 * the deepest stack, innermost first, each frame's depth and location
	 * (the kernel's %pS) to cb: how many, or -errno.  NULL: no stack
	 * tracer files */
	int (*stack_set)(void *arg, bool on, const struct utrace_func_filter *filter,
			 struct utrace_error *err);
	uint64_t (*stack_max)(void *arg, bool set, uint64_t size);
	int (*stack_trace)(void *arg, void (*cb)(void *cbarg, uint32_t depth, const char *loc),
			   void *cbarg);
	/* the in-process probes (live_kprobes.c, the kernel's debugfs
	 * kprobes/list and sysctl debug.kprobes-optimization): each one as
	 * the processes' text has it now, to cb (0 or -errno); the switch
	 * read (set < 0) or set to 0 or 1, the probes following it when this
	 * returns (its value or -errno, err set).  NULL: no such files */
	int (*kprobes_list)(void *arg, void (*cb)(void *cbarg, const struct utrace_live_kprobe *k),
			    void *cbarg);
	int (*kprobes_opt)(void *arg, int set, struct utrace_error *err);
	/* the tracer and filter the recording starts with (the command line;
	 * filter may be NULL) */
	enum utrace_tracer tracer;
	const struct utrace_func_filter *filter;
	uint32_t max_depth;
	uint64_t thresh_us; /* --thresh */
};

/* Mounts the filesystem at dir (an existing directory) and serves it from
 * a thread of its own until utrace_live_stop. */
int utrace_live_start(const char *dir, const struct utrace_live_ops *ops, struct utrace_live **out,
		      struct utrace_error *err);
/* When the recording ends (every record in the file): if trace_pipe was
 * opened, waits (timeout_ms at most) until its readers have taken every
 * record; 0, or -ETIMEDOUT (a reader that went away). */
int utrace_live_drain(struct utrace_live *l, int timeout_ms);
/* The format of event SYSTEM:NAME as events/ shows it, NULL if there is
 * none; for the ops, which are called with the tracefs's lock held. */
const struct utrace_event_format *utrace_live_format(struct utrace_live *l, const char *system,
						     const char *name);
/* FIELD.function's function (a utrace_filter_func_fn, arg the live
 * tracefs): the one of utrace.kallsyms named name, or holding addr; 0
 * with [*start, *end), or -ENOENT. */
int utrace_live_func_range(void *arg, const char *name, uint64_t addr, uint64_t *start,
			   uint64_t *end);
/* Unmounts (readers blocked in trace_pipe get end of file) and frees. */
void utrace_live_stop(struct utrace_live *l);

/* utrace reset: unmounts every utrace tracefs left mounted by a recorder
 * that was killed (live_reset.c), telling removed of each; how many, or
 * -errno. */
int utrace_live_reset(void (*removed)(void *arg, const char *dir), void *arg,
		      struct utrace_error *err);

#endif
