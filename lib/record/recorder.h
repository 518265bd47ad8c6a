/* SPDX-License-Identifier: MIT */
/*
 * lib/record - the recorder: the traced processes'
 * connections, their ring buffers drained into utrace.dat, and the kernel
 * pages written alongside (this file and recorder_internal.h).  May use:
 * lib/base, lib/elf, lib/attach, lib/events, lib/tracefile, lib/probes,
 * lib/kernel, lib/hist.
 *
 * recorder.h - the consumer side of a recording session: the socket the
 * traced processes connect to, the choice of call sites to enable, the
 * draining of the per-thread buffers into utrace.dat.
 */
#ifndef UTRACE_LIB_RECORDER_H
#define UTRACE_LIB_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/proto.h"
#include "lib/base/error.h"

struct utrace_dat_ktask;
struct utrace_event_select;
struct utrace_func_filter;
struct utrace_recorder;
struct utrace_synth;
struct utrace_inproc_probe;
struct utrace_uprobe;

/* A bt program for one in-process probe, and the memfd of its tables. */
struct utrace_rec_bt {
	const char *group, *event;
	const void *prog;
	uint32_t prog_len;
	int fd;
	uint64_t tables_size;
	uint32_t flags; /* UTRACE_BT_MSG_* (common/proto.h) */
};

struct utrace_recorder_opts {
	const char *output; /* utrace.dat */
	enum utrace_tracer tracer;
	uint32_t buffer_kb; /* per thread */
	bool overwrite;	    /* flight recorder */
	bool drop;	    /* a full buffer drops records (else the producer waits) */
	uint32_t max_depth; /* 0 = unlimited */
	uint64_t thresh_ns; /* tracing_thresh, 0 = off */
	int32_t tids[16];   /* 0-terminated; empty = all threads */
	const struct utrace_func_filter *filter;
	struct utrace_event_select *events; /* -e / -f; NULL for none */
	/* The kernel events' -e with their -R (and -v): hist triggers the
	 * recorder runs on the kernel's records as it reads their pages.
	 * Here and in events, every -R is parsed already (the spec's trigs,
	 * lib/hist's utrace_trigger_of): the recorder reads, never parses. */
	const struct utrace_event_spec *kspecs;
	unsigned nkspecs;
	/* Synthetic events (--synthetic), their formats added to events;
	 * synths[i] is what an EMIT of id i fires. */
	struct utrace_synth *const *synths;
	unsigned nr_synths;
	/* In-process probes (--probe without PATH:), their formats added to
	 * events; inproc_probes[i] is the runtime's probe key i. */
	struct utrace_inproc_probe *const *inproc_probes;
	unsigned nr_inproc_probes;
	/* The kernel uprobes the recording made (--probe PATH:..., -e usdt:):
	 * no function entry patched (recorder_fpatch.c) covers one of them,
	 * whose int3 the kernel puts into every process mapping its file */
	struct utrace_uprobe *const *kuprobes;
	unsigned nr_kuprobes;
	/* `utrace bt` (lib/bt/bt_inproc.c): the probes whose hits run a bt
	 * program into tables (common/proto.h UTRACE_MSG_BT) instead of
	 * writing records, by the probe's group and event */
	const struct utrace_rec_bt *bt;
	unsigned nr_bt;
	const char *command;		    /* for the file's META */
	/* funcgraph-args: the argument registers at the entry of every
	 * function that has parameters (by its DWARF); funcgraph-retval:
	 * rax at every return */
	bool funcgraph_args, funcgraph_retval;
	/* funcgraph-retaddr: every ENTRY with the return address it hooks
	 * (set when the recording samples call chains) */
	bool funcgraph_retaddr;
	bool live; /* the processes open a live channel (utrace_recorder_live_set) */
	/* --libcall: the calls the program (and what it dlopens) makes
	 * through its PLT are traced, named after the imports */
	bool libcall;
	/* --dump-on-crash: the processes record the crash signals they take
	 * (runtime/crash.c), for the dump and the report's "signal:" line */
	bool dump_on_crash;
	/* Called for each notice a traced process sends (from poll). */
	void (*notice)(void *arg, int pid, const char *text);
	void *notice_arg;
};

