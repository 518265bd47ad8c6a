/* SPDX-License-Identifier: MIT */
/*
 * proto.h - messages between libutrace.so (in the traced process) and the
 * recorder, over a SOCK_SEQPACKET unix socket whose path is in the
 * environment variable UTRACE_SOCK.  One connection per process image: a
 * process connects when the runtime starts, again in a child after fork(),
 * and again after exec().  End of file on a connection means that image is
 * gone (exit, exec or kill): the recorder then drains its buffers.
 *
 *   runtime                              recorder
 *   HELLO            ------------------>
 *                    <------------------ CONFIG (+ control memfd)
 *   OBJECT, SITES... ------------------>           (per loaded object)
 *                    <------------------ SELECT    (per object with sites)
 *   EVENTS           ------------------>           (per object with tracepoints)
 *                    <------------------ ENABLE... (per enabled event, then a last one)
 *   BUFFER (+ memfd) ------------------>           (per thread, on first record)
 *
 * A forked child sends HELLO with UTRACE_HELLO_FORKED and then its objects
 * with UTRACE_OBJ_INHERITED: they were patched by the parent already, so
 * the recorder answers with no SELECT.
 *
 * Every message starts with struct utrace_msg; all fields are host endian.
 */
#ifndef UTRACE_COMMON_PROTO_H
#define UTRACE_COMMON_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#define UTRACE_PROTO_VERSION 9
#define UTRACE_ENV_SOCK "UTRACE_SOCK"
#define UTRACE_MSG_MAX 65536u
#define UTRACE_SITES_PER_MSG 4096u

enum utrace_msg_type {
	UTRACE_MSG_HELLO = 1,
	UTRACE_MSG_CONFIG,
	UTRACE_MSG_OBJECT,
	UTRACE_MSG_SITES,
	UTRACE_MSG_SELECT,
	UTRACE_MSG_BUFFER,
	UTRACE_MSG_NOTICE,
	UTRACE_MSG_EVENTS,
	UTRACE_MSG_ENABLE,
	UTRACE_MSG_HIST,
	UTRACE_MSG_TRIGGER,
	UTRACE_MSG_TABLE,
	UTRACE_MSG_INPROC_PROBE_AREA,
	UTRACE_MSG_INPROC_PROBE,
	UTRACE_MSG_LIVE,   /* runtime: the live channel's socket (+ fd) */
	UTRACE_MSG_TRACER, /* recorder, on the live channel: switch tracer */
	UTRACE_MSG_LIVE_DONE, /* both ways on the live channel: end of a change / its answer */
	UTRACE_MSG_MARKER, /* recorder, on the live channel: text for the trace (trace_marker) */
	UTRACE_MSG_FPATCH_ASK,
	UTRACE_MSG_FPATCH_PLAN,
	UTRACE_MSG_FPATCH_AREA,
	UTRACE_MSG_FPATCH,
	UTRACE_MSG_INPROC_PROBE_SLOT, /* both ways on the live channel: a probe slot asked, given */
	UTRACE_MSG_QUIESCE, /* attached process: stop the other threads (answered) */
	UTRACE_MSG_RESUME,  /* attached process: let them go (no answer) */
	UTRACE_MSG_BT,	    /* recorder: a bt program for an in-process probe (+ fd) */
	UTRACE_MSG_OWN,	    /* runtime: a window of its own work (struct utrace_msg_own) */
	UTRACE_MSG_INPROC_PROBE_LIST, /* both ways on the live channel: the probes asked, listed */
	UTRACE_MSG_INPROC_PROBE_OPT,  /* recorder, on the live channel: apply ipp_noopt (answered) */
};

struct utrace_msg {
	uint32_t size; /* whole message, header included */
	uint32_t type; /* enum utrace_msg_type */
};

/* MARKER: a trace_marker write, its text after this; reader: whose
 * trace_marker it was written to (0 the top level's, else an instance's,
 * see utrace_control.reader_on): only that reader's triggers of
 * ftrace:print run on it, as the kernel's of the trace_array written. */
struct utrace_msg_marker {
	struct utrace_msg hdr;
	uint32_t reader;
	uint32_t reserved;
};

enum utrace_hello_flags {
	UTRACE_HELLO_FORKED = 1u << 0,
};

struct utrace_msg_hello {
	struct utrace_msg hdr;
	uint32_t version;
	uint32_t flags;
	int32_t pid;
	int32_t ppid;
	int32_t ptid; /* FORKED: the thread that forked (event-fork, function-fork) */
	uint32_t hello_reserved;
	char exe[]; /* NUL-terminated */
};

/* OWN: the runtime's own work on thread tid between two TSC counts (its
 * start-up, a fork child's), so that the kernel events it caused there
 * are told from the program's (docs/utrace-dat.md, OWN). */
enum utrace_own_kind {
	UTRACE_OWN_SPAWN = 1,  /* the recorder's child before its exec */
	UTRACE_OWN_START = 2,  /* libutrace.so's constructor */
	UTRACE_OWN_FORK = 3,   /* a fork child joining the recording */
	UTRACE_OWN_BUFFER = 4, /* a thread's ring buffer made (utrace_rb_meta.own) */
	UTRACE_OWN_EXIT = 5,   /* a thread's exit work (utrace_rb_meta.own) */
	UTRACE_OWN_THREAD = 6, /* a thread of the runtime's own: its whole life (0, ~0) */
};

struct utrace_msg_own {
	struct utrace_msg hdr;
	int32_t tid;
	uint32_t kind; /* enum utrace_own_kind */
	uint64_t tsc0, tsc1;
};

