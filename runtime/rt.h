/* SPDX-License-Identifier: MIT */
/*
 * rt.h - shared state of the in-process runtime (libutrace.so).
 *
 * The files, lowest first; each calls only files above it in this list:
 *
 *   cpu.c           rseq cpu_id offset and XSAVE size, learnt at start
 *   fd_guard.c      the runtime's descriptors, safe from the program's
 *                   close/closefrom/close_range/dup2/dup3
 *   channel.c       the socket to the recorder and the process-wide state
 *   log.c           signal-safe, allocation-free notices that keep errno
 *   trap_guard.c    SIGTRAP kept for our int3s, the program's own handling kept
 *   text_poke.c     patching live code safely (the text_poke_bp protocol)
 *   ring_buffer.c   the producer side of the per-thread buffers
 *   trace_pid.c     set_ftrace_pid: whether a thread's function records
 *                   are written
 *   trace_functions.c  the function tracer
 *   fgraph_stacks.c function_graph: one shadow stack per program stack
 *                   (coroutines), switched with it
 *   fgraph.c        function_graph: shadow return stack, entry/exit
 *   unwind.c        longjmp, C++ exceptions, pthread_exit vs. hooked returns
 *   ucontext.c      makecontext, swapcontext, setcontext: the shadow stack
 *                   follows the program's
 *   snapshot.c      the snapshot trigger: a request on the control page
 *   stacktrace.c    the stacktrace trigger: the user stack as a record
 *   stack_tracer.c  the stack tracer: the deepest stack at a traced entry
 *   event_trigger.c the trigger commands (traceon, enable_event, ...)
 *   bt_probe.c      `utrace bt`'s aggregations run at an in-process probe's hit
 *   trace_events.c  static tracepoints: jump labels, filters, records
 *   event_enable.c  which tracepoints are on: the recorder's ENABLEs, jump patching
 *   sanitizer_events.c the sanitizer:* events defined (sanitizer_events.h)
 *   sanitizer_text.c   reading a sanitizer's report text (sanitizer.h)
 *   sanitizer_patch.c  a sanitizer's empty report hook patched to jump to ours
 *   sanitizer_print.c  MSan's and LSan's reports read from their text as printed
 *   sanitizer.c     a sanitizer's report as a sanitizer:* event (its hook, its text read)
 *   fetch_fault.c   a fault in a probe's memory read resumes at its fixup
 *   crash.c         --dump-on-crash: a crash signal recorded, then the program's handling
 *   inproc_probe_jit.c    a site probe's plain hit compiled to a stub of its own
 *   inproc_probe_opt.c    int3 -> jmp once no other thread is in the way
 *   inproc_probes.c       in-process probes: sites, int3s, return hooks, fetch-args
 *   inproc_probe_area.c   their areas and the one installer, at registration and live
 *   inproc_probe_remove.c in-process probes removed while the program runs
 *   func_patch.c    objects without compiler sites: function entries patched
 *                   with a jmp to a detour that calls the sites' stub
 *   ftrace.c        call-site discovery, stubs, enabling/disabling sites
 *   inproc_probe_live.c   in-process probes added while the program runs
 *   inproc_probe_state.c  how each probe is in the text (kprobes/list), and
 *                   the kprobes-optimization switch applied to the jmps
 *   live.c          the live channel: tracer and sites changed while running
 *   plt.c           --libcall: the GOT slots of imports hooked through stubs
 *   late_bind.c     attached: the program's GOT slots of our interposers bound
 *                   to them (as a preload would), put back at the detach
 *   attach.c        a running process attached to: its detach puts it back
 *   init.c          start-up, fork/exec: calls the others in order
 */
#ifndef UTRACE_RUNTIME_RT_H
#define UTRACE_RUNTIME_RT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "common/proto.h"
#include "common/rb_abi.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* One frame of the function_graph shadow return stack. */
struct rt_frame {
	uint64_t ret;	/* the real return address */
	uint64_t *slot; /* where it was on the program's stack */
	uint64_t ts;	/* entry time (tsc) */
	uint32_t id;
	uint32_t flags; /* RT_FRAME_* */
};

enum {
	RT_FRAME_ROOT = 1u << 0,      /* a set_graph_function root */
	RT_FRAME_NOTRACE = 1u << 1,   /* set_graph_notrace: hooked, nothing recorded below */
	RT_FRAME_UNHOOKED = 1u << 2,  /* real return address put back (unwinding) */
	RT_FRAME_KEEPFLAGS = 1u << 3, /* hooked with utrace_graph_return_keepflags */
};

/* Thread state.  A new thread's TLS is zero: not ready. */
enum {
	RT_TS_READY = 1u << 0,	   /* buffer exists: the fast path needs exactly this */
	RT_TS_BUSY = 1u << 1,	   /* inside the runtime: recursion guard */
	RT_TS_DEAD = 1u << 2,	   /* tracing off for this thread for good */
	RT_TS_NOTRACE = 1u << 3,   /* below a set_graph_notrace function */
	RT_TS_UNWINDING = 1u << 4, /* an exception is unwinding: frames may die */
	RT_TS_STALE = 1u << 5,	   /* its buffer is a past recording's (attach.c): a new one
				    * is made at the next record of an attach */
	RT_TS_LOST_STACK = 1u << 6, /* switched stacks in a way fgraph_stacks.c cannot follow:
				     * not traced any more, hooked frames still return */
	RT_TS_SHARED = 1u << 7,	   /* another thread shares this TLS block (clone() without
				    * CLONE_SETTLS): only thread `owner` may use it (rt_nest) */
	RT_TS_OWN = 1u << 8, /* the runtime's own work runs on this thread (its helper
			      * threads; its start-up): the library calls it makes are
			      * not the program's, so no in-process probe fires there
			      * (one on libc's malloc counted our start-up's mallocs,
			      * which bpftrace never sees).  Records are still written:
			      * the live thread writes trace_marker's for the tracefs */
};

struct rt_thread {
	/* producer state of the current sub-buffer */
	uint32_t *wp;
	uint32_t *end;
	struct utrace_subbuf *sb;
	uint64_t last_ts;
	uint32_t cpu;
	uint32_t state; /* RT_TS_* */
	int32_t tid;	/* gettid(), set with the buffer (common_pid of events) */
	/* trace_pid.c: the answer of set_ftrace_pid for this thread, under
	 * the control page's ft_pid_gen G: G (written), G | 1 << 32 (left
	 * out); anything else: not asked under G */
	uint64_t ftpid;