struct utrace_recorder_stats {
	uint64_t records; /* written by the traced threads and saved */
	uint64_t lost;	  /* dropped because a buffer was full */
	uint64_t overrun; /* records written but overwritten (overwrite mode) or torn */
	uint64_t waits;	  /* times a thread's buffer was full and it waited (no-loss) */
	uint64_t wait_ns; /* the time the threads spent waiting, summed */
	uint64_t pages;
	uint32_t buffers; /* threads */
	uint32_t images;  /* processes (fork and exec each make one) */
	uint64_t file_bytes;
	uint64_t sites; /* call sites of every object of every process */
	/* processes that closed their connection and ran on */
	uint32_t disconnected;
	/* objects without call sites: entry plans made (one per file, by its
	 * build id), and processes that loaded one planned already */
	uint32_t fpatch_plans, fpatch_reused;
};

/* What the recording has saved so far, for a progress line: the records
 * of the sub-buffers saved, the records lost, the file's bytes. */
struct utrace_recorder_progress {
	uint64_t records, lost, bytes;
	uint32_t threads;
};
void utrace_recorder_progress(const struct utrace_recorder *r, struct utrace_recorder_progress *p);

/* The functions function filter expression i (utrace_func_filter_expr's
 * numbering) selected, over every object of every process so far. */
uint32_t utrace_recorder_filter_hits(const struct utrace_recorder *r, size_t i);

int utrace_recorder_new(const struct utrace_recorder_opts *opts, struct utrace_recorder **out,
			struct utrace_error *err);
/* The socket path to put in UTRACE_SOCK for the traced command. */
const char *utrace_recorder_sock_path(const struct utrace_recorder *r);
/* Accept connections, answer messages and save full sub-buffers, waiting
 * at most timeout_ms for something to happen. */
int utrace_recorder_poll(struct utrace_recorder *r, int timeout_ms, struct utrace_error *err);
/* Every kernel event's format has been written (utrace_recorder_write_kformat):
 * the kernel events' triggers are compiled (a bad one is an error here,
 * before the command runs). */
int utrace_recorder_kready(struct utrace_recorder *r, struct utrace_error *err);
/* One read of every CPU's kernel pages is done: the records that no CPU
 * can still precede run their triggers (lib/record/recorder_kmerge.c). */
int utrace_recorder_kround(struct utrace_recorder *r, struct utrace_error *err);
/* A read of the live tracefs begins (before its reads of the CPUs) and
 * ends: the rounds in between run every record stamped before it began
 * that the CPUs handed over, not only those a margin older (a read
 * includes what was committed before it). */
void utrace_recorder_kread_begin(struct utrace_recorder *r);
void utrace_recorder_kread_end(struct utrace_recorder *r);
/* The negative errno of the file's first failed write (a full disk:
 * every later write fails the same), 0 if none; before finish. */
int utrace_recorder_write_failed(const struct utrace_recorder *r);
/* True once at least one process connected and none is connected now. */
bool utrace_recorder_idle(const struct utrace_recorder *r);
/* Attached processes (utrace record -P, lib/record/recorder_attach.c):
 * tracing off and every process asked to put itself back, polling until
 * n of them said they did or timeout_ms passed; how many did, or <0
 * (err). */
int utrace_recorder_detach(struct utrace_recorder *r, uint32_t n, int timeout_ms,
			   struct utrace_error *err);
/* The processes still traced (connected, or closed their connection and
 * still running): how many; the first max pids in pids.  A pid of 0 is a
 * connection that has not said who it is yet. */
uint32_t utrace_recorder_traced_pids(const struct utrace_recorder *r, int *pids, uint32_t max);
/* The processes that map the recording's control page, found in /proc
 * (every traced process, and a forked one before it has connected): how
 * many; the first max pids in pids. */
uint32_t utrace_recorder_mapping_pids(struct utrace_recorder *r, int *pids, uint32_t max);
/* tracing_on = 0 in every traced process (they keep running). */
void utrace_recorder_stop(struct utrace_recorder *r);
/* No new process is taken: the socket is closed and removed (a process
 * that tries runs untraced).  The connections made stay. */