enum utrace_tracer {
	UTRACE_TRACER_NOP = 0,
	UTRACE_TRACER_FUNCTION = 1,
	UTRACE_TRACER_FUNCTION_GRAPH = 2,
};

enum utrace_config_flags {
	UTRACE_CFG_OVERWRITE = 1u << 0,
	UTRACE_CFG_GRAPH_FUNCS = 1u << 1, /* -g given: record only below graph roots */
	UTRACE_CFG_BLOCK = 1u << 2,	  /* no-loss: a full buffer waits (UTRACE_RB_BLOCK) */
	UTRACE_CFG_GRAPH_RETVAL = 1u << 3, /* funcgraph-retval: each EXIT with rax */
	UTRACE_CFG_LIVE = 1u << 4,	  /* open a live channel (utrace record --tracefs) */
	UTRACE_CFG_LIBCALL = 1u << 5,
	UTRACE_CFG_GRAPH_RETADDR = 1u << 6, /* funcgraph-retaddr: each ENTRY with its return
					     * address (UEXT_RETADDR), for sampled call chains */
	UTRACE_CFG_DUMP_ON_CRASH = 1u << 7, /* --dump-on-crash: record the crash signals
					     * (runtime/crash.c; so does UTRACE_CFG_LIVE
					     * while utrace_control.dump_on_crash is 1) */	   /* --libcall: hook PLT/GOT slots (runtime/plt.c) */
};

/* The control page is a memfd shared by the recorder and every traced
 * process; it is how the recorder stops tracing everywhere at once. */
/* Events (ids from UTRACE_EV_ID_BASE) whose state a trigger can change. */
#define UTRACE_EV_ID_BASE 32768
#define UTRACE_EV_STATE_MAX 4096
#define UTRACE_TRIG_COUNTS 256 /* triggers with a :N count, per recording */
#define UTRACE_EV_PIDS 64	/* set_event_pid's threads */
#define UTRACE_FT_PIDS 64	/* set_ftrace_pid's, set_ftrace_notrace_pid's threads */

enum utrace_ev_state {
	UTRACE_EVS_OFF = 1u << 0,	  /* soft-disabled: no record (enable_event) */
	UTRACE_EVS_HIST_PAUSED = 1u << 1, /* its hist triggers paused (disable_hist) */
};

/* One snapshot request: when (the TSC of the trigger), which event, which
 * thread, whose (the reader of the trigger: 0 the top level, else an
 * instance of the live tracefs, see utrace_control.reader_on).  seq is
 * n + 1 once the slot holds request n. */
#define UTRACE_SNAP_SLOTS 64
#define UTRACE_INPROC_PROBE_OFF_WORDS 32 /* UTRACE_INPROC_PROBE_MAX bits */
#define UTRACE_SNAP_WAIT_MS 1000 /* the longest a thread waits for its snapshot */
struct utrace_snap_slot {
	uint64_t seq;
	uint64_t tsc;
	int32_t id;  /* the event whose trigger asked, -1: a hist action */
	int32_t tid;
	uint32_t reader;
	uint32_t reserved;
};

/* One firing of an instance's trigger that changed its state (see
 * utrace_control.reader_log): when (TSC), whose, what (enum
 * utrace_trig_cmd), on which event, and whether the processes had it on
 * before (tracing_on for traceon, the event's state for enable_event). */
#define UTRACE_READERS 8
#define UTRACE_READER_LOG 64
struct utrace_reader_fire {
	uint64_t seq;
	uint64_t tsc;
	uint32_t reader;
	uint32_t cmd;
	int32_t target;
	uint32_t was_on;
};

/*
 * The stack tracer's state (runtime/stack_tracer.c writes it, the live
 * tracefs's stack_trace, stack_max_size and utrace.stack_tracer_enabled
 * read it): enabled is stack_tracer_enabled (1/0), which the recorder
 * sets before it has the processes patch the sites of stack_trace_filter;
 * max_size is stack_max_size, the deepest stack seen (bytes), which a
 * thread compares with at each traced entry and which the recorder sets
 * (a write of stack_max_size).  A thread with a deeper stack takes lock
 * (a spin lock: 0 free, else the holder's tid; held only to copy one
 * stack, never waited for long: a thread that cannot take it soon gives
 * its stack up), compares again and saves its stack: nr_entries return
 * addresses of process pid, innermost first (entry 0 the traced
 * function's own, at its entry), and where each was on the stack as the
 * depth (bytes from the thread's stack top) the kernel's stack_trace
 * prints.  gen counts the stacks saved.
 */
#define UTRACE_STACK_ENTRIES 500 /* the kernel's STACK_TRACE_ENTRIES */
struct utrace_stack_max {
	uint32_t enabled;
	uint32_t lock;
	uint64_t max_size;
	uint64_t gen;
	int32_t pid;
	uint32_t nr_entries;
	uint64_t addr[UTRACE_STACK_ENTRIES];
	uint32_t depth[UTRACE_STACK_ENTRIES];
};

/*
 * The recording's shared state, one page set up by the recorder and mapped
 * writable by every traced process: what the trigger commands change
 * (traceon/traceoff, enable_/disable_event, enable_/disable_hist, the :N
 * counts) must hold for every process of the recording at once, as it
 * does for the kernel's one tracing instance.
 */