	struct utrace_rb_meta *meta;
	uint8_t *subbufs;
	uint32_t sb_size; /* meta->subbuf_size, kept here: the recorder maps meta too */
	uint64_t head; /* local copy of meta->head */
	uint64_t written;
	uint64_t sb_written;   /* written when the current sub-buffer started */
	uint64_t lost;	       /* total, published to meta->lost */
	uint64_t lost_pending; /* since the last sub-buffer we got */

	/* function_graph */
	struct rt_frame *stack;
	uint32_t depth;
	uint32_t stack_cap;
	uint32_t graph_roots; /* open set_graph_function frames */
	uint32_t notrace_depth;
	/* fgraph_stacks.c: the program stack the shadow stack above is for,
	 * [stk_lo, stk_lo + ~stk_nspan) (zero: all of memory), and its key
	 * (0: the thread's own stack, whose frames ring_buffer.c may unmap) */
	uint64_t stk_lo, stk_nspan;
	uint32_t stack_key;
	uint64_t nested;      /* calls not traced: they interrupted the tracer (signal) */
	uint32_t exceptions;  /* exceptions raised and not caught yet (unwind.c) */
	uint32_t rethrow_hop; /* _Unwind_Resume_or_Rethrow is calling _Unwind_RaiseException */
	uint32_t level;	      /* 0: rt_self; k: rt_nest_ctx[k - 1] (see rt_ctx) */
	char comm[16];	      /* the thread's name, read once for common_comm keys */

	/* no-loss mode: a wait for the recorder timed out with tail here; no
	 * more waiting (records are dropped) until tail moves again */
	bool stuck;
	uint64_t stuck_tail;

	void *ipp_rets; /* RT_IPP_RETS_BYTES, inproc_probes.c: the return probes' frames, mapped when first needed */
	void *bt_states; /* RT_BT_STATES_BYTES, bt_probe.c: the interpreter's, mapped when first needed */
	/* ring_buffer.c: the threads that have a buffer, for a detach
	 * (attach.c) to retire them; nest: that thread's rt_nest_ctx */
	struct rt_thread *reg_next, *reg_prev, *nest;
	int32_t owner; /* RT_TS_SHARED: the thread whose TLS this is (ring_buffer.c) */
};

#define RT_IPP_RETS_BYTES 16384
#define RT_BT_STATES_BYTES 20480

extern __thread struct rt_thread rt_self RT_HIDDEN;

/*
 * Nested contexts (ring_buffer.c).  A signal handler that calls a traced
 * function while the tracer it interrupted is BUSY (mid-record, mid-push)
 * cannot use that context's buffer or shadow stack; it gets the next
 * context, with a buffer and shadow stack of its own, as the kernel gives
 * an interrupt its own recursion level.  A handler interrupting that one
 * gets the next, up to RT_NEST_MAX; beyond, the calls are counted lost.
 */
#define RT_NEST_MAX UTRACE_RB_NEST_MAX
extern __thread struct rt_thread rt_nest_ctx[RT_NEST_MAX] RT_HIDDEN;

struct rt_thread *rt_nest(struct rt_thread *t) RT_HIDDEN;

/* The context a tracer entered with t may write in, NULL if none.  A
 * TLS block that another thread shares (RT_TS_SHARED) also goes to
 * rt_nest, which lets only its owner through: one test either way. */
static inline struct rt_thread *rt_ctx(struct rt_thread *t)
{
	return unlikely(t->state & (RT_TS_BUSY | RT_TS_SHARED)) ? rt_nest(t) : t;
}

/* The context nested in t, NULL if there is none (yet). */
static inline struct rt_thread *rt_ctx_next(const struct rt_thread *t)
{
	struct rt_thread *n = t->level < RT_NEST_MAX ? &rt_nest_ctx[t->level] : NULL;

	return n && n->level ? n : NULL;
}

/* One loaded object with call sites. */
struct rt_object {
	char *path;
	uint64_t bias;
	uint64_t lo, hi; /* runtime address range of its PT_LOAD segments */
	uint32_t index;
	uint32_t id_base;
	uint32_t nr_sites;
	uint32_t flags;	 /* enum utrace_obj_flags */
	uint64_t *sites; /* runtime addresses, section order */
	uint8_t *stubs;	 /* stub region (rel32 reach of the code) */
	uint64_t stubs_size;
	struct utrace_event_key *keys; /* __utrace_event_keys, in memory */
	uint32_t nr_keys;
	uint32_t nr_jumps;
	const void *jumps; /* __utrace_jump_table: {code, target, key} */
	uint8_t *fpatch;   /* UTRACE_OBJ_FPATCH: the detour slots (func_patch.c) */
	void *fpatch_frames; /* their .eh_frame, until rt_fpatch_arm registers it */
	uint8_t *fpatch_len; /* per site: bytes displaced, | 0x80: an int3, not the jmp */
	struct rt_object *next;
};

struct rt_global {
	int sock;		    /* connection to the recorder, -1 when dormant or lost */
	uint32_t conn_lost;	    /* times the connection was found gone (channel.c) */
	struct utrace_control *ctl; /* shared with the recorder */
	struct utrace_msg_config cfg;
	volatile int enabled; /* 0 once tracing switched itself off */
	uint32_t next_id;
	uint32_t nr_objects;
	struct rt_object *objects;
	uint8_t *site_flags; /* enum utrace_site_select by function id */
	uint32_t site_flags_cap;
	uint8_t *stack_sites; /* stack_trace_filter's choice by function id (1: checks) */
	bool stack_on;	      /* the stack tracer's sites are patched (stack_tracer.c) */
	uint64_t tsc_thresh;
	uint64_t tsc_ns_mult; /* ns = tsc * tsc_ns_mult >> 32 (hist triggers' common_timestamp) */
	bool graph_fast; /* plain function_graph: no -g, depth limit or threshold */
	bool attached;	 /* attach.c: notices go to the recorder only, not the program's stderr */
	pid_t pid;
};

extern struct rt_global rt RT_HIDDEN;
extern uint32_t utrace_xsave_size RT_HIDDEN;