void utrace_recorder_refuse(struct utrace_recorder *r);
/* Save everything that is left, the symbol tables and the statistics,
 * and close the file. */
int utrace_recorder_finish(struct utrace_recorder *r, struct utrace_recorder_stats *stats,
			   struct utrace_error *err);
/* Removes the socket; safe after a failed finish. */
void utrace_recorder_free(struct utrace_recorder *r);

/*
 * Records of the kernel side of the recording (lib/record/recorder_kernel.c,
 * pages from lib/kernel/kernel_trace.c), written into the file as they come;
 * only before finish.
 */
struct iovec;
/* OWN: thread tid's kernel events from tsc0 to tsc1 (TSC counts, the
 * clock of every record) were utrace's own work, kind an enum
 * utrace_own_kind; utrace_recorder_tsc() reads that clock. */
int utrace_recorder_write_own(struct utrace_recorder *r, int32_t tid, uint32_t kind, uint64_t tsc0,
			      uint64_t tsc1, struct utrace_error *err);
uint64_t utrace_recorder_tsc(void);
int utrace_recorder_write_record(struct utrace_recorder *r, uint32_t type, const struct iovec *iov,
				 int n, struct utrace_error *err);
int utrace_recorder_write_kheader(struct utrace_recorder *r, const char *clock,
				  uint32_t subbuf_size, const char *header_page,
				  const char *header_event, struct utrace_error *err);
int utrace_recorder_write_kformat(struct utrace_recorder *r, const char *system, const char *name,
				  int id, const char *text, struct utrace_error *err);
int utrace_recorder_write_kpage(struct utrace_recorder *r, uint32_t cpu, const void *page,
				size_t len, struct utrace_error *err);
int utrace_recorder_write_ktasks(struct utrace_recorder *r, const struct utrace_dat_ktask *tasks,
				 size_t n, struct utrace_error *err);
/* The kernel's frames of the stacks the recording holds (saved, or keys
 * of its hists), sorted, unique: to be named when recording ends. */
size_t utrace_recorder_kstack_addrs(struct utrace_recorder *r, const uint64_t **addrs);
/* The kernel's symbols (utrace_ktrace_kallsyms' text), for its stacks. */
int utrace_recorder_write_ksyms(struct utrace_recorder *r, const char *text, size_t len,
				struct utrace_error *err);

/*
 * Live changes (utrace record --tracefs, lib/record/recorder_live.c): the
 * tracer, the function filter and max_graph_depth of every traced process, changed while
 * it runs (sites patched or unpatched at once) and of the processes that
 * start later.  filter (NULL: every function) must live as long as the
 * recorder.  Each process is waited for; <0 if one failed.  Not
 * concurrently with utrace_recorder_poll: the caller serialises.
 */
int utrace_recorder_live_set(struct utrace_recorder *r, enum utrace_tracer tracer,
			     const struct utrace_func_filter *filter, uint32_t max_depth,
			     struct utrace_error *err);
/*
 * The stack tracer (recorder_stack.c, runtime/stack_tracer.c): on or off in
 * every process, filter (stack_trace_filter; NULL: every function, must
 * live as long as the recorder) choosing the functions whose entries check
 * the stack, as a live change (the caller serialises); whether it is on;
 * stack_max_size read (set false) or set to size; the deepest stack kept,
 * innermost first: each frame's depth (bytes from its thread's stack top)
 * and location as the kernel's %pS prints it, to cb; how many, or -errno.
 */
int utrace_recorder_live_stack(struct utrace_recorder *r, bool on,
			       const struct utrace_func_filter *filter, struct utrace_error *err);
bool utrace_recorder_stack_enabled(const struct utrace_recorder *r);
uint64_t utrace_recorder_stack_max(struct utrace_recorder *r, bool set, uint64_t size);
int utrace_recorder_stack(struct utrace_recorder *r,
			  void (*cb)(void *arg, uint32_t depth, const char *loc), void *arg);
/*
 * The in-process probes (recorder_kprobes.c, the kernel's debugfs
 * kprobes/list and sysctl debug.kprobes-optimization): each process's
 * probes as its text has them now, one line each to cb (the processes'
 * order, then the addresses'), or -errno; the optimization switch read
 * (set < 0) or set to 0 or 1, every process's probes following it before
 * this returns, as a live change (the caller serialises): its value, or
 * -errno with err set.
 */