struct utrace_control {
	uint32_t size;
	uint32_t tracing_on;	/* 1/0, like tracefs tracing_on */
	int32_t tid_filter[16]; /* 0-terminated; empty = every thread */
	uint8_t ev_state[UTRACE_EV_STATE_MAX]; /* enum utrace_ev_state, by id - base */
	int64_t trig_count[UTRACE_TRIG_COUNTS]; /* :N left; < 0: unlimited */
	/* Snapshot requests (runtime/snapshot.c, lib/record/recorder_snap.c):
	 * request n takes n = snap_next++ and fills snap[n % SLOTS], whose
	 * seq it publishes last (n + 1, release); the recorder takes them in
	 * order, and publish in snap_done how many they took (a futex word:
	 * the thread that asked waits for it, bounded). */
	uint64_t snap_next;
	uint32_t snap_done;
	uint32_t snap_reserved;
	struct utrace_snap_slot snap[UTRACE_SNAP_SLOTS];
	/* In-process probes removed while the programs run (the kernel's
	 * `-:EVENT` written to kprobe_events): bit k of ipp_off set = probe
	 * key k is off in every process of the recording.  Its records stop
	 * at once; each process's probe helper thread (runtime/inproc_probe_opt.c)
	 * puts the program's bytes back and waits until no thread can be in
	 * the probe's slot.  ipp_gen counts the changes: a (shared) futex word
	 * the helpers wait on; a runtime bumps it too, to wake its own. */
	uint32_t ipp_gen;
	uint32_t ipp_off[UTRACE_INPROC_PROBE_OFF_WORDS];
	/* The kernel's sysctl debug.kprobes-optimization, 0 here when it is
	 * 1 (the live tracefs's utrace.kprobes-optimization): when not 0, a
	 * probe the tool proved a jmp safe for stays an int3 (resuming in
	 * its detour's tail); the recorder then has each process take its
	 * jmps back (INPROC_PROBE_OPT), and when 0 again promote them
	 * (runtime/inproc_probe_state.c). */
	uint32_t ipp_noopt;
	uint32_t ipp_reserved;
	/* Attached processes (utrace record -P, runtime/attach.c): the
	 * recorder sets detach to 1 and wakes it (a shared futex word); each
	 * runtime puts back every byte it changed, adds 1 to detached and
	 * wakes it, then goes dormant. */
	uint32_t detach;
	uint32_t detached;
	/* set_event_pid (the live tracefs): the threads whose events are
	 * recorded, 0-terminated; empty: every thread.  Looked at on each hit
	 * of a STATEFUL event (every event of a live recording). */
	int32_t ev_pids[UTRACE_EV_PIDS];
	/* set_event_notrace_pid: the threads whose events are not recorded,
	 * 0-terminated, whatever ev_pids says; looked at as ev_pids. */
	int32_t ev_notrace_pids[UTRACE_EV_PIDS];
	/* set_ftrace_pid, set_ftrace_notrace_pid (the live tracefs): the
	 * threads whose function records (function, function_graph) are
	 * written, and those whose are not; 0-terminated, empty: no rule.
	 * ft_pid_gen: bit 0 set while either list is non-empty, the only
	 * word the tracers' fast paths read for them (nothing more while it
	 * is clear, as the kernel installs its pid wrapper only for a
	 * non-empty list); bits 1-31 count the changes.  The recorder
	 * writes the lists, then ft_pid_gen (release); a thread keeps its
	 * answer with the ft_pid_gen it read before the lists (acquire) and
	 * asks again when the word differs (runtime/trace_pid.c). */
	uint32_t ft_pid_gen;
	uint32_t ft_reserved;
	int32_t ft_pids[UTRACE_FT_PIDS];
	int32_t ft_notrace_pids[UTRACE_FT_PIDS];
	/* buffer_size_kb (the live tracefs): the size, in KiB, of the
	 * buffers threads make from now on (0: the config's nr_subbufs of
	 * UTRACE_SUBBUF_SIZE); a buffer keeps the size it was made with. */
	uint32_t buffer_kb;
	/* 1 once the recording ends (utrace_recorder_stop, detach): tracing
	 * is off for good and the hist triggers stop counting too, which
	 * tracing_on 0 alone does not do (the kernel's go on). */
	uint32_t stopped;
	/* tracing_cpumask (the live tracefs): bit N set = no record is
	 * written on CPU N (of the first 64), as the kernel's ring buffer
	 * refuses a reservation on a CPU left out of the mask. */
	uint64_t cpu_off;
	/* options/dump-on-crash (the live tracefs) and record --dump-on-crash:
	 * 1 = a crash signal leaves its record (runtime/crash.c).  Its
	 * handlers are installed at the start of every process of a live
	 * recording, and write only while this word is 1. */
	uint32_t dump_on_crash;
	/* buffer_subbuf_size_kb (the live tracefs): the sub-buffer size, in
	 * bytes, of the buffers from now on (0: UTRACE_SUBBUF_SIZE; else
	 * utrace_subbuf_size_ok).  A thread whose buffer has another size
	 * makes a new one at its next sub-buffer (runtime/ring_buffer.c). */
	uint32_t subbuf_size;
	/* The live tracefs's instances' own triggers (a TRIGGER's reader,
	 * lib/session/session_inst_trig.c): reader r (1 ..
	 * UTRACE_READERS - 1; 0 is the top level, whose event state is the
	 * words above, and whose own tracing_on is reader_on[0]: its
	 * traceoff turns tracing_on off only if no instance has it on, else
	 * logs itself as reader 0's) has tracing on while reader_on[r] is
	 * 1, event id on while bit (id - base) of reader_ev[r] is set; the
	 * recorder sets them as the instance's files are written.  A
	 * firing that changes one
	 * (runtime/event_trigger.c) also turns the processes' union on if
	 * it was off, and logs itself: request n takes n = reader_next++
	 * and puts itself in reader_log[n % UTRACE_READER_LOG]
	 * (utrace_ctl_reader_log_put); the recorder applies them in order.
	 * Reader r's hist triggers of event id are paused while bit (id -
	 * base) of reader_hist_off[r] is set (its disable_hist; ev_state's
	 * UTRACE_EVS_HIST_PAUSED is the top level's). */
	uint32_t reader_on[UTRACE_READERS];
	uint8_t reader_ev[UTRACE_READERS][UTRACE_EV_STATE_MAX / 8];
	uint64_t reader_next;
	struct utrace_reader_fire reader_log[UTRACE_READER_LOG];
	uint8_t reader_hist_off[UTRACE_READERS][UTRACE_EV_STATE_MAX / 8];
	/* The stack tracer (the kernel's kernel/trace/trace_stack.c,
	 * runtime/stack_tracer.c): one for the whole recording, as the
	 * kernel's is one for the system. */
	struct utrace_stack_max stack;
};