static inline bool rt_tracing_on(void)
{
	return rt.enabled && __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
}

/*
 * The clock of every record: the TSC (constant and synchronised across
 * CPUs here; the file says how to convert it to CLOCK_MONOTONIC).  rdtsc,
 * not rdtscp: rdtscp would also give the CPU but costs twice as much
 * (20 ns against 10 ns measured on this VM).  The CPU comes instead from
 * the thread's rseq area, which glibc registers and the kernel keeps
 * current on every migration: one %fs-relative load.  rt_rseq_cpu is the
 * offset of rseq.cpu_id from the thread pointer, 0 when there is none.
 */
extern long rt_rseq_cpu RT_HIDDEN;

static inline uint64_t rt_clock(uint32_t *cpu)
{
	uint32_t lo, hi, c = 0;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	if (likely(rt_rseq_cpu)) {
		__asm__ volatile("movl %%fs:(%1), %0" : "=r"(c) : "r"(rt_rseq_cpu));
		if ((int32_t)c < 0) /* not registered (yet) */
			c = 0;
	}
	*cpu = c;
	return (uint64_t)hi << 32 | lo;
}

/* sanitizer.c: whether the process has a sanitizer runtime whose reports
 * are events (libutrace.so is then an object of events); its hook set */
bool rt_sanitizer_present(void) RT_HIDDEN;
void rt_sanitizer_hook(void) RT_HIDDEN;
void rt_sanitizer_early(void) RT_HIDDEN; /* a sanitizer runtime started before ours */
/* sanitizer_patch.c: a sanitizer runtime's function, exported or in the
 * program's .symtab; its empty report hook name made to jump to hook (1;
 * 0: no such hook; -1: not patched, said) */
void *rt_sanitizer_sym(const char *name) RT_HIDDEN;
int rt_sanitizer_patch(const char *name, void *hook) RT_HIDDEN;

/* plt.c: with --libcall, hook the imports of the objects scanned from
 * now on (rt_objects_added_hook) */
void rt_plt_init(void) RT_HIDDEN;
/* attach.c: every hooked GOT slot gets its target back */
int rt_plt_unhook(void) RT_HIDDEN;

/* late_bind.c: an attached process's relocations of the runtime's
 * interposers (clone, swapcontext, _Unwind_RaiseException, ...) bound to
 * them before tracing starts, and back at the detach */
int rt_late_bind(void) RT_HIDDEN;
int rt_late_unbind(void) RT_HIDDEN;
void utrace_plt_graph_tramp(void) RT_HIDDEN; /* plt_tramp.S */
void utrace_plt_func_tramp(void) RT_HIDDEN;

/* trampoline.S */
void utrace_graph_tramp(void) RT_HIDDEN;
void utrace_func_tramp(void) RT_HIDDEN;
/* the same keeping the flags: for entries patched by func_patch.c */
void utrace_graph_tramp_keepflags(void) RT_HIDDEN;
void utrace_func_tramp_keepflags(void) RT_HIDDEN;
void utrace_graph_return(void) RT_HIDDEN;
void utrace_graph_return_keepflags(void) RT_HIDDEN;

/* the stack tracer's (stack_tracer.c): the stubs jump there while it is on */
void utrace_stack_tramp(void) RT_HIDDEN;
void utrace_stack_tramp_keepflags(void) RT_HIDDEN;

/* Whether site id (its flags f) is to call its stub: the tracer selects
 * it (UTRACE_SITE_TRACE), or the stack tracer is on and
 * stack_trace_filter selects it. */
static inline bool rt_site_patched(uint32_t id, uint8_t f)
{
	return (f & UTRACE_SITE_TRACE) || (rt.stack_on && rt.stack_sites[id]);
}

/* A return address that function_graph put in place of a real one:
 * either return trampoline (trampoline.S). */
static inline bool rt_is_graph_return(uint64_t a)
{
	return a == (uint64_t)(uintptr_t)utrace_graph_return ||
	       a == (uint64_t)(uintptr_t)utrace_graph_return_keepflags;
}
long utrace_call_preserving_fpu(long (*fn)(void *), void *arg) RT_HIDDEN;

/* The lowercase hex digits at *s as a number, *s moved past them (the
 * runtime reads /proc/self/maps and the sanitizers' reports with it: no
 * libc's strtoull, which may allocate for its locale). */