struct utrace_kprobe_line {
	int pid;
	uint64_t addr;
	char type;	    /* 'k' a probe, 'r' a return probe (the kernel's kretprobe) */
	const char *sym;    /* the function symbol holding addr, NULL if none */
	uint64_t off;	    /* addr's offset in it */
	const char *module; /* a library's base name, NULL for the program */
	bool disabled;	    /* its event records nothing now */
	bool optimized;	    /* its jmp is written, or queued to be */
	bool ftrace;	    /* its function's call site calls it */
};
int utrace_recorder_kprobes_list(struct utrace_recorder *r,
				 void (*cb)(void *arg, const struct utrace_kprobe_line *l), void *arg);
int utrace_recorder_kprobes_optimization(struct utrace_recorder *r, int set,
					 struct utrace_error *err);
/* Every traceable function of the traced processes, each object once. */
typedef void (*utrace_recorder_func_cb)(void *arg, const char *name, const char *raw,
					const char *path, bool main_object);
void utrace_recorder_live_functions(struct utrace_recorder *r, utrace_recorder_func_cb cb,
				    void *arg);
/* Every function symbol of the traced processes' objects, each object
 * once (the first process that has it), at its run-time address (that
 * process's), in address order per object: /proc/kallsyms' view of them
 * (type: nm's letter, raw: the symbol as in the table). */
typedef void (*utrace_recorder_sym_cb)(void *arg, uint64_t addr, uint64_t size, char type,
				       const char *raw, const char *path, bool main_object);
void utrace_recorder_live_symbols(struct utrace_recorder *r, utrace_recorder_sym_cb cb, void *arg);
/* trace_marker: text written by thread pid.  With kernel events (the
 * merge runs), a print record of pid on the kernel's timeline, its
 * triggers run there at once (recorder_kmarker.c); else
 * a PRINT record of the command's first process (its live channel
 * thread), as utrace_printf writes it.  Only reader's triggers of
 * ftrace:print run on it (0: the top level's; an instance's reader, or
 * UTRACE_READERS: no trigger's).  The bytes of text taken (a record holds
 * so many), or <0 with err. */
int utrace_recorder_live_marker(struct utrace_recorder *r, unsigned reader, int32_t pid,
				const char *text, size_t len, struct utrace_error *err);
/* The object files of the traced processes (a path may come again). */
void utrace_recorder_live_objects(struct utrace_recorder *r, void (*cb)(void *arg, const char *path),
				  void *arg);
struct utrace_event_format;
/* The kernel events the tracefs shows (recorder_livekev.c): the kernel
 * -e's of a live recording, which stand for a traced object's event of
 * the same name; the i-th one's format, NULL past the end.  Their
 * switches, filters, triggers and hists are the calls below, by name. */
const struct utrace_event_format *utrace_recorder_live_kevent(const struct utrace_recorder *r,
							      size_t i);
/* The live tracefs's wakeup tracers (wakeup_lat.h), run on the kernel
 * records the merge reads (recorder_wakeup.c): mode 0 none, 1 wakeup, 2
 * wakeup_rt (-ENOENT: the recording has no kernel merge, or not the
 * kernel's sched_wakeup and sched_switch); tracing_max_latency (ns) set
 * or read; the trace kept, as the kernel's trace file shows it.  own
 * tells the recording's tasks, the only ones measured (wakeup_lat.h). */
int utrace_recorder_wakeup(struct utrace_recorder *r, int mode, bool (*own)(void *arg, int pid),
			   void *own_arg);
uint64_t utrace_recorder_wakeup_max(struct utrace_recorder *r, bool set, uint64_t max_ns);
void utrace_recorder_wakeup_clear(struct utrace_recorder *r);
void utrace_recorder_wakeup_print(struct utrace_recorder *r, FILE *out);
/* The kernel id of such an event SYSTEM:NAME, -ENOENT if it is none;
 * its format, NULL if none (it lives as long as the recorder). */