/* Log firing n (taken from reader_next) in its slot.  A seqlock per
 * slot: seq is 0 while the fields are written, so that a reader copying
 * the slot while firing n + UTRACE_READER_LOG overwrites it sees the
 * change on its second look at seq (the release fence orders the 0
 * before the fields, the release store the fields before the new seq). */
static inline void utrace_ctl_reader_log_put(struct utrace_control *c, uint64_t n,
					     const struct utrace_reader_fire *v)
{
	struct utrace_reader_fire *f = &c->reader_log[n % UTRACE_READER_LOG];

	__atomic_store_n(&f->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&f->tsc, v->tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&f->reader, v->reader, __ATOMIC_RELAXED);
	__atomic_store_n(&f->cmd, v->cmd, __ATOMIC_RELAXED);
	__atomic_store_n(&f->target, v->target, __ATOMIC_RELAXED);
	__atomic_store_n(&f->was_on, v->was_on, __ATOMIC_RELAXED);
	__atomic_store_n(&f->seq, n + 1, __ATOMIC_RELEASE);
}

/* Copy firing n into *v: 1, or 0 while it is not published yet, or -1
 * if its slot holds another firing now (n is lost: overwritten). */
static inline int utrace_ctl_reader_log_get(const struct utrace_control *c, uint64_t n,
					    struct utrace_reader_fire *v)
{
	const struct utrace_reader_fire *f = &c->reader_log[n % UTRACE_READER_LOG];
	uint64_t seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);

	if (seq != n + 1)
		return seq > n + 1 ? -1 : 0;
	v->tsc = __atomic_load_n(&f->tsc, __ATOMIC_RELAXED);
	v->reader = __atomic_load_n(&f->reader, __ATOMIC_RELAXED);
	v->cmd = __atomic_load_n(&f->cmd, __ATOMIC_RELAXED);
	v->target = __atomic_load_n(&f->target, __ATOMIC_RELAXED);
	v->was_on = __atomic_load_n(&f->was_on, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&f->seq, __ATOMIC_RELAXED) == n + 1 ? 1 : -1;
}

/* Whether probe key k is off (see ipp_off). */
static inline bool utrace_ctl_inproc_probe_off(const struct utrace_control *c, uint32_t k)
{
	return k / 32 < UTRACE_INPROC_PROBE_OFF_WORDS &&
	       (__atomic_load_n(&c->ipp_off[k / 32], __ATOMIC_ACQUIRE) >> (k % 32) & 1);
}

/* Turns probe key k off; false if it was off already.  The caller wakes
 * the futex ipp_gen (FUTEX_WAKE, shared). */
static inline bool utrace_ctl_inproc_probe_set_off(struct utrace_control *c, uint32_t k)
{
	uint32_t was;

	if (k / 32 >= UTRACE_INPROC_PROBE_OFF_WORDS)
		return false;
	was = __atomic_fetch_or(&c->ipp_off[k / 32], 1u << (k % 32), __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&c->ipp_gen, 1, __ATOMIC_RELEASE);
	return !(was >> (k % 32) & 1);
}

struct utrace_msg_config {
	struct utrace_msg hdr;
	uint32_t tracer;	 /* enum utrace_tracer */
	uint32_t flags;		 /* enum utrace_config_flags */
	uint32_t nr_subbufs;	 /* per-thread buffer size in sub-buffers */
	uint32_t max_depth;	 /* 0 = unlimited */
	uint64_t thresh_ns;	 /* tracing_thresh; 0 = off */
	uint64_t tsc_per_us_q16; /* for thresh_ns: tsc ticks per microsecond << 16 */
	uint32_t nr_synth;	 /* synthetic events: their ENABLEs follow (UTRACE_SYNTH_OBJ) */
	uint32_t nr_inproc_probes;	 /* in-process probes: their ENABLEs follow (UTRACE_INPROC_PROBE_OBJ) */
};

enum utrace_obj_flags {
	UTRACE_OBJ_MAIN = 1u << 0,
	UTRACE_OBJ_INHERITED = 1u << 1,
	UTRACE_OBJ_MCOUNT =
	    1u << 2, /* sites from __mcount_loc, else __patchable_function_entries */
	UTRACE_OBJ_SYMTAB_SITES = 1u << 3, /* some sites found from the symbols, not the section */
	/* --libcall: not code but the imports of the object of the same path
	 * and bias; its "sites" are the vaddrs of their GOT slots, in the order
	 * of utrace_elf_imports (lib/elf/elf.h), 0 for a slot left alone */
	UTRACE_OBJ_LIBCALL = 1u << 4,
	UTRACE_OBJ_FPATCH = 1u << 5, /* no compiler sites: its sites are patched function
				      * entries (FPATCH below) */
};