static inline uint64_t rt_parse_hex(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* ring_buffer.c
 *
 * A record is a few words; one of them may carry the time delta since the
 * previous record.  RT_DPOS says which word, at which bit, how wide; the
 * writer puts a TIME_EXTEND first when the delta does not fit. */
#define RT_DPOS(word, shift, bits) ((shift) | (bits) << 8 | (word) << 16)
#define RT_DPOS_SHIFT(d) ((d)&31)
#define RT_DPOS_BITS(d) (((d) >> 8) & 63)
#define RT_DPOS_WORD(d) ((d) >> 16)
#define RT_DPOS_SHORT RT_DPOS(0, 2, 12) /* ENTRY, FUNC */
#define RT_DPOS_EXIT RT_DPOS(0, 2, 30)
#define RT_DPOS_EXT RT_DPOS(0, 8, 24) /* extended record, delta in payload */
#define RT_DPOS_WORD32(w) RT_DPOS(w, 0, 32)
#define RT_DPOS_NONE 0 /* a record that takes no time (CPU, CONTEXT) */

bool rt_rb_slow_ok(struct rt_thread *t) RT_HIDDEN;
void rt_rb_write(struct rt_thread *t, const uint32_t *words, unsigned n, unsigned dpos, uint64_t ts,
		 uint32_t cpu) RT_HIDDEN;
uint32_t *rt_rb_reserve(struct rt_thread *t, unsigned n, unsigned bits, uint64_t ts, uint32_t cpu,
			uint32_t *delta) RT_HIDDEN;
void rt_rb_commit(struct rt_thread *t, uint32_t *end) RT_HIDDEN;
void rt_rb_thread_close(struct rt_thread *t) RT_HIDDEN;
void rt_rb_flush(struct rt_thread *t) RT_HIDDEN;
uint32_t rt_rb_print_max(void) RT_HIDDEN;
void rt_rb_forget(struct rt_thread *t) RT_HIDDEN;
/* attach.c: every thread's buffer retired (detach); the list forgotten (fork) */
void rt_rb_retire_all(void) RT_HIDDEN;
void rt_rb_registry_forget(void) RT_HIDDEN;
void rt_rb_forget_one(struct rt_thread *t) RT_HIDDEN; /* one context's buffer let go */
/* init.c's clone(): the caller's TLS block shared with the thread it
 * makes (whether it was already), and given back after a CLONE_VFORK */
bool rt_rb_share(void) RT_HIDDEN;
void rt_rb_unshare(bool was) RT_HIDDEN;

/*
 * Write one record.  Inlined with constant n and dpos, the fast path is a
 * compare or two, n stores and the commit store; anything unusual (full
 * sub-buffer, big delta, new CPU) goes to rt_rb_write.
 */
static inline __attribute__((always_inline)) void
rt_rb_put(struct rt_thread *t, uint32_t *w, unsigned n, unsigned dpos, uint64_t ts, uint32_t cpu)
{
	uint64_t delta = ts - t->last_ts;
	uint32_t *wp = t->wp;

	if (likely(!(delta >> RT_DPOS_BITS(dpos)) && (unsigned long)(t->end - wp) >= n &&
		   cpu == t->cpu)) {
		w[RT_DPOS_WORD(dpos)] |= (uint32_t)delta << RT_DPOS_SHIFT(dpos);
		for (unsigned i = 0; i < n; i++)
			wp[i] = w[i];
		t->wp = wp + n;
		t->last_ts = ts;
		t->written++;
		/* release: the words above are visible before commit covers
		 * them (a plain store on x86).  The recorder reads commit for
		 * the last, partial sub-buffer of a thread that ended. */
		__atomic_store_n(&t->sb->commit,
				 (uint32_t)((uint8_t *)(wp + n) - (uint8_t *)(t->sb + 1)),
				 __ATOMIC_RELEASE);
		return;
	}
	rt_rb_write(t, w, n, dpos, ts, cpu);
}

/* trace_pid.c */
bool rt_ftpid_ask(struct rt_thread *t, uint32_t gen) RT_HIDDEN;

/*
 * set_ftrace_pid, set_ftrace_notrace_pid: whether context t's function
 * records are left out.  While no list is set (bit 0 of ft_pid_gen
 * clear) this is one load of a control-page word and a test; with one,
 * a thread asked under the same word compares its cached answer.  The
 * load is an acquire (a plain load on x86): the lists read after it are
 * at least as new as the word.  For the slow halves: it may call.
 */
static inline bool rt_ftpid_out(struct rt_thread *t)
{
	uint32_t gen = __atomic_load_n(&rt.ctl->ft_pid_gen, __ATOMIC_ACQUIRE);

	if (likely(!(gen & 1)))
		return false;
	if (likely(t->ftpid == gen))
		return false;
	return rt_ftpid_ask(t, gen);
}

/* For the fast halves, which make no call (so save no register): true
 * when rt_ftpid_out might be true, for the slow half to ask. */
static inline bool rt_ftpid_unsure(const struct rt_thread *t)
{
	uint32_t gen = __atomic_load_n(&rt.ctl->ft_pid_gen, __ATOMIC_ACQUIRE);

	return unlikely(gen & 1) && t->ftpid != gen;
}

/*
 * A system call made directly, for the paths that may call nothing the
 * program can replace (a fork child before the program's own atfork
 * handlers ran, a tid check on a thread that shares its TLS): libc's
 * wrappers are symbols an executable may define, and set errno.
 * Returns the kernel's value (-errno on failure).
 */
static inline long rt_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

/* An iovec, as process_vm_readv takes it. */
struct rt_iov {
	void *base;
	uint64_t len;
};

/* n pieces of the program's memory (remote) into local, as
 * process_vm_readv does: the bytes read, whole pieces only (a piece that
 * faults ends the read), or -errno. */
static inline long rt_self_readv(pid_t pid, const struct rt_iov *local,
				 const struct rt_iov *remote, unsigned long n)
{
	register long r10 __asm__("r10") = (long)remote;
	register long r8 __asm__("r8") = (long)n;
	register long r9 __asm__("r9") = 0;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_process_vm_readv), "D"((long)pid), "S"(local), "d"(n),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * len bytes of the program's own memory at addr into out: true if all
 * were read.  process_vm_readv() on our own process (pid: any of its
 * threads' ids) returns EFAULT for an unmapped address where a load
 * would fault, so a bad pointer is never a crash, whatever the
 * program's signal handlers and masks are; a raw system call (one per
 * read), which touches neither errno nor anything the program can
 * replace: signal-safe, no allocation.
 */
static inline bool rt_self_read(pid_t pid, uint64_t addr, void *out, uint64_t len)
{
	struct rt_iov local = {out, len}, remote = {(void *)(uintptr_t)addr, len};

	return rt_self_readv(pid, &local, &remote, 1) == (long)len;
}

/* Whether t, a TLS block that another thread shares (RT_TS_SHARED), is
 * not the calling thread's own: that thread must neither read nor write
 * it (the tracers in rt_nest; longjmp, exceptions and stack walks through
 * rt_fgraph_depth).  A system call only for a block marked shared. */
static inline bool rt_tls_foreign(const struct rt_thread *t)
{
	return unlikely(t->state & RT_TS_SHARED) && rt_syscall3(SYS_gettid, 0, 0, 0) != t->owner;
}

/* cpu.c */
void rt_rseq_init(void) RT_HIDDEN;
int rt_xsave_init(void) RT_HIDDEN;

/* fd_guard.c: *var holds a descriptor of the runtime (or -1) */
int rt_fd_guard(int *var) RT_HIDDEN;	/* move it high, guard it */
void rt_fd_release(int *var) RT_HIDDEN; /* close it for real, *var = -1 */
int rt_fd_use(int *var) RT_HIDDEN;	/* its number, not moved until ... */
void rt_fd_done(void) RT_HIDDEN;	/* ... this */

/* channel.c */
/* forked: a fork child, ptid the thread of the parent that forked */
int rt_connect(const char *path, bool forked, pid_t ptid) RT_HIDDEN;
int rt_send(const void *msg, uint32_t size, int fd) RT_HIDDEN;
int rt_recv(void *buf, uint32_t size, int *fd) RT_HIDDEN;
void rt_own_send(uint32_t kind, uint64_t tsc0) RT_HIDDEN; /* OWN: tsc0 to now was ours */

/* ftrace.c */
#define RT_STUB_HEADER 64 /* a stub region's far jump to the tracer's trampoline */
#define RT_MAX_IDS (1u << 24)
int rt_objects_scan(void) RT_HIDDEN;
int rt_object_send(struct rt_object *obj) RT_HIDDEN;   /* OBJECT and its SITES */
int rt_object_select(struct rt_object *obj) RT_HIDDEN; /* its SELECT -> rt.site_flags */
/* Set by a file above (plt.c): called with the objects of each scan
 * (from added on, the objects lock held) once they are registered. */
extern int (*rt_objects_added_hook)(struct rt_object *added) RT_HIDDEN;
/* A live change (rt_objects_live_apply) for a libcall part (plt.c sets
 * it, as the added hook): its stubs' trampoline is tracer's, its slots
 * lead to the stubs of the imports selected (none under nop), the others
 * to their targets. */
extern int (*rt_objects_libcall_live_hook)(struct rt_object *lc, uint32_t tracer) RT_HIDDEN;
void rt_objects_resend(void) RT_HIDDEN;
/* Forget the objects no longer loaded (dlclose's, or at a detach: an
 * attached process's dlclose is not ours) */
void rt_objects_forget_unloaded(void) RT_HIDDEN;
void rt_objects_forget(void) RT_HIDDEN; /* attach.c: before registering anew */
int rt_objects_live_select(const struct utrace_msg_select *sel, uint32_t size) RT_HIDDEN;
int rt_objects_live_apply(const struct utrace_msg_tracer *t) RT_HIDDEN;
int rt_objects_locked(int (*fn)(void *arg), void *arg) RT_HIDDEN;
/* inproc_probe_live.c: a probe added while running (common/proto.h INPROC_PROBE_SLOT):
 * a slot asked for (the answer in m), its INPROC_PROBEs until the DONE that
 * installs them (0 or -errno) */
void rt_inproc_probe_live_slot(struct utrace_msg_inproc_probe_slot *m) RT_HIDDEN;
int rt_inproc_probe_live_take(const struct utrace_msg_inproc_probe *m, uint32_t size) RT_HIDDEN;
/* attach.c: a running process attached to (utrace record -P) */
int rt_attach_begin(void) RT_HIDDEN;
int rt_attach_undo(void) RT_HIDDEN;
void rt_attach_serve(void) RT_HIDDEN;
void rt_attach_end(void) RT_HIDDEN;
void rt_attach_forked(void) RT_HIDDEN;
/* The objects' list held (dlopen and dlclose change it meanwhile), and
 * none unmapped (rt_text_pin): the live thread's. */
void rt_objects_lock(void) RT_HIDDEN;
void rt_objects_unlock(void) RT_HIDDEN;
/* live.c */
void rt_live_start(void) RT_HIDDEN;
void rt_live_forget(void) RT_HIDDEN;

/* snapshot.c: ask the recorder to save every buffer as it is now (the
 * snapshot trigger, the hist snapshot() action), as reader's snapshot
 * (0: the top level's); signal-safe, never waits */
void rt_snapshot_request(int32_t event_id, int32_t tid, uint32_t reader) RT_HIDDEN;
/* event_trigger.c: whether reader's hist triggers of event id are paused
 * (its disable_hist) */
bool rt_reader_hist_paused(uint32_t reader, int32_t id) RT_HIDDEN;

/* stacktrace.c: the user stack of the event whose record is rec, as a
 * UEXT_STACK record into context t's buffer */
void rt_stacktrace_write(struct rt_thread *t, const void *rec, uint32_t post) RT_HIDDEN;
/* ... or into pc[0..max): how many; *ret_addrs: return addresses (a
 * frame-pointer walk), else function starts (the shadow stack) */
unsigned rt_stack_capture(const struct rt_thread *t, const void *rec, uint64_t *pc, unsigned max,
			  bool *ret_addrs) RT_HIDDEN;
/* ... the stack of this thread's events until called with NULL, in place
 * of the frame-pointer walk: code addresses pc[0..n), innermost first
 * (a sanitizer's report, sanitizer.c) */
void rt_stack_given(const uint64_t *pc, unsigned n) RT_HIDDEN;
/* ... the stack the kernel's frame-pointer walk gives a uprobe at these
 * registers (perf_callchain_user): ip, the return address at sp when
 * at_entry (the probed instruction is a function's push %rbp or endbr64:
 * its frame is not made, and Linux 6.11+ takes its caller from there),
 * then the return address of each frame of the %rbp chain; into
 * pc[0..max), with the address each was read from in slots (0 for ip),
 * how many (an in-process probe's, inproc_probes.c, which puts back the
 * returns its return probes hooked) */
unsigned rt_stack_regs(const struct rt_thread *t, uint64_t ip, uint64_t bp, uint64_t sp,
		       bool at_entry, uint64_t *pc, uint64_t *slots, unsigned max) RT_HIDDEN;
/* ... the call site (the function's entry) of function id, 0 if unknown */
uint64_t rt_stack_site(uint32_t id) RT_HIDDEN;

/* stack_tracer.c: the stubs' handlers while the stack tracer is on
 * (utrace_stack_tramp): the stack checked at sites stack_trace_filter
 * selects, then the tracer's handler at sites it traces; fp: %rbp at the
 * entry (the caller's frame) */
void utrace_stack_entry(uint64_t id, uint64_t *slot, const uint64_t *regs, uint64_t fp) RT_HIDDEN;
void utrace_stack_entry_keepflags(uint64_t id, uint64_t *slot, const uint64_t *regs,
				  uint64_t fp) RT_HIDDEN;

/* trace_events.c: a UEXT_SIGNAL record (crash.c) into the calling
 * thread's buffer, in any context the tracer could write in */
struct urec_signal;
void rt_signal_write(uint32_t sig, const struct urec_signal *rec) RT_HIDDEN;
/* crash.c: with --dump-on-crash, its handler for the crash signals */
void rt_crash_install(void) RT_HIDDEN;

/* event_trigger.c */
/* A trigger command (traceon, enable_event, ...) of an event. */
/* rt_trig_commands' *post: bit UTRACE_TC_STACKTRACE for the top level's
 * stacktrace, bit RT_POST_READERS + r for reader r's */
#define RT_POST_READERS 24
struct rt_trig {
	uint32_t cmd;	   /* enum utrace_trig_cmd */
	int32_t target;	   /* the event enable_/disable_ act on */
	int32_t count_idx; /* rt.ctl->trig_count[count_idx], -1: unlimited */
	uint32_t filter_len;
	const uint64_t *filter;
	const void *prog; /* EPROBE: the probe's fetch program */
	uint32_t reader;  /* 0: the top level's; else an instance's (utrace_control) */
};

/* The state of event id that triggers change (shared by the recording). */
static inline uint8_t *rt_ev_state(int32_t id)
{
	uint32_t i = (uint32_t)(id - UTRACE_EV_ID_BASE);

	return i < UTRACE_EV_STATE_MAX ? &rt.ctl->ev_state[i] : NULL;
}

/* The commands trig[0..nr) on the event's record (common fields filled),
 * those of reader only (a trace_marker write's) or RT_TRIG_ALL;
 * *post |= 1 << UTRACE_TC_STACKTRACE when a stack must follow it. */
/* An event probe's hit: probe key's record, its program run on the
 * attached event's record rec (event_enable.c sets it with the first
 * EPROBE trigger it takes). */
extern void (*rt_trig_eprobe)(uint32_t key, const void *prog, const void *rec) RT_HIDDEN;
void rt_trig_commands(const struct rt_trig *trig, uint32_t nr, const void *rec, uint32_t len,
		      uint32_t *post, uint32_t only) RT_HIDDEN;
#define RT_TRIG_ALL UINT32_MAX /* rt_trig_commands' only: every reader's */

/* bt_probe.c: a bt program for in-process probe m->key and its tables (fd)
 * from the recorder (0; 1: malformed, said, the probe records as before);
 * and a hit of probe key: true if its bt program took it (no record). */
struct utrace_msg_bt;
struct utrace_fetch_regs;
int rt_bt_recv(const struct utrace_msg_bt *m, uint32_t size, int fd) RT_HIDDEN;
/* Whether probe key has a bt program: its hits need no buffer, call no libc
 * (inline: a probe's hit asks on its way to the record).  A capture
 * program (UTRACE_BT_MSG_CAPTURE) is the same table's entry with its low
 * bit set (one load answers both): its hit records, with what the
 * program reads appended by rt_bt_capture to the record rec of len bytes
 * (cap at most): the record's new length. */
struct rt_bt;
extern struct rt_bt *rt_bt_keys[UTRACE_INPROC_PROBE_MAX] RT_HIDDEN;
#define RT_BT_CAPTURE ((uintptr_t)1)
static inline bool rt_bt_has(uint32_t key)
{
	uintptr_t b = (uintptr_t)__atomic_load_n(&rt_bt_keys[key % UTRACE_INPROC_PROBE_MAX],
						  __ATOMIC_ACQUIRE);

	return b && !(b & RT_BT_CAPTURE);
}
bool rt_bt_hit(uint32_t key, const struct utrace_fetch_regs *regs, const uint64_t *entry,
	       bool is_return) RT_HIDDEN;
/* An entry hit of a straight program (bt_fast.h) on the argument
 * registers alone (r: a frame whose ax, cx, dx, si, di, r8, r9 are
 * filled; a compiled stub's, inproc_probe_jit.c): taken; or none (no
 * program, a capture one: as rt_bt_hit's false); or FRAME: the program
 * needs the whole frame, rt_bt_hit's. */
enum { RT_BT_LEAN_NONE, RT_BT_LEAN_TAKEN, RT_BT_LEAN_FRAME };
int rt_bt_hit_lean(uint32_t key, const uint64_t *r) RT_HIDDEN;
static inline bool rt_bt_captures(uint32_t key)
{
	return (uintptr_t)__atomic_load_n(&rt_bt_keys[key % UTRACE_INPROC_PROBE_MAX],
					  __ATOMIC_ACQUIRE) & RT_BT_CAPTURE;
}
uint32_t rt_bt_capture(uint32_t key, const struct utrace_fetch_regs *regs, const uint64_t *entry,
		       bool is_return, uint64_t *rec, uint32_t len, uint32_t cap) RT_HIDDEN;

/* event_enable.c */
struct utrace_event_key;
int rt_events_register(struct rt_object *added) RT_HIDDEN;
/* The live channel's HIST, TABLE, TRIGGER and ENABLE (a key's new filter
 * and triggers), the objects held: 0, or -EPROTO for a malformed one. */
int rt_events_live(const struct utrace_msg *m, long n, int fd) RT_HIDDEN;
int rt_synth_register(void) RT_HIDDEN;
int rt_inproc_probe_events_register(void) RT_HIDDEN;
void rt_inproc_probe_event_write(uint32_t key, void *rec, uint32_t len) RT_HIDDEN;
/* event_enable.c: what an event probe's first trigger needs before it
 * runs, the fault-safe loads of utrace_fetch_load (init.c sets it to
 * inproc_probes.c's rt_ipp_install_handlers). */
extern void (*rt_ev_fetch_ready)(void) RT_HIDDEN;
/* Whether probe key's event has trigger commands (traceon...): they run
 * while tracing is off too, as the kernel's. */
bool rt_inproc_probe_has_triggers(uint32_t key) RT_HIDDEN;
/* A probe's or synthetic event's event added while running: its ENABLE
 * (obj UTRACE_INPROC_PROBE_OBJ or UTRACE_SYNTH_OBJ) from the live channel; 0 or
 * -1 (malformed, or a key given twice). */
int rt_event_live_enable(const struct utrace_msg_enable *m, uint32_t size) RT_HIDDEN;

/* fetch_fault.c */
void rt_fetch_fault_install(void) RT_HIDDEN;
bool rt_fetch_fault_fixup(void *uc) RT_HIDDEN;

/* inproc_probes.c: the probes by address, sorted; a table is replaced whole
 * (release store, the old one never freed: a trap handler may read it),
 * its writers hold rt_ipp_lock */
struct rt_inproc_probe {
	uint64_t addr, func;
	uint64_t slot;	  /* its slot in the object's area */
	uint64_t orig;	  /* the first 8 bytes at addr before the probe */
	uint64_t resume;  /* int3: where the thread goes on (the slot) */
	uint64_t call_to; /* int3 on a direct call: emulated */
	uint32_t insn_len;
	uint32_t key;
	uint32_t is_return;
	uint32_t how;
	const struct utrace_fetch_hdr *prog;
	const struct utrace_fetch_fast *fast; /* prog as copies (common/fetch_fast.h), or NULL */
	uint32_t lean; /* an entry probe at a site whose copies read only what the
			* lean trampoline saves (inproc_probes.c) */
	uint32_t plain; /* enum ipp_plain_bits (inproc_probes.c), set before
			 * its table is published */
	uint32_t detour; /* UTRACE_IPPH_JMP: its slot has the detour's head,
			  * so its jmp may be written (inproc_probe_state.c) */
};

struct ipp_table {
	size_t n;
	struct rt_inproc_probe p[];
};
extern struct ipp_table *rt_ipp_table RT_HIDDEN;
extern pthread_mutex_t rt_ipp_lock RT_HIDDEN;
const struct rt_inproc_probe *rt_ipp_find(const struct ipp_table *t, uint64_t addr) RT_HIDDEN;
/* rt_ipp_find in place, for a hit */
static inline __attribute__((always_inline)) const struct rt_inproc_probe *
rt_ipp_find_inline(const struct ipp_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->p[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t && lo < t->n && t->p[lo].addr == addr ? &t->p[lo] : NULL;
}
/* inproc_probe_area.c: the probes of the objects added, installed */
int rt_inproc_probes_register(struct rt_object *added) RT_HIDDEN;
/* inproc_probes.c: a live tracer change (ftrace.c) at a call site that
 * carries probes: the site stays the probes' call (true), and the
 * tracer's entry runs first if stub is not 0 (the site is traced). */
bool rt_ipp_site_retarget(uint64_t site, uint64_t stub) RT_HIDDEN;
void rt_inproc_probes_forget(uint64_t lo, uint64_t hi) RT_HIDDEN;

/* inproc_probe_remove.c */
void rt_inproc_probes_live(void) RT_HIDDEN;
extern int __utrace_marker_on;

/* func_patch.c: an object without sites gets its function entries as
 * sites (0 or <0); their slots armed once its stubs exist; entry i's slot
 * (0: not patchable); the trap handler's resume address for ip (0: not
 * an entry being patched) */
int rt_fpatch_object(struct rt_object *obj) RT_HIDDEN;
uint64_t rt_fpatch_slot(const struct rt_object *obj, uint32_t i) RT_HIDDEN;
uint64_t rt_fpatch_resume(uint64_t ip) RT_HIDDEN;
/* whether a call to v is traced by obj's patched entries (plt.c: then
 * no library-call hook); the selected entries patched (pokes: room for
 * nr_sites), after the recorder's SELECT; the int3 entries' table
 * forgets an unloaded object's */
struct rt_poke;
bool rt_fpatch_traced(const struct rt_object *obj, uint64_t v) RT_HIDDEN;
int rt_fpatch_enable(struct rt_object *obj, struct rt_poke *pokes) RT_HIDDEN;
void rt_fpatch_forget(uint64_t lo, uint64_t hi) RT_HIDDEN;
/* a live change: whether selected entry i takes its jmp in the batch;
 * the selected int3 entries without their int3 get it */
bool rt_fpatch_live_jmp(const struct rt_object *obj, uint32_t i) RT_HIDDEN;
int rt_fpatch_live_int3(struct rt_object *obj) RT_HIDDEN;

/* text_poke.c */
struct rt_poke {
	uint8_t *addr;
	uint8_t bytes[5];
};
int rt_text_poke_batch(struct rt_poke *pokes, size_t n) RT_HIDDEN;
int rt_text_poke_bytes(uint8_t *const *addrs, const uint8_t *bytes, size_t n) RT_HIDDEN;
/* attach.c: note the program's bytes before every poke (on), put them all
 * back (restore; logging stops); unlog: forget the notes in [lo, hi), an
 * object that is gone */
void rt_text_poke_log(bool on) RT_HIDDEN;
void rt_text_poke_unlog(uint64_t lo, uint64_t hi) RT_HIDDEN;
/* attach.c: called with stop before a batch writes (its pokes sorted; <0:
 * the batch is not made, >0: call again with !stop after it, 0: nothing
 * was stopped), then with !stop; nothing may allocate once threads stop */
void rt_text_poke_quiesce_hook(int (*hook)(const struct rt_poke *pokes, size_t n, bool stop)) RT_HIDDEN;
/* A batch the hook refused because a thread would come back into the
 * bytes of one poke (attach.c sets it, a caller reads it after the batch
 * failed): that poke's address, else 0.  Reset by every batch. */
void rt_text_poke_set_refused(uint64_t addr) RT_HIDDEN;
uint64_t rt_text_poke_refused(void) RT_HIDDEN;
int rt_text_poke_restore(void) RT_HIDDEN;
/* No object is unmapped between pin and unpin (a thread that writes text
 * outside the objects lock); dlclose brackets its unmap and forget with
 * unmap_begin/end */
void rt_text_pin(void) RT_HIDDEN;
void rt_text_unpin(void) RT_HIDDEN;
void rt_text_unmap_begin(void) RT_HIDDEN;
void rt_text_unmap_end(void) RT_HIDDEN;
void rt_text_poke_trap_hook(bool (*hook)(void *uc)) RT_HIDDEN;
/* inproc_probe_opt.c: hook(uc) for each thread one of our int3s sent on (its
 * RIP where it goes on), from the SIGTRAP handler */
void rt_text_poke_seen_hook(void (*hook)(void *uc)) RT_HIDDEN;
/* Where a thread that meets the int3 of a batch's poke at ip goes on
 * (0: after the 5 bytes, as for a NOP site) */
void rt_text_poke_resume_hook(uint64_t (*hook)(uint64_t ip)) RT_HIDDEN;
/* func_patch.c's int3 entries: where a thread that trapped at ip goes
 * (0: not one).  Installs the SIGTRAP handler. */
void rt_text_poke_entry_hook(uint64_t (*hook)(uint64_t ip)) RT_HIDDEN;
void *rt_map_near(uint64_t lo, uint64_t hi, uint64_t size) RT_HIDDEN;
int rt_text_poke_init(void) RT_HIDDEN;

/* trap_guard.c: the runtime's SIGTRAP handler installed, the program's
 * own disposition kept (sigaction, signal and the signal masks
 * interposed); a trap not the runtime's handled as the program asked */
void rt_trap_guard_install(void (*handler)(int, siginfo_t *, void *)) RT_HIDDEN;
void rt_trap_forward(int sig, siginfo_t *si, void *uc) RT_HIDDEN;
/* the same for a crash signal (crash.c; SIGSEGV and SIGBUS for
 * fetch_fault.c): ours installed, the program's kept */
void rt_sig_guard_install(int sig, void (*handler)(int, siginfo_t *, void *)) RT_HIDDEN;
void rt_sig_forward(int sig, siginfo_t *si, void *uc) RT_HIDDEN;
bool rt_sig_guarded(int sig) RT_HIDDEN; /* the runtime's handler is installed for sig */

/* inproc_probe_opt.c */
void rt_inproc_probe_opt_queue(const struct rt_poke *jmp, const uint64_t *hi, size_t n) RT_HIDDEN;
void rt_inproc_probe_opt_forget(uint64_t lo, uint64_t hi) RT_HIDDEN;
void rt_inproc_probe_opt_start(void (*off)(void)) RT_HIDDEN;
void rt_inproc_probe_opt_say(const char *msg) RT_HIDDEN;
int rt_inproc_probe_quiesce(const uint64_t *lo, const uint64_t *hi, const uint64_t *trap, size_t n) RT_HIDDEN;
/* whether the jmp at addr waits in the helper's queue; the kernel's
 * kprobes-optimization switch (the control page's ipp_noopt): whether a
 * probe's jmp may be written */
bool rt_inproc_probe_opt_queued(uint64_t addr) RT_HIDDEN;
bool rt_inproc_probe_optimize(void) RT_HIDDEN;
/* whether this process has its helper thread */
bool rt_inproc_probe_opt_running(void) RT_HIDDEN;
/* inproc_probe_state.c: the probes made to follow the switch (0 or
 * -errno); the probes as the text has them now (a malloc'ed array in
 * *out: how many, or -errno) */
int rt_inproc_probe_opt_apply(void) RT_HIDDEN;
int rt_inproc_probe_states(struct utrace_inproc_probe_entry **out) RT_HIDDEN;
/* the int3 this thread's ipp_trap is handling (inproc_probes.c), else 0 */
extern __thread uint64_t rt_ipp_trapping RT_HIDDEN;

/* fgraph_stacks.c: one shadow stack per program stack (coroutines) */
#define RT_STACK_FRAMES (1u << 18) /* frames of a thread's shadow stack (address space) */
void rt_fstack_register(uint64_t lo, uint64_t hi) RT_HIDDEN;
bool rt_fstack_switch_to(struct rt_thread *t, uint64_t sp) RT_HIDDEN;
void rt_fstack_entry_away(struct rt_thread *t, uint64_t *slot) RT_HIDDEN;
bool rt_fstack_exit_away(struct rt_thread *t, uint64_t *slot) RT_HIDDEN;
bool rt_fstack_same(struct rt_thread *t, const uint64_t *a, const uint64_t *slot) RT_HIDDEN;
void rt_fstack_lost(struct rt_thread *t) RT_HIDDEN;
void **rt_fstack_kp(uint64_t addr, uint32_t **depth) RT_HIDDEN;
bool rt_fstack_known(const uint64_t *a, const uint64_t *slot) RT_HIDDEN;
/* the bounds of the calling thread's own stack, [*lo, *hi), found once
 * (0, UINT64_MAX: unknown); signal-safe */
void rt_fstack_own(uint64_t *lo, uint64_t *hi) RT_HIDDEN;
/* whether slot lies outside the program stack t's shadow stack is for */
static inline bool rt_fstack_away(const struct rt_thread *t, const uint64_t *slot)
{
	return (uint64_t)(uintptr_t)slot - t->stk_lo >= ~t->stk_nspan;
}

/* fgraph.c */
void rt_fgraph_unhook_all(struct rt_thread *t) RT_HIDDEN;
void rt_fgraph_rehook_above(struct rt_thread *t, uint64_t sp) RT_HIDDEN;
void rt_fgraph_unwind_to(struct rt_thread *t, uint64_t sp) RT_HIDDEN;
uint32_t rt_fgraph_depth(struct rt_thread *t) RT_HIDDEN;
uint64_t utrace_graph_exit(uint64_t *slot, uint64_t rax) RT_HIDDEN;
/* regs: the trampoline's saved registers (RT_REG_* below) */
void utrace_graph_entry(uint64_t id, uint64_t *slot, const uint64_t *regs) RT_HIDDEN;
/* the same from utrace_graph_tramp_keepflags: hooks the return with
 * utrace_graph_return_keepflags */
void utrace_graph_entry_keepflags(uint64_t id, uint64_t *slot, const uint64_t *regs) RT_HIDDEN;
/* Where the entry trampoline saved each argument register, in words from
 * the regs pointer it passes (arch/x86_64/trampoline.S, SAVE_ARGS). */
enum {
	RT_REG_RDI = 8,
	RT_REG_RSI = 7,
	RT_REG_RDX = 6,
	RT_REG_RCX = 5,
	RT_REG_R8 = 4,
	RT_REG_R9 = 3
};
void utrace_func_entry(uint64_t id, uint64_t parent, const uint64_t *regs) RT_HIDDEN;

/* unwind.c: called before an exception unwinds, after fgraph's frames
 * got their real return addresses back (set by inproc_probes.c) */
extern void (*rt_unwind_unhook_more)(void) RT_HIDDEN;
/* unwind.c: the real function of an interposed name (libc's, libgcc_s's,
 * libstdc++'s), never ours, preloaded or dlopen'ed by an attach; NULL if none */
void *rt_next(const char *name) RT_HIDDEN;

/* log.c */
/* to the recorder (a NOTICE it prints), never to the program's fds;
 * kept a while if not connected; rt_log is the same */
void rt_log(const char *msg) RT_HIDDEN;
void rt_notice(const char *msg) RT_HIDDEN;
void rt_disable(const char *why) RT_HIDDEN;
void rt_conn_lost_say(void) RT_HIDDEN;

#endif