int utrace_recorder_live_kid(const struct utrace_recorder *r, const char *system,
			     const char *name);
const struct utrace_event_format *utrace_recorder_live_kformat(const struct utrace_recorder *r,
							       const char *system,
							       const char *name);
/* Event SYSTEM:NAME of every process switched on (set 1) or off (0) at
 * once, or only read (-1): 1 or 0, or -errno. */
int utrace_recorder_live_event(struct utrace_recorder *r, const char *system, const char *name,
			       int set);
/* Event SYSTEM:NAME's filter (the kernel's syntax; NULL or "": none) in
 * every process at once and in those that come later. */
int utrace_recorder_live_filter(struct utrace_recorder *r, const char *system, const char *name,
				const char *filter, struct utrace_error *err);
/* Event SYSTEM:NAME's triggers set (the tracefs's trigger file: the
 * whole list, in the kernel's syntax, trigs[i] texts[i] as it was parsed
 * when written, which the recorder holds too; one kept keeps its table
 * and count), in every process at once and in those that come later.
 * reader: whose list it is, 0 the top level's, 1 .. UTRACE_READERS - 1
 * an instance's (traceon, traceoff, stacktrace, enable_event and
 * disable_event, enable_hist and disable_hist, run on its own state:
 * utrace_recorder_reader_*; hist, its own tables; snapshot, its own
 * snapshots: utrace_recorder_snapshot_reader); the other readers'
 * triggers of the event stay. */
struct utrace_trigger;
int utrace_recorder_live_triggers(struct utrace_recorder *r, unsigned reader, const char *system,
				  const char *name, const char *const *texts,
				  struct utrace_trigger *const *trigs, unsigned n,
				  struct utrace_error *err);
/* The tables of reader's hist triggers of the event (the tracefs's) as
 * they are now, in order, each to cb with its trigger's text. */
struct utrace_hist_table;
int utrace_recorder_live_hists(struct utrace_recorder *r, unsigned reader, const char *system,
			       const char *name,
			       int (*cb)(void *arg, const char *text,
					 const struct utrace_hist_table *t),
			       void *arg, struct utrace_error *err);
/* The tracefs's trigger of SYSTEM:NAME written as text, as it is now:
 * *count its :N left (-1: unlimited), *paused whether its hist table is
 * paused, after what was done to that table: 0 nothing, 1 :pause, 2
 * :cont, 3 :clear (lib/tracefs's enum utrace_live_trig_ctl); -ENOENT if
 * there is no such trigger (or hist table yet).  Of reader's list. */
int utrace_recorder_live_trigger_ctl(struct utrace_recorder *r, unsigned reader,
				     const char *system, const char *name, const char *text,
				     int what, long *count, bool *paused);
/* For the check of a hist trigger of SYSTEM:NAME written to the tracefs
 * by reader: its $var (of the top level, the -R's, or another trigger's of
 * the tracefs; of an instance, another of its triggers': its table made
 * now if it is not) and its action's synthetic event, as the recording's
 * compile finds them (lib/hist/hist_compile.h's env: 0 or a
 * UTRACE_HIST_ERR_*). */
struct utrace_hist_var_info;
struct utrace_hist_synth_info;
int utrace_recorder_live_hist_var(struct utrace_recorder *r, unsigned reader, const char *system,
				  const char *name, const char *var, const char *msys,
				  const char *mev, struct utrace_hist_var_info *out);
int utrace_recorder_live_synth(struct utrace_recorder *r, const char *synth,
			       struct utrace_hist_synth_info *out);
/* Whether SYSTEM:NAME has a trigger (the tracefs's or -R's) or one's
 * enable_/disable_event or _hist names it: the kernel's soft mode of the
 * event, which runs its triggers whether it is on or off.  As reader
 * sees it: its own triggers (the command line's are the top level's). */
bool utrace_recorder_live_soft(struct utrace_recorder *r, unsigned reader, const char *system,
			       const char *name);
/* An instance's own state on the control page, as its triggers read it
 * (reader 1 .. UTRACE_READERS - 1): its tracing_on, its event id on. */