struct utrace_msg_object {
	struct utrace_msg hdr;
	uint32_t obj;	  /* index of the object in this image */
	uint32_t flags;	  /* enum utrace_obj_flags */
	uint32_t id_base; /* function id of site 0 */
	uint32_t nr_sites;
	uint64_t bias; /* load bias: runtime address = bias + ELF vaddr */
	char path[];   /* NUL-terminated */
};

struct utrace_msg_sites {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t first; /* index of vaddr[0] within the object's sites */
	uint32_t count;
	uint32_t reserved;
	uint64_t vaddr[]; /* ELF virtual address of each site (runtime - bias) */
};

enum utrace_site_select {
	UTRACE_SITE_TRACE = 1u << 0,	     /* patch it */
	UTRACE_SITE_GRAPH_ROOT = 1u << 1,    /* set_graph_function */
	UTRACE_SITE_GRAPH_NOTRACE = 1u << 2, /* set_graph_notrace */
	UTRACE_SITE_GRAPH_ARGS = 1u << 3,    /* funcgraph-args: the function has
					      * parameters (DWARF); ENTRY with ARGS */
	/* bits 4-6: how many argument registers they use (0-6): as many
	 * are recorded */
	UTRACE_SITE_GRAPH_NREGS_SHIFT = 4,
	UTRACE_SITE_GRAPH_NREGS_MASK = 7u << 4,
	/* function_graph: the function's runtime reads or moves return
	 * addresses (Go, the JVM, V8: lib/probes/func_patch_deny.c), so its
	 * return is never replaced; its entry is written as the function
	 * tracer writes it (FUNC, with the parent ip) */
	UTRACE_SITE_ENTRY_ONLY = 1u << 7,
};

/* kind: UTRACE_SELECT_SITES, the flags above; UTRACE_SELECT_STACK,
 * stack_trace_filter's choice (1: the site checks the stack while the
 * stack tracer is on, runtime/stack_tracer.c), sent before the object's
 * SITES selection, at registration only while the stack tracer is on. */
enum utrace_select_kind { UTRACE_SELECT_SITES = 0, UTRACE_SELECT_STACK = 1 };

struct utrace_msg_select {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t first;
	uint32_t count;
	uint32_t kind; /* enum utrace_select_kind */
	uint8_t flags[]; /* enum utrace_site_select, one per site */
};

struct utrace_msg_buffer {
	struct utrace_msg hdr;
	int32_t tid;
	uint32_t nr_subbufs;
	char comm[16];
};

/* The static tracepoints (include/utrace/tracepoint.h) whose keys an
 * object holds, by index in its __utrace_event_keys section. */
struct utrace_msg_event_name {
	uint32_t key;
	uint32_t reserved;
	char system[64];
	char name[64];
};

struct utrace_msg_events {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t first; /* key index of ev[0] */
	uint32_t count;
	uint32_t total; /* keys of the object: the recorder answers after the last */
	struct utrace_msg_event_name ev[]; /* at most UTRACE_EVENTS_PER_MSG */
};
#define UTRACE_EVENTS_PER_MSG 256u

/* One enabled event of the object; key == UTRACE_ENABLE_DONE ends the list. */
enum utrace_enable_flags {
	/* Only the event's triggers run: no record is written (the kernel's
	 * soft enable, trace-cmd's -v -e EVENT -R TRIGGER). */
	UTRACE_ENABLE_SOFT = 1u << 0,
	/* A trigger may turn its record or its hist triggers off and on
	 * (utrace_control.ev_state): look there on every hit. */
	UTRACE_ENABLE_STATEFUL = 1u << 1,
	/* Down the live channel: the new filter and triggers of an event the
	 * process may have already (the tracefs's files), not a probe or a
	 * synthetic event added while running. */
	UTRACE_ENABLE_RECONF = 1u << 2,
};

struct utrace_msg_enable {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t key;
	int32_t id;	     /* common_type in the trace */
	uint32_t filter_len; /* bytes of compiled filter (common/filter_prog.h), 0 = none */
	uint32_t flags;	     /* enum utrace_enable_flags */
	uint32_t reserved;
	uint8_t filter[];
};

/*
 * A hist trigger of the event that the next ENABLE of the same key turns
 * on: its program (common/hist_prog.h) and, as the message's descriptor,
 * the memfd of its table (map_size bytes), which the recorder shares
 * between every process and object that has the event.
 */
struct utrace_msg_hist {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t key;
	uint32_t prog_len;
	uint32_t table; /* the table's id, by which RESOLVEs find it (0: none) */
	uint64_t map_size;
	uint32_t reader; /* whose: 0 the top level, else an instance's (utrace_control) */
	uint32_t reserved;
	uint8_t prog[];
};
#define UTRACE_EVENT_HISTS_MAX 8 /* hist triggers per event */
#define UTRACE_HIST_TABLES_MAX 256 /* table ids of a recording */

/* Another trigger's table (the memfd) that a following HIST's program
 * RESOLVEs variables in; sent before it, maybe more than once. */
struct utrace_msg_table {
	struct utrace_msg hdr;
	uint32_t table;
	uint32_t reserved;
	uint64_t map_size;
};

/*
 * Synthetic events (lib/hist/synth.h) have no object: after CONFIG, when
 * nr_synth says so, the recorder sends their HIST, TRIGGER and ENABLE
 * messages as for an object of index UTRACE_SYNTH_OBJ whose key i is the
 * synthetic event i of the recording (an EMIT's id), then its DONE.
 */
#define UTRACE_SYNTH_OBJ 0xfffffff0u
#define UTRACE_SYNTH_MAX 32

/*
 * trace_marker's event (the kernel's ftrace:print, events/ftrace/print):
 * its triggers come down the live channel as for an object of index
 * UTRACE_PRINT_OBJ with one key, 0, and run on each trace_marker write
 * (runtime/trace_events.c rt_marker_write).
 */
#define UTRACE_PRINT_OBJ 0xfffffff2u

/* One of the other trigger commands of an event (events.rst), sent like a
 * HIST before the event's ENABLE. */
enum utrace_trig_cmd {
	UTRACE_TC_TRACEON = 1,
	UTRACE_TC_TRACEOFF,
	UTRACE_TC_ENABLE_EVENT,
	UTRACE_TC_DISABLE_EVENT,
	UTRACE_TC_ENABLE_HIST,
	UTRACE_TC_DISABLE_HIST,
	UTRACE_TC_SNAPSHOT,   /* save the buffers as they are now (runtime/snapshot.c) */
	UTRACE_TC_STACKTRACE, /* the user stack after the event (runtime/stacktrace.c) */
	/* an event probe on the event (lib/probes/eprobe.h): target the
	 * in-process probe key whose record it writes, the fetch program
	 * (prog_len bytes after the filter) run on the event's record */
	UTRACE_TC_EPROBE,
};

struct utrace_msg_trigger {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t key;
	uint32_t cmd;	     /* enum utrace_trig_cmd */
	int32_t target;	     /* enable_/disable_: the target event's id */
	int32_t count_idx;   /* :N: its counter in utrace_control, -1: unlimited */
	uint32_t filter_len; /* the trigger's own filter, 0: none */
	uint32_t prog_len;   /* EPROBE: its fetch program, after the filter */
	uint32_t reader;     /* whose: 0 the top level, else an instance's (utrace_control) */
	uint8_t filter[];
};
#define UTRACE_EVENT_TRIGS_MAX 8 /* other triggers per event */
#define UTRACE_ENABLE_DONE UINT32_MAX

/*
 * In-process probes (lib/probes/inproc_probe.h, runtime/inproc_probes.c).  When CONFIG
 * says nr_inproc_probes, the recorder sends their HIST, TRIGGER and ENABLE
 * messages after the synthetic events', as for an object of index
 * UTRACE_INPROC_PROBE_OBJ whose key i is probe i, then its DONE.  Then, for
 * each object the runtime registers (after its EVENTS), the runtime maps
 * a probe area within rel32 reach of the object's code and names it
 * (INPROC_PROBE_AREA); the recorder answers with one INPROC_PROBE per probe that lands
 * in the object and a last one of key UTRACE_ENABLE_DONE.  A INPROC_PROBE says
 * everything the runtime needs: where, how (the call site, or an int3 and
 * the bytes to run at its slot of the area), and the fetch program.
 */
#define UTRACE_INPROC_PROBE_OBJ 0xfffffff1u

/* `utrace bt`'s action of in-process probe key (common/bt_prog.h, checked
 * by the tool and again by the runtime), run at the probe's hit instead
 * of writing its record; sent like a HIST before the key's ENABLE.  The
 * descriptor is a memfd of tables_size bytes: one table
 * (common/bt_table.h) per map of the program, in map order, each
 * utrace_hist_map_bytes long, read by the tool when the maps print. */
struct utrace_msg_bt {
	struct utrace_msg hdr;
	uint32_t obj; /* UTRACE_INPROC_PROBE_OBJ */
	uint32_t key;
	uint32_t prog_len;
	uint32_t flags; /* UTRACE_BT_MSG_* */
	uint64_t tables_size;
	uint8_t prog[];
};
/* The program runs at the hit for its reads alone, which go into the
 * probe's record (common/bt_prog.h, UTRACE_BT_CAP_MAGIC): no tables. */
#define UTRACE_BT_MSG_CAPTURE 1u
#define UTRACE_INPROC_PROBE_MAX 1024	     /* probe events of a recording */
_Static_assert(UTRACE_INPROC_PROBE_MAX <= UTRACE_INPROC_PROBE_OFF_WORDS * 32, "ipp_off holds every probe key");
#define UTRACE_INPROC_PROBE_SLOT 128	     /* bytes of the area per probe location */
#define UTRACE_INPROC_PROBE_XOL 96	     /* at most, of displaced instructions and jmp back */
/* A jump-optimised probe's detour: `lea -128(%rsp),%rsp; push $k;
 * call *tramp(%rip); lea 128(%rsp),%rsp` (this many bytes, the runtime's),
 * then the tool's relocated instructions and jmp back, the tramp's
 * address in the slot's last 8 bytes. */
#define UTRACE_INPROC_PROBE_DETOUR_HEAD 24
#define UTRACE_INPROC_PROBE_AREA (1u << 16) /* bytes of an object's area */

struct utrace_msg_inproc_probe_area {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t size; /* 0: no area (no room near the object): int3 probes cannot run */
	uint64_t addr;
};

enum utrace_inproc_probe_how {
	UTRACE_IPPH_SITE = 1, /* from the function's call site (site = its index) */
	UTRACE_IPPH_INT3,     /* an int3; xol runs at the slot, or call_to is emulated */
	UTRACE_IPPH_JMP,	     /* a jmp to a detour: xol (insn_len bytes moved) runs at
			      * slot + UTRACE_INPROC_PROBE_DETOUR_HEAD; an int3 may resume there too */
};