void utrace_recorder_reader_on(struct utrace_recorder *r, unsigned reader, bool on);
void utrace_recorder_reader_event(struct utrace_recorder *r, unsigned reader, int id, bool on);
/* One firing of an instance's trigger that changed its state: whose,
 * what (enum utrace_trig_cmd), its target event's id, whether the
 * processes had it on before, when (CLOCK_MONOTONIC ns). */
struct utrace_reader_fired {
	unsigned reader;
	unsigned cmd;
	int target;
	bool was_on;
	uint64_t ns;
};
/* The firings after the first *done (the caller's count, 0 at first),
 * in order, at most max into out; their number (*done moves past
 * them).  Past UTRACE_READER_LOG behind, the oldest are lost. */
unsigned utrace_recorder_reader_fired(struct utrace_recorder *r, uint64_t *done,
				      struct utrace_reader_fired *out, unsigned max);
/* Reader's triggers off every event (its instance is removed); its
 * state cleared. */
void utrace_recorder_reader_drop(struct utrace_recorder *r, unsigned reader);
/* tracefs `echo 1 > snapshot`: every thread's buffer as it is now saved
 * as a snapshot (SNAPSHOT record, event UTRACE_SNAP_TRACEFS); its id. */
int utrace_recorder_snapshot_now(struct utrace_recorder *r, struct utrace_error *err);
/* Whose snapshot id (1, 2, ...) is: the reader of the snapshot trigger
 * that asked for it (1 .. UTRACE_READERS - 1: an instance's,
 * UTRACE_READERS: an instance's removed since), 0 for any other (the top
 * level's triggers, the kernel's, `echo 1 > snapshot`); -ENOENT: none
 * taken yet.  Known before its SNAPSHOT record is written. */
int utrace_recorder_snapshot_reader(const struct utrace_recorder *r, unsigned id);
/* tracing_thresh (function_graph: only calls longer than usecs, 0 for
 * every call) of every process, as utrace_recorder_live_set. */
int utrace_recorder_live_thresh(struct utrace_recorder *r, uint64_t usecs, struct utrace_error *err);
/* The threads' buffers mapped now (those of threads that ended are not). */
unsigned utrace_recorder_live_buffers(struct utrace_recorder *r);
/* buffer_size_kb (recorder_livebuf.c): the buffers threads make from
 * now on hold kb KiB (rounded up to whole sub-buffers), those made keep
 * theirs; -EINVAL for 0, -ENOMEM past 4 GiB.  _now: the size a buffer
 * made now gets, in KiB. */
int utrace_recorder_live_buffer_kb(struct utrace_recorder *r, uint64_t kb);
uint32_t utrace_recorder_live_buffer_kb_now(struct utrace_recorder *r);
/* buffer_subbuf_size_kb: the buffers hold sub-buffers of size bytes from
 * now on (utrace_subbuf_size_ok, else -EINVAL): those made from now on,
 * and those made, each replaced at its thread's next sub-buffer
 * (common/proto.h subbuf_size).  _now: the size asked now, in bytes. */
int utrace_recorder_live_subbuf_size(struct utrace_recorder *r, uint32_t size);
uint32_t utrace_recorder_live_subbuf_size_now(struct utrace_recorder *r);
/* tracing_cpumask: no record is written on the CPUs of off (bit N: CPU
 * N), in every process at once. */
void utrace_recorder_live_cpu_off(struct utrace_recorder *r, uint64_t off);
/* options/funcgraph-retval: function_graph's exits carry rax (on) or
 * not, in every process from its next exit (the tracer, filter and depth
 * sent again with it). */
int utrace_recorder_live_graph_retval(struct utrace_recorder *r, bool on, struct utrace_error *err);
/* options/dump-on-crash: a crash signal leaves its record (on) or not,
 * in every process at once (runtime/crash.c). */