struct utrace_msg_inproc_probe {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t key;	   /* the probe (UTRACE_INPROC_PROBE_OBJ key); UTRACE_ENABLE_DONE ends */
	uint32_t how;	   /* enum utrace_inproc_probe_how */
	uint32_t is_return; /* the hit hooks the function's return instead of firing */
	uint64_t addr;	   /* runtime address of the probed instruction */
	uint64_t func;	   /* runtime address of its function */
	uint64_t call_to;  /* int3 on a direct call: its target, emulated (0: none) */
	uint32_t site;	   /* UTRACE_IPPH_SITE: the object's site index */
	uint32_t slot;	   /* offset of its slot in the area */
	uint32_t insn_len; /* the probed instruction's length */
	uint32_t xol_len;  /* bytes for the slot, at data[0] */
	uint32_t prog_len; /* the fetch program (common/fetch_prog.h), at data[UTRACE_INPROC_PROBE_XOL] */
	uint32_t reserved;
	uint8_t data[];
};

/*
 * The live channel (utrace record --tracefs): changes made while the
 * program runs.  With UTRACE_CFG_LIVE the runtime makes a socketpair,
 * sends one end with an empty LIVE message and serves the other from a
 * thread of its own, so the recorder can speak first at any time:
 *
 *   recorder                               runtime's live thread
 *   TRACER {tracer, max_depth, thresh}
 *                     ------------------>  (the stubs' jump retargeted)
 *   SELECT ... (every site of every object, as at registration)
 *   LIVE_DONE         ------------------>  sites patched/unpatched in one batch
 *                     <------------------  LIVE_DONE {status}
 *   MARKER {text}     ------------------>  a PRINT record, as utrace_printf
 *                     <------------------  LIVE_DONE {status}
 */
struct utrace_msg_tracer {
	struct utrace_msg hdr;
	uint32_t tracer; /* enum utrace_tracer */
	uint32_t flags;	 /* UTRACE_CFG_GRAPH_FUNCS: set_graph_function has functions;
			  * UTRACE_CFG_GRAPH_RETVAL: options/funcgraph-retval */
	uint32_t max_depth; /* max_graph_depth, 0 = unlimited */
	uint32_t thresh_us; /* tracing_thresh in microseconds, 0 = off */
};

struct utrace_msg_live_done {
	struct utrace_msg hdr;
	int32_t status; /* runtime's answer: 0 or -errno */
	uint32_t reserved;
};

/*
 * A probe added while the program runs (dynamic_events, runtime/live.c):
 *
 *   recorder                               runtime's live thread
 *   ENABLE {UTRACE_INPROC_PROBE_OBJ, key, id}  ->  the probe's event (records
 *                                            follow ev_state: off at first)
 *   per object that defines its symbol:
 *   INPROC_PROBE_SLOT {obj}  ------------------>  the object's probe area (mapped
 *                      <------------------  now if need be), a free slot
 *   INPROC_PROBE {obj, key, ...}  ------------->  as at registration
 *   INPROC_PROBE {key UTRACE_ENABLE_DONE}  ---->  installed in one batch
 *                      <------------------  LIVE_DONE {status}
 */
struct utrace_msg_inproc_probe_slot {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t slot; /* answer: offset of a free slot, UINT32_MAX: none */
	uint64_t addr; /* answer: the area, 0: none */
};

/*
 * The probes as a process's text has them now (the live tracefs's
 * utrace.kprobes_list, the kernel's debugfs kprobes/list): the recorder
 * sends an INPROC_PROBE_LIST with no entries on the live channel; the
 * runtime answers with INPROC_PROBE_LIST messages of n entries each, the
 * last with last = 1.  An entry is a probe key at an address: its call
 * site patched (SITE, the kernel's ftrace-based kprobe), an int3, or its
 * jmp to the detour written (JMP) or queued until no thread is in its way
 * (JMP_QUEUED; runtime/inproc_probe_opt.c).  Probes turned off are not
 * listed.
 *
 * INPROC_PROBE_OPT (no payload): the runtime applies the control page's
 * ipp_noopt to the probes it has (their jmps taken back to int3s, or
 * queued again), then answers LIVE_DONE.
 */
enum utrace_inproc_probe_state {
	UTRACE_IPPS_SITE = 1,
	UTRACE_IPPS_INT3,
	UTRACE_IPPS_JMP_QUEUED,
	UTRACE_IPPS_JMP,
};

struct utrace_inproc_probe_entry {
	uint64_t addr;
	uint32_t key;
	uint8_t state; /* enum utrace_inproc_probe_state */
	uint8_t is_return;
	uint8_t reserved[2];
};

struct utrace_msg_inproc_probe_list {
	struct utrace_msg hdr;
	uint32_t n;
	uint32_t last;
	struct utrace_inproc_probe_entry e[];
};
#define UTRACE_IPP_LIST_PER_MSG                                                                    \
	((UTRACE_MSG_MAX - sizeof(struct utrace_msg_inproc_probe_list)) /                          \
	 sizeof(struct utrace_inproc_probe_entry))