void utrace_recorder_live_dump_on_crash(struct utrace_recorder *r, bool on);
/*
 * The thread-id lists of the live tracefs (recorder_livepid.c), each
 * reader's own: reader 0 the top level's, 1 .. UTRACE_READERS - 1 an
 * instance's.  The processes run one pair of each kind (the control
 * page's), the union of the readers that count: a thread's events are
 * written while one of them wants them (a reader without lists wants
 * every thread's), and each reader leaves out the others' at read time
 * (lib/session/session_inst_pids.c).  With the top level alone, its
 * lists are the processes'.
 *
 * set_event_pid, set_event_notrace_pid of reader: only the threads tids
 * (n 0: every thread), never those of notrace; -ENOSPC past
 * UTRACE_EV_PIDS.  set_ftrace_pid, set_ftrace_notrace_pid alike, for the
 * function records (UTRACE_FT_PIDS).
 */
#define UTRACE_RECORDER_PIDS_MAX (UTRACE_EV_PIDS > UTRACE_FT_PIDS ? UTRACE_EV_PIDS : UTRACE_FT_PIDS)
int utrace_recorder_live_event_pids(struct utrace_recorder *r, unsigned reader,
				    const int32_t *tids, unsigned n, const int32_t *notrace,
				    unsigned nn);
int utrace_recorder_live_ftrace_pids(struct utrace_recorder *r, unsigned reader,
				     const int32_t *pids, unsigned n, const int32_t *notrace,
				     unsigned nn);
/* One of reader's lists as it is now (forks may have added to it), into
 * tids (room for UTRACE_RECORDER_PIDS_MAX); how many. */
enum utrace_recorder_pids {
	UTRACE_RECORDER_PIDS_EVENT,
	UTRACE_RECORDER_PIDS_EVENT_NOTRACE,
	UTRACE_RECORDER_PIDS_FTRACE,
	UTRACE_RECORDER_PIDS_FTRACE_NOTRACE,
};
unsigned utrace_recorder_live_pids_get(struct utrace_recorder *r, unsigned reader, int which,
				       int32_t *tids);
/* event-fork, function-fork of reader: a process forked from then on by
 * a thread of its event lists (of its function lists) joins the lists
 * its parent thread is in, and leaves them when it exits. */
enum {
	UTRACE_RECORDER_FOLLOW_EVENT = 1u << 0,
	UTRACE_RECORDER_FOLLOW_FUNCTION = 1u << 1,
};
void utrace_recorder_live_follow_fork(struct utrace_recorder *r, unsigned reader, unsigned follow);
/* The readers whose lists count (bit N: reader N; bit UTRACE_READERS: a
 * reader that has no lists of its own, which wants every thread); a
 * reader left out loses its lists and options.  From the first call on,
 * the changes forks and exits make to the lists are logged for
 * utrace_recorder_live_pid_changes. */
void utrace_recorder_live_pid_readers(struct utrace_recorder *r, unsigned mask);
struct utrace_recorder_pid_change {
	uint64_t ns; /* CLOCK_MONOTONIC: before the child's first record,
		      * after the exited one's last */
	int32_t tid;
	uint8_t reader, which; /* which: enum utrace_recorder_pids */
	bool join;	       /* joined the list, else left it */
};
/* The changes logged since the last call, oldest first, handed over in
 * *out (free it); how many. */
size_t utrace_recorder_live_pid_changes(struct utrace_recorder *r,
					struct utrace_recorder_pid_change **out);
/* The control page: tracing_on of every process (1/0), read or set. */
uint32_t utrace_recorder_tracing_on(struct utrace_recorder *r, int set);
/* Save every sub-buffer completed so far, and the committed part of those
 * being written, and flush the file, so that a reader of output sees
 * every record committed before the call (after a poll, for the messages
 * not read yet). */
int utrace_recorder_sync(struct utrace_recorder *r, struct utrace_error *err);

/* What the recording holds now (the file so far and what the threads'
 * rings hold that it does not) as a complete utrace.dat at path, the
 * recording going on unchanged (lib/record/recorder_extract.c). */
enum utrace_extract_flags {
	/* keep the clock of the recording's start, as a live read of the
	 * file itself does: a record's time is then the same in every
	 * extract (a trace_pipe's consumed time stays exact), where a new
	 * clock pair, the default, spans the recording so far */
	UTRACE_EXTRACT_START_CLOCK = 1u << 0,
};
int utrace_recorder_extract(struct utrace_recorder *r, const char *path, unsigned flags,
			    struct utrace_error *err);