/*
 * Objects without compiler sites (lib/probes/func_patch.h,
 * runtime/func_patch.c), when the tracer is function or function_graph:
 * before its OBJECT, the runtime asks (FPATCH_ASK) and the recorder
 * answers how many function entries to patch (FPATCH_PLAN, count 0: none:
 * not selected, or nothing safe).  The runtime maps that many detour
 * slots within rel32 reach of the object and names them (FPATCH_AREA,
 * addr 0: no room); the recorder sends the slots' contents (FPATCH, in
 * order, count entries each).  The object is then announced with
 * UTRACE_OBJ_FPATCH and the entries as its sites (an entry the runtime
 * cannot take is sent as 0), and SELECT says which to patch, as for
 * compiler sites.  A slot is `call stub_i` (the runtime's), then xol: the
 * displaced instructions relocated and `jmp` back; the entry becomes
 * `jmp slot`.  The runtime registers an FDE per slot (cfi below) with
 * libgcc's __register_frame.
 */
#define UTRACE_FPATCH_SLOT 64			     /* bytes per function */
#define UTRACE_FPATCH_HEAD 5			     /* the slot's `call stub_i` */
#define UTRACE_FPATCH_XOL (UTRACE_FPATCH_SLOT - 8) /* at most, after the call */
/* The slots' unwind rules: a CIE of CFA = rsp + 8, return address at
 * CFA - 8 (code factor 1, data factor -8), and per slot an FDE whose call
 * frame instructions the recorder gives (advance_loc from the slot's
 * start, def_cfa_offset, offset), at most this many bytes. */
#define UTRACE_FPATCH_CFI 32
/* The displaced bytes as the file has them, at most this many. */
#define UTRACE_FPATCH_ORIG 32

/* In an ASK's flags: the runtime itself runs on the object (libc, the
 * dynamic loader, the unwinder), which it cannot patch under its own
 * feet: the recorder answers 0 and says so if the object was wanted. */
#define UTRACE_FPATCH_ASK_RUNTIME (1u << 31)

struct utrace_msg_fpatch_ask {
	struct utrace_msg hdr;
	uint32_t obj;	/* the index its OBJECT will have */
	uint32_t flags; /* enum utrace_obj_flags (MAIN), UTRACE_FPATCH_ASK_RUNTIME */
	uint64_t bias;
	char path[]; /* NUL-terminated */
};

struct utrace_msg_fpatch_plan {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t count; /* entries to patch: slots to map */
};

struct utrace_msg_fpatch_area {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t reserved;
	uint64_t addr; /* the slots, count * UTRACE_FPATCH_SLOT bytes; 0: none */
};

struct utrace_fpatch_ent {
	uint64_t vaddr;	  /* the patched instruction (ELF vaddr) */
	uint32_t len;	  /* bytes displaced (>= 5) */
	uint32_t xol_len; /* 0: cannot run from its slot: left alone */
	uint8_t xol[UTRACE_FPATCH_XOL];
	uint32_t cfi_len; /* UINT32_MAX: no unwind rules for the slot */
	uint32_t flags;	  /* UTRACE_FPATCH_ENT_* */
	uint8_t cfi[UTRACE_FPATCH_CFI];
	/* the len bytes displaced, as in the file: an entry whose bytes in
	 * memory differ (another tool's uprobe, an int3 the kernel put
	 * there) is left alone */
	uint8_t orig[UTRACE_FPATCH_ORIG];
};
/* In an entry's flags: the entry takes a 1-byte int3, not the jmp (len:
 * its first instruction, which xol relocates); the runtime's SIGTRAP
 * handler sends a thread that meets it to the slot. */
#define UTRACE_FPATCH_ENT_INT3 (1u << 0)

struct utrace_msg_fpatch {
	struct utrace_msg hdr;
	uint32_t obj;
	uint32_t first; /* index of e[0] */
	uint32_t count;
	uint32_t reserved;
	struct utrace_fpatch_ent e[];
};
#define UTRACE_FPATCH_PER_MSG 400u
_Static_assert(sizeof(struct utrace_msg_fpatch) +
		   UTRACE_FPATCH_PER_MSG * sizeof(struct utrace_fpatch_ent) <= UTRACE_MSG_MAX,
	       "a full FPATCH message fits");

/* Free text the runtime wants the user to see (e.g. "tracing switched off
 * in pid 42: shadow stack corrupt").  The recorder prints and saves it. */
struct utrace_msg_notice {
	struct utrace_msg hdr;
	int32_t pid;
	int32_t tid;
	char text[];
};

/*
 * Attached processes (utrace record -P, runtime/attach.c): a text_poke
 * batch that rewrites bytes a thread may be in the middle of (gcc's five
 * 1-byte NOPs made one NOP, a function entry's first instructions made a
 * jmp) first asks the recorder to stop every other thread of the process,
 * none of them left inside bytes 1..4 of such an address (it is stepped
 * out with ptrace): QUIESCE, in as many messages as the addresses need
 * (UTRACE_QUIESCE_MORE on all but the last), answered by one QUIESCE
 * whose status is 0 or -errno; after the batch, RESUME lets them go.  A
 * refusal because a thread's stack points into bytes 1..4 of an address
 * (it would come back there) names that address (count 1, addr[0]).
 */
#define UTRACE_QUIESCE_MORE 1u
struct utrace_msg_quiesce {
	struct utrace_msg hdr;
	int32_t tid;	/* the asking thread: not stopped */
	int32_t status; /* the answer: 0, or -errno (nothing stopped) */
	uint32_t flags; /* UTRACE_QUIESCE_MORE */
	uint32_t count;
	uint64_t addr[]; /* runtime addresses of the batch's rewrites */
};
#define UTRACE_QUIESCE_PER_MSG ((UTRACE_MSG_MAX - sizeof(struct utrace_msg_quiesce)) / 8)

#endif