/*
 * Live control of in-process probes (lib/record/recorder_inproc_probe.c), the
 * kernel's `-:[GROUP/]EVENT` written to kprobe_events while tracing:
 * turns probe GROUP/EVENT (group NULL: any) off in every process of the
 * recording, running or to come.  Its records stop at once; each process
 * puts the program's bytes back shortly after (runtime/inproc_probes.c).
 * -ENOENT if the recording has no such probe on.
 */
int utrace_recorder_inproc_probe_remove(struct utrace_recorder *r, const char *group, const char *event,
				  struct utrace_error *err);
/* The same for the one probe of key key (an event of several points,
 * the kernel's `-:EVENT POINT`); -ENOENT if it is off already. */
int utrace_recorder_inproc_probe_remove_key(struct utrace_recorder *r, int key);

/*
 * A probe added while the programs run (lib/record/recorder_live.c, the
 * live tracefs's dynamic_events): p (parsed, in-process; the recorder's
 * from now on, even on failure) with event id id and format text format (saved in the
 * file now) goes into every process and every one to come; its event is
 * off until utrace_recorder_inproc_probe_enable.  Its key, or <0 with err; a
 * process that does not take it is said as a notice.  format NULL: p is
 * another point of the event id of a probe added so (the kernel's
 * multiprobe): its format is that one's, its records on or off with it.
 */
/*
 * Whether p's point is one the recording's processes can take: each
 * loaded object that defines its symbol is asked what --probe asks at
 * registration (utrace_inproc_probe_locate, with the object's call sites).
 * 0, or -EILSEQ with err where the point is not an instruction boundary
 * or inside a patchable call site (what the kernel refuses so).
 */
int utrace_recorder_inproc_probe_check(struct utrace_recorder *r, const struct utrace_inproc_probe *p,
				 struct utrace_error *err);
int utrace_recorder_inproc_probe_add(struct utrace_recorder *r, struct utrace_inproc_probe *p, int id,
			       const char *format, struct utrace_error *err);
/* Records of the probe GROUP/EVENT added while running: on (1), off (0),
 * or only asked (-1); whether they are on, or -ENOENT (none such, or one
 * from the command line). */
int utrace_recorder_inproc_probe_enable(struct utrace_recorder *r, const char *group, const char *event,
				  int on);

/*
 * Event probes (lib/probes/eprobe.h): an event probe is an in-process
 * probe (utrace_recorder_inproc_probe_add) that lands in no object and
 * fires with its attached event system:name.  utrace_recorder_live_eprobes
 * sends that event's configuration again to every process, its event
 * probes among its triggers (after one is added or removed), and binds
 * the new ones to the event's records the kernel merge runs (a kernel
 * event's, a synthetic event's that kernel events fire:
 * recorder_keprobe.c).  utrace_recorder_live_format: the format of a user
 * event, a synthetic event's or a probe's (NULL: none).
 */
int utrace_recorder_live_eprobes(struct utrace_recorder *r, const char *system, const char *name,
				 struct utrace_error *err);
const struct utrace_event_format *utrace_recorder_live_format(struct utrace_recorder *r,
							      const char *system,
							      const char *name);

/*
 * A synthetic event defined while the programs run (synthetic_events): s
 * (the recorder's from now on, even on failure) with event id id and
 * format text format (saved now), fired by the onmatch() actions of the
 * triggers compiled from now on; off until utrace_recorder_synth_enable
 * (on 1, 0, -1 as utrace_recorder_inproc_probe_enable).  Its index, or <0.
 * Removing it turns it off for good and frees its name.
 */
int utrace_recorder_synth_add(struct utrace_recorder *r, struct utrace_synth *s, int id,
			      const char *format, struct utrace_error *err);
int utrace_recorder_synth_enable(struct utrace_recorder *r, const char *name, int id, int on);
int utrace_recorder_synth_remove(struct utrace_recorder *r, const char *name, int id);

/* Per-buffer statistics after finish, for the summary: returns false past
 * the last buffer. */
bool utrace_recorder_buffer_stats(const struct utrace_recorder *r, uint32_t i, int *pid, int *tid,
				  char comm[16], uint64_t *records, uint64_t *lost);

#endif
