/* SPDX-License-Identifier: MIT */
/*
 * inproc_probes.c - in-process dynamic probes (lib/probes/inproc_probe.h): where a
 * probe fires, how its fetch-args read memory, how its event is written.
 *
 * The tool decides everything per object and sends it ready (INPROC_PROBE,
 * common/proto.h); this file only installs it:
 *
 *   - a probe on a function's patchable call site: the site becomes
 *     `call slot`, the slot (in the object's probe area, in rel32 reach)
 *     `push $k; jmp *utrace_inproc_probe_site_tramp`.  No trap, nothing moved.
 *     If the tracer had patched the site, the trampoline goes on into the
 *     tracer's stub after the probes (arch/x86_64/inproc_probe.S);
 *   - any other instruction: an int3 (one byte, atomic for fetch), the
 *     SIGTRAP handler of text_poke.c calling ipp_trap: the probes fire on
 *     the trap's registers, then the thread resumes at the slot, where the
 *     tool's relocated copy of the instruction runs and jumps back (a
 *     direct call is emulated instead: push the return, go to the target);
 *   - where the tool proved a jmp safe (lib/probes/inproc_probe_insn.c): a
 *     5-byte `jmp slot` to a detour (arch/x86_64/inproc_probe.S), written with
 *     the others if the process has one thread, else an int3 first, the
 *     jmp once inproc_probe_opt.c proved no other thread in its way;
 *   - a return probe hooks the return address at the entry (site or int3)
 *     with utrace_inproc_retprobe_tramp and keeps the real one on a stack of
 *     frames (the kernel's rethook): the thread's, or a makecontext
 *     stack's own (fgraph_stacks.c), firing when the function returns.
 *
 * Probes by address live in one sorted table, replaced whole and
 * published with a release store (the old one is never freed: a signal
 * handler may still be reading it), so the trap handler reads it with no
 * lock.  It is published before any int3 is written.  A probe removed
 * while the program runs stops recording at once (the control page's
 * ipp_off bit, checked on every hit); inproc_probe_remove.c gives the bytes back.
 *
 * Memory reads (common/fetch_prog.h) go through utrace_fetch_load, safe
 * from faults (fetch_fault.c, installed with the first probe).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "common/fetch_fast.h"
#include "common/fetch_prog.h"
#include "common/record.h"
#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"
#include "runtime/trace_events.h"

/* A call site carrying probes: the slot pushes its index. */
struct ipp_site {
	uint64_t addr;
	uint64_t cont; /* the tracer's stub if the site was patched, else 0 */
	uint32_t id;   /* the site's function id, for the tracer */
	/* the first probe at addr in the table published last, or NULL:
	 * the lean way's hit, with no search (ipp_sites_first) */
	const struct rt_inproc_probe *first;
};

#define IPP_RET_DEPTH 128

struct ipp_table *rt_ipp_table;
pthread_mutex_t rt_ipp_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t ipp_test_key = UINT32_MAX; /* UTRACE_KPROBE_TEST_OFF=KEY:N */
static uint32_t ipp_test_left;
static struct ipp_site ipp_sites[IPP_SITES_MAX];
static uint32_t ipp_nr_sites;
static bool ipp_installed;
/* Per site: every probe at it lean (arch/x86_64/inproc_probe.S reads it) */
uint8_t rt_ipp_site_lean[IPP_SITES_MAX] RT_HIDDEN;
/* What the lean trampoline saves: the caller-saved registers, sp, ip */
#define IPP_LEAN_REGS                                                                              \
	(1u << UTRACE_FR_AX | 1u << UTRACE_FR_CX | 1u << UTRACE_FR_DX | 1u << UTRACE_FR_SI |       \
	 1u << UTRACE_FR_DI | 1u << UTRACE_FR_R8 | 1u << UTRACE_FR_R9 | 1u << UTRACE_FR_R10 |      \
	 1u << UTRACE_FR_R11 | 1u << UTRACE_FR_SP | 1u << UTRACE_FR_IP)

/* What a probe's place in its table says of its hits (rt_inproc_probe's
 * plain): IPP_PLAIN_BT, an entry probe alone at its address, not counted
 * by a test, may take ipp_plain; IPP_PLAIN_REC, its fetch-args run as
 * copies, may write its record there; IPP_PLAIN_PUT, its copies fill the
 * record past the ip exactly (no gap, no overlap), may write them in the
 * ring in place. */
enum ipp_plain_bits {
	IPP_PLAIN_BT = 1u << 0,
	IPP_PLAIN_REC = 1u << 1,
	IPP_PLAIN_PUT = 1u << 2,
};

struct ipp_ret {
	uint64_t ret, *slot, func;
	const struct rt_inproc_probe *p;
	uint64_t caller; /* __probe_ret_ip: ret, or the real one behind fgraph's hook */
	uint64_t args[6]; /* the entry's argument registers: the return's $argN */
};
/* Mapped at a thread's first return probe, not in TLS: libutrace.so is
 * dlopen'ed when it attaches to a running process (attach.c), and
 * glibc's static TLS room for a dlopen'ed initial-exec library is about
 * 1.6 KiB; these 5 KiB would make the dlopen fail.  rt_self.ipp_rets keeps
 * it, so ring_buffer.c unmaps it when the thread exits. */
static __thread uint32_t ipp_ret_depth;

_Static_assert(IPP_RET_DEPTH * sizeof(struct ipp_ret) <= RT_IPP_RETS_BYTES, "ipp_rets fits");

/* The frames of one program stack: a makecontext stack's are its own
 * (fgraph_stacks.c's region: a coroutine may return on another thread
 * than the one that called), every other stack's the thread's. */
struct ipp_stack {
	void **rets; /* -> the array, NULL until mapped */
	uint32_t *depth;
};

static struct ipp_stack ipp_thread_stack(void)
{
	return (struct ipp_stack){&rt_self.ipp_rets, &ipp_ret_depth};
}

static struct ipp_stack ipp_stack_of(const uint64_t *slot)
{
	struct ipp_stack s;

	s.rets = rt_fstack_kp((uint64_t)(uintptr_t)slot, &s.depth);
	return s.rets ? s : ipp_thread_stack();
}

/* A signal handler may hit its own first return probe while this one
 * maps: the first mapping stored wins, the other goes back. */
static bool ipp_rets_map(void **where)
{
	int saved_errno = errno;
	void *none = NULL, *p = mmap(NULL, RT_IPP_RETS_BYTES, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED &&
	    !__atomic_compare_exchange_n(where, &none, p, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		munmap(p, RT_IPP_RETS_BYTES);
	errno = saved_errno;
	return p != MAP_FAILED || *where;
}

/* arch/x86_64/inproc_probe.S */
void utrace_inproc_probe_site_tramp(void) RT_HIDDEN;
void utrace_inproc_retprobe_tramp(void) RT_HIDDEN;
int utrace_fetch_load(uint64_t addr, unsigned size, uint64_t *out) RT_HIDDEN;
uint64_t rt_inproc_probe_site_hit(struct utrace_fetch_regs *regs, uint32_t k) RT_HIDDEN;
uint64_t rt_inproc_probe_site_lean(const struct utrace_fetch_regs *regs, uint32_t k) RT_HIDDEN;
uint64_t rt_inproc_retprobe_hit(struct utrace_fetch_regs *regs) RT_HIDDEN;
uint64_t rt_inproc_probe_detour_hit(struct utrace_fetch_regs *regs, uint32_t k) RT_HIDDEN;
void utrace_inproc_probe_detour_tramp(void) RT_HIDDEN;

/* ---- firing ------------------------------------------------------------ */

const struct rt_inproc_probe *rt_ipp_find(const struct ipp_table *t, uint64_t addr)
{
	return rt_ipp_find_inline(t, addr);
}

/* Test only: the Nth hit of ipp_test_key turns it off, as
 * utrace_recorder_inproc_probe_remove does (this hit still records).
 * A hit counted past N waits (bounded) until the Nth has set the bit:
 * the remover's bit lands at one moment, but here the Nth thread can be
 * preempted between its count and its store while others run on, which
 * would record more than the threads already past the check. */
static void ipp_test_count(uint32_t key)
{
	int saved = errno;
	int32_t left = (int32_t)__atomic_sub_fetch(&ipp_test_left, 1, __ATOMIC_RELAXED);

	if (left == 0 && utrace_ctl_inproc_probe_set_off(rt.ctl, key))
		syscall(SYS_futex, &rt.ctl->ipp_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	for (int i = 0; left < 0 && i < 200000 && !utrace_ctl_inproc_probe_off(rt.ctl, key); i++)
		sched_yield();
	errno = saved;
}

/* A stack walked from a hit's registers holds the return trampoline
 * where a return probe hooked a frame: the real return address instead
 * (its frame on the thread's return stack, by the slot it was read
 * from), as the kernel's unwinder gives for a pending uretprobe. */
static void ipp_stack_unhook(uint64_t *pc, const uint64_t *slots, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		const struct ipp_ret *rets;
		struct ipp_stack s;

		if (pc[i] != (uint64_t)(uintptr_t)utrace_inproc_retprobe_tramp)
			continue;
		s = ipp_stack_of((const uint64_t *)(uintptr_t)slots[i]);
		rets = s.rets ? *s.rets : NULL;
		for (uint32_t d = rets ? *s.depth : 0; d-- > 0;)
			if ((uint64_t)(uintptr_t)rets[d].slot == slots[i]) {
				pc[i] = rets[d].caller;
				break;
			}
	}
}

/* One probe's record: the kernel's kprobe layout, then the fetch-args. */
static void ipp_record(const struct rt_inproc_probe *p, const struct utrace_fetch_regs *regs,
		       uint64_t func, uint64_t ret_ip, const uint64_t *entry)
{
	uint64_t rec[UTRACE_FETCH_REC_MAX / 8];
	struct rt_thread *t = &rt_self;
	uint32_t len;

	if (unlikely(utrace_ctl_inproc_probe_off(rt.ctl, p->key)))
		return; /* removed: its text goes back soon (ipp_apply_off) */
	if (unlikely(p->key == ipp_test_key))
		ipp_test_count(p->key);
	if (unlikely(!t->comm[0])) {
		int saved = errno;

		prctl(PR_GET_NAME, t->comm);
		errno = saved;
	}
	if (rt_bt_hit(p->key, regs, entry, p->is_return))
		return; /* `utrace bt` aggregated it in place: no record */
	rec[0] = 0;
	if (p->is_return) {
		rec[1] = func;
		rec[2] = ret_ip;
	} else {
		rec[1] = regs->r[UTRACE_FR_IP];
	}
	if (likely(p->fast)) /* registers and fields: no interpreter */
		len = utrace_fetch_fast_run(p->fast, regs, entry, (uint8_t *)rec, utrace_fetch_load);
	else
		len = utrace_fetch_run(p->prog, regs, entry, t->comm, (uint8_t *)rec, sizeof(rec),
				       utrace_fetch_load);
	if (unlikely(rt_bt_captures(p->key))) /* a bt action's reads, for the tool */
		len = rt_bt_capture(p->key, regs, entry, p->is_return, rec, len, sizeof(rec));
	if (unlikely(rt_inproc_probe_has_triggers(p->key))) { /* a stacktrace's stack */
		uint64_t pc[UREC_STACK_MAX], slots[UREC_STACK_MAX];
		/* push %rbp (55) or endbr64 (f3 0f 1e fa): at a function's entry
		 * (a return probe's hit is at the return: its frame is gone) */
		bool at_entry = !p->is_return && ((p->orig & 0xff) == 0x55 ||
						  (uint32_t)p->orig == 0xfa1e0ff3u);
		unsigned n = rt_stack_regs(t, regs->r[UTRACE_FR_IP], regs->r[UTRACE_FR_BP],
					   regs->r[UTRACE_FR_SP], at_entry, pc, slots,
					   UREC_STACK_MAX);

		ipp_stack_unhook(pc, slots, n);
		rt_stack_given(pc, n);
		rt_inproc_probe_event_write(p->key, rec, len);
		rt_stack_given(NULL, 0);
		return;
	}
	rt_inproc_probe_event_write(p->key, rec, len);
}

/* A return probe at the entry: hook the return address at regs->sp. */
static void ipp_hook_return(const struct rt_inproc_probe *p, const struct utrace_fetch_regs *regs)
{
	uint64_t *slot = (uint64_t *)(uintptr_t)regs->r[UTRACE_FR_SP];
	struct ipp_stack s;
	uint32_t d;
	struct ipp_ret *rets;

	struct rt_thread *t = rt_ctx(&rt_self);
	uint64_t caller = *slot;

	if (rt_tls_foreign(&rt_self))
		return; /* a clone() thread on its creator's TLS: the list is the creator's */
	s = ipp_stack_of(slot);
	d = *s.depth;
	if (d >= IPP_RET_DEPTH || utrace_ctl_inproc_probe_off(rt.ctl, p->key))
		return; /* too deep: this call is not probed */
	if (!*s.rets && !ipp_rets_map(s.rets))
		return; /* no memory: not probed */
	rets = *s.rets;
	/* function_graph hooked this return first: name its real caller */
	if (rt_is_graph_return(caller) && t && t->depth && t->stack[t->depth - 1].slot == slot)
		caller = t->stack[t->depth - 1].ret;
	/* another return probe of the function hooked it first: its caller */
	if (caller == (uint64_t)(uintptr_t)utrace_inproc_retprobe_tramp && d && rets[d - 1].slot == slot)
		caller = rets[d - 1].caller;
	/* The slot is taken before it is filled: a signal handler that runs
	 * between any two instructions here and hits return probes of its
	 * own pushes above it and pops back to it (as the ring buffer's
	 * nested writers do); filled first, a handler would take the same
	 * index and leave its own frame in ours. */
	__atomic_store_n(s.depth, d + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rets[d] = (struct ipp_ret){*slot,
				   slot,
				   p->func,
				   p,
				   caller,
				   {regs->r[UTRACE_FR_DI], regs->r[UTRACE_FR_SI], regs->r[UTRACE_FR_DX],
				    regs->r[UTRACE_FR_CX], regs->r[UTRACE_FR_R8], regs->r[UTRACE_FR_R9]}};
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the frame before the hook */
	*slot = (uint64_t)(uintptr_t)utrace_inproc_retprobe_tramp;
}

/* The probes at addr, p the first of them in table t (NULL: none). */
static void ipp_fire(const struct utrace_fetch_regs *regs, const struct ipp_table *t,
		     const struct rt_inproc_probe *p, uint64_t addr)
{
	bool on;

	if (!p || unlikely(rt_self.state & RT_TS_OWN))
		return; /* none here, or the runtime's own call (RT_TS_OWN) */
	/* tracing off: only an entry probe's trigger commands (traceon,
	 * a set_ftrace_filter function command) still run */
	on = rt_tracing_on();
	for (; p < t->p + t->n && p->addr == addr; p++) {
		if (unlikely(!on) && (p->is_return || !rt_inproc_probe_has_triggers(p->key)))
			continue;
		if (p->is_return)
			ipp_hook_return(p, regs);
		else
			ipp_record(p, regs, 0, 0, NULL);
	}
}

static void ipp_fire_all(const struct utrace_fetch_regs *regs, uint64_t addr)
{
	const struct ipp_table *t = __atomic_load_n(&rt_ipp_table, __ATOMIC_ACQUIRE);

	ipp_fire(regs, t, rt_ipp_find(t, addr), addr);
}

/* Whether a hit may skip saving the vector registers: the thread has its
 * buffer, or it needs none because every probe at addr (p the first in
 * table t, found once for this and the firing) runs a bt program
 * (bt_probe.c: no record, no libc call that could touch them). */
static bool ipp_fast(const struct ipp_table *t, const struct rt_inproc_probe *p, uint64_t addr)
{
	uint32_t st = rt_self.state & ~(RT_TS_NOTRACE | RT_TS_UNWINDING);

	if (likely(st == RT_TS_READY))
		return true;
	if (st)
		return false;
	for (const struct rt_inproc_probe *q = p; q && q < t->p + t->n && q->addr == addr; q++)
		if (!rt_bt_has(q->key))
			return false;
	return p != NULL;
}

/* The plain hit's record with its fetch-args copied on the stack, then
 * written by rt_event_write: a probe whose copies do not fill its record
 * exactly, or a record rt_event_open refused. */
static __attribute__((noinline)) void ipp_plain_write(const struct rt_inproc_probe *p,
						      const struct utrace_fetch_regs *regs,
						      struct utrace_event_key *k, bool put)
{
	uint64_t rec[UTRACE_FETCH_REC_MAX / 8];
	uint32_t len;

	rec[0] = 0;
	rec[1] = regs->r[UTRACE_FR_IP];
	len = utrace_fetch_fast_run(p->fast, regs, NULL, (uint8_t *)rec, utrace_fetch_load);
	if (put && rt_event_put(&rt_self, k, rec, len))
		return;
	rt_event_write(k, rec, len);
}

/*
 * The common hit in one piece (issue 25): one entry probe at its address
 * (p, the first there), tracing on, the thread's buffer ready, the probe
 * neither off nor counted by a test, its thread named: a bt program takes
 * it; else an event enabled without trigger commands gets the record that
 * ipp_record writes, its fetch-args copied (fetch_fast.h).  The general
 * path made five calls and tested each condition again on the way;
 * anything else (return probes, several probes at one address, triggers,
 * a thread without its buffer, fetch-args the interpreter runs) returns
 * false and takes it.  What the table says (the first four) is p->plain,
 * set when the table is made (ipp_mark_plain).  A record that needs
 * nothing more is fetched straight into the ring between rt_event_open
 * and rt_event_close (IPP_PLAIN_PUT: no copy from the stack), so the
 * fetches run with the thread BUSY, as every record's write does (a
 * signal handler that hits a probe meanwhile writes to a nested context,
 * ring_buffer.c); a fault in one is fixed up inside the read
 * (fetch_fault.c) and gives 0, the record still written.  Anything else
 * goes through rt_event_write from the stack (ipp_plain_write).
 */
static inline __attribute__((always_inline)) bool ipp_plain(const struct utrace_fetch_regs *regs,
							   const struct rt_inproc_probe *p)
{
	uint32_t st = rt_self.state & ~(RT_TS_NOTRACE | RT_TS_UNWINDING);
	struct utrace_event_key *k;
	const struct rt_event_conf *f;
	uintptr_t bt;
	uint32_t *body;
	uint64_t ts;

	if (unlikely(!p || !(p->plain & IPP_PLAIN_BT) || !rt_self.comm[0] || !rt_tracing_on() ||
		     utrace_ctl_inproc_probe_off(rt.ctl, p->key)))
		return false;
	bt = (uintptr_t)__atomic_load_n(&rt_bt_keys[p->key % UTRACE_INPROC_PROBE_MAX],
					__ATOMIC_ACQUIRE);
	if (unlikely(bt) && !(bt & RT_BT_CAPTURE)) /* rt_bt_has: needs no buffer */
		return (st == RT_TS_READY || !st) && rt_bt_hit(p->key, regs, NULL, false);
	if (unlikely(st != RT_TS_READY || !(p->plain & IPP_PLAIN_REC) || bt))
		return false;
	k = &ev_inproc_probe_keys[p->key % UTRACE_INPROC_PROBE_MAX];
	if (!__atomic_load_n(&k->enabled, __ATOMIC_ACQUIRE))
		return true; /* ipp_record would write nothing */
	f = __atomic_load_n(&k->filter, __ATOMIC_ACQUIRE);
	if (unlikely(f && f->nr_trig))
		return false; /* a stacktrace's stack, commands */
	/* nothing but the record: written here, no second look at the rest */
	if (unlikely(f && (f->nr_hist | f->flags | f->len)) || unlikely(rt_self.state != RT_TS_READY)) {
		ipp_plain_write(p, regs, k, false);
		return true;
	}
	if (unlikely(!(p->plain & IPP_PLAIN_PUT)) ||
	    unlikely(!(body = rt_event_open(&rt_self, k, p->fast->fixed, &ts)))) {
		ipp_plain_write(p, regs, k, !(p->plain & IPP_PLAIN_PUT));
		return true;
	}
	__builtin_memcpy(body, &regs->r[UTRACE_FR_IP], 8); /* the record's bytes 8-15 */
	if (p->fast->fixed & 3) /* the last word's bytes past the record are 0 */
		body[(p->fast->fixed - sizeof(struct utrace_trace_entry)) / 4] = 0;
	utrace_fetch_fast_run(p->fast, regs, NULL, (uint8_t *)body - sizeof(struct utrace_trace_entry),
			      utrace_fetch_load);
	rt_event_close(&rt_self, body, p->fast->fixed, ts);
	return true;
}

struct ipp_slow_arg {
	const struct utrace_fetch_regs *regs;
	uint64_t addr;
};

static long ipp_fire_slow(void *a)
{
	const struct ipp_slow_arg *s = a;

	ipp_fire_all(s->regs, s->addr);
	return 0;
}

/*
 * From utrace_inproc_probe_site_tramp: the function has not started.  A site
 * the tracer patched too gets the tracer's entry first, as its own stub
 * would have called it: so the function tracer sees the real caller, and
 * function_graph's hook sits outside a return probe's.
 */
uint64_t rt_inproc_probe_site_hit(struct utrace_fetch_regs *regs, uint32_t k)
{
	const struct ipp_site *s = &ipp_sites[k % IPP_SITES_MAX];
	struct ipp_slow_arg a = {regs, s->addr};
	uint64_t *slot = (uint64_t *)(uintptr_t)regs->r[UTRACE_FR_SP];
	/* whether the tracer traces the site too (rt_ipp_site_retarget) */
	const uint64_t cont = __atomic_load_n(&s->cont, __ATOMIC_ACQUIRE);
	uint64_t args[RT_REG_RDI + 1]; /* the argument registers as the
					* entry trampoline lays them out */
	const struct ipp_table *t;
	const struct rt_inproc_probe *p;

	if (unlikely(cont)) {
		args[RT_REG_RDI] = regs->r[UTRACE_FR_DI];
		args[RT_REG_RSI] = regs->r[UTRACE_FR_SI];
		args[RT_REG_RDX] = regs->r[UTRACE_FR_DX];
		args[RT_REG_RCX] = regs->r[UTRACE_FR_CX];
		args[RT_REG_R8] = regs->r[UTRACE_FR_R8];
		args[RT_REG_R9] = regs->r[UTRACE_FR_R9];
		if (rt.cfg.tracer == UTRACE_TRACER_FUNCTION)
			utrace_func_entry(s->id, *slot, args);
		else
			utrace_graph_entry(s->id, slot, args);
	}
	t = __atomic_load_n(&rt_ipp_table, __ATOMIC_ACQUIRE);
	p = rt_ipp_find(t, s->addr);
	if (likely(ipp_plain(regs, p)))
		return 0;
	/* a thread without its buffer yet may call libc: keep the
	 * program's vector registers (its float arguments) */
	if (ipp_fast(t, p, s->addr))
		ipp_fire(regs, t, p, s->addr);
	else
		utrace_call_preserving_fpu(ipp_fire_slow, &a);
	return 0;
}

/*
 * From utrace_inproc_probe_site_tramp's lean way: regs holds only the
 * caller-saved registers, sp and ip.  The common hit of a lean probe
 * (ipp_plain reads no other word: its copies read only those, a bt
 * program the arguments) is taken here (0); anything else (the tracer's
 * entry first, a probe added since that is not lean, several probes,
 * triggers) is handed over untouched (1) to rt_inproc_probe_site_hit on
 * the whole frame.
 */
uint64_t rt_inproc_probe_site_lean(const struct utrace_fetch_regs *regs, uint32_t k)
{
	const struct ipp_site *s = &ipp_sites[k % IPP_SITES_MAX];
	const struct rt_inproc_probe *p;

	if (unlikely(__atomic_load_n(&s->cont, __ATOMIC_ACQUIRE)))
		return 1;
	p = __atomic_load_n(&s->first, __ATOMIC_ACQUIRE);
	return !(p && p->lean && ipp_plain(regs, p));
}

/* From utrace_inproc_probe_detour_tramp: a jump-optimised probe, mid-function. */
uint64_t rt_inproc_probe_detour_hit(struct utrace_fetch_regs *regs, uint32_t k)
{
	struct ipp_slow_arg a = {regs, ipp_sites[k % IPP_SITES_MAX].addr};
	const struct ipp_table *t = __atomic_load_n(&rt_ipp_table, __ATOMIC_ACQUIRE);
	const struct rt_inproc_probe *p = rt_ipp_find(t, a.addr);

	regs->r[UTRACE_FR_IP] = a.addr;
	if (likely(ipp_plain(regs, p)))
		return 0;
	if (ipp_fast(t, p, a.addr))
		ipp_fire(regs, t, p, a.addr);
	else
		utrace_call_preserving_fpu(ipp_fire_slow, &a);
	return 0;
}

struct ipp_ret_arg {
	const struct utrace_fetch_regs *regs;
	struct ipp_ret r;
};

static long ipp_ret_slow(void *a)
{
	const struct ipp_ret_arg *x = a;

	ipp_record(x->r.p, x->regs, x->r.func, x->r.caller, x->r.args);
	return 0;
}

/*
 * Whether frame f, pushed after the one returning at slot, is dead: on
 * the same program stack below slot (longjmp passed it by).  Stacks
 * utrace was not told of (makecontext not seen: an attached process;
 * coroutines in one heap mapping) are told apart by nothing certain, so
 * there only a frame whose return slot no longer holds our hook is
 * known dead; a live one dropped would end the program.
 */
static bool ipp_dead_above(const struct ipp_ret *f, const uint64_t *slot)
{
	uint64_t v;

	if (!rt_fstack_same(&rt_self, f->slot, slot))
		return false;
	if (rt_fstack_known(f->slot, slot))
		return true;
	return utrace_fetch_load((uint64_t)(uintptr_t)f->slot, 8, &v) != 0 ||
	       v != (uint64_t)(uintptr_t)utrace_inproc_retprobe_tramp;
}

/* The frame hooked at slot, taken off stack s (false: s has none). */
static bool ipp_ret_pop(struct ipp_stack s, const uint64_t *slot, struct ipp_ret *out)
{
	uint32_t d = *s.depth, k = d, n;
	struct ipp_ret *rets = *s.rets;

	/* ours is the newest frame hooked at this slot (one that longjmp
	 * left at the same address is older) */
	while (k > 0 && rets[k - 1].slot != slot)
		k--;
	if (!k--)
		return false;
	*out = rets[k];
	/* Frames above ours: pushed later on this program stack, they were
	 * passed by (longjmp) and are dropped; on another one (a stack
	 * switch in assembly that left them) they are still to return and
	 * stay.  Only indexes below d are written until the depth goes
	 * down, so a handler that interrupts this pushes over none of them. */
	n = k;
	for (uint32_t i = k + 1; i < d; i++)
		if (!ipp_dead_above(&rets[i], slot))
			rets[n++] = rets[i];
	/* read, then let go: a handler from here on pushes over it */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(s.depth, n, __ATOMIC_RELAXED);
	return true;
}

/* From utrace_inproc_retprobe_tramp: the function returned through our hook. */
uint64_t rt_inproc_retprobe_hit(struct utrace_fetch_regs *regs)
{
	uint64_t *slot = (uint64_t *)(uintptr_t)regs->r[UTRACE_FR_SP] - 1;
	struct ipp_ret_arg a = {regs, {0}};
	struct ipp_stack s = ipp_stack_of(slot);

	/* (the thread's: a frame hooked before makecontext named its stack) */
	if (!ipp_ret_pop(s, slot, &a.r) &&
	    (s.depth == &ipp_ret_depth || !ipp_ret_pop(ipp_thread_stack(), slot, &a.r))) {
		rt_log("a return probe lost its frame; the program cannot go on");
		_exit(127);
	}
	regs->r[UTRACE_FR_IP] = a.r.ret;
	if (rt_tracing_on()) {
		uint32_t st = rt_self.state & ~(RT_TS_NOTRACE | RT_TS_UNWINDING);

		if (likely(st == RT_TS_READY) || (!st && rt_bt_has(a.r.p->key)))
			ipp_record(a.r.p, regs, a.r.func, a.r.caller, a.r.args);
		else
			utrace_call_preserving_fpu(ipp_ret_slow, &a);
	}
	return a.r.ret;
}

/*
 * An exception is about to unwind (unwind.c): the unwinder cannot step
 * through utrace_inproc_retprobe_tramp (the real return address is on our
 * stack, which no unwind table describes), so every return this thread
 * hooked gets its real address back, innermost first (two probes on one
 * function hooked one slot twice), and those returns go unprobed.
 */
static void ipp_unhook(struct ipp_stack s)
{
	uint64_t tramp = (uint64_t)(uintptr_t)utrace_inproc_retprobe_tramp;
	struct ipp_ret *rets = *s.rets;

	for (uint32_t d = *s.depth; d-- > 0;)
		if (*rets[d].slot == tramp)
			*rets[d].slot = rets[d].ret;
	*s.depth = 0;
}

/* the thread's frames, and those of the coroutine it unwinds */
static void ipp_unhook_returns(void)
{
	struct ipp_stack s = ipp_stack_of(__builtin_frame_address(0));

	if (rt_tls_foreign(&rt_self))
		return; /* the list is the creator's, whose TLS this thread shares */
	ipp_unhook(ipp_thread_stack());
	if (s.depth != &ipp_ret_depth)
		ipp_unhook(s);
}

/* text_poke.c's SIGTRAP handler: one of our int3s? */
static bool ipp_trap(void *uc_)
{
	ucontext_t *uc = uc_;
	greg_t *g = uc->uc_mcontext.gregs;
	uint64_t addr = (uint64_t)g[REG_RIP] - 1;
	const struct ipp_table *t;
	const struct rt_inproc_probe *p;
	struct utrace_fetch_regs r;

	/* inproc_probe_opt.c: this frame goes to the slot, named before the table
	 * is read (a removal waits for it) */
	rt_ipp_trapping = addr;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t = __atomic_load_n(&rt_ipp_table, __ATOMIC_ACQUIRE);
	p = rt_ipp_find(t, addr);
	if (!p || p->how == UTRACE_IPPH_SITE) {
		rt_ipp_trapping = 0;
		return false;
	}
	r = (struct utrace_fetch_regs){{
	    [UTRACE_FR_R15] = (uint64_t)g[REG_R15], [UTRACE_FR_R14] = (uint64_t)g[REG_R14],
	    [UTRACE_FR_R13] = (uint64_t)g[REG_R13], [UTRACE_FR_R12] = (uint64_t)g[REG_R12],
	    [UTRACE_FR_R11] = (uint64_t)g[REG_R11], [UTRACE_FR_R10] = (uint64_t)g[REG_R10],
	    [UTRACE_FR_R9] = (uint64_t)g[REG_R9],   [UTRACE_FR_R8] = (uint64_t)g[REG_R8],
	    [UTRACE_FR_BX] = (uint64_t)g[REG_RBX],  [UTRACE_FR_CX] = (uint64_t)g[REG_RCX],
	    [UTRACE_FR_DX] = (uint64_t)g[REG_RDX],  [UTRACE_FR_SI] = (uint64_t)g[REG_RSI],
	    [UTRACE_FR_DI] = (uint64_t)g[REG_RDI],  [UTRACE_FR_BP] = (uint64_t)g[REG_RBP],
	    [UTRACE_FR_AX] = (uint64_t)g[REG_RAX],  [UTRACE_FR_IP] = addr,
	    [UTRACE_FR_CS] = 0x33,		    [UTRACE_FR_FLAGS] = (uint64_t)g[REG_EFL],
	    [UTRACE_FR_SP] = (uint64_t)g[REG_RSP],  [UTRACE_FR_SS] = 0x2b}};
	ipp_fire_all(&r, addr); /* may hook the return address at RSP */
	if (p->call_to) {
		g[REG_RSP] -= 8;
		*(uint64_t *)(uintptr_t)g[REG_RSP] = addr + p->insn_len;
		g[REG_RIP] = (greg_t)p->call_to;
	} else {
		g[REG_RIP] = (greg_t)p->resume;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the RIP before the name goes */
	rt_ipp_trapping = 0;
	return true;
}

/* A fork()ed child has one thread: a lock its parent's helper held is free. */
static void ipp_child(void)
{
	pthread_mutex_init(&rt_ipp_lock, NULL);
}

void rt_ipp_install_handlers(void)
{
	if (ipp_installed)
		return;
	pthread_atfork(NULL, NULL, ipp_child);
	rt_fetch_fault_install();
	rt_text_poke_trap_hook(ipp_trap);
	if (getenv("UTRACE_KPROBE_TEST_OFF") &&
	    sscanf(getenv("UTRACE_KPROBE_TEST_OFF"), "%u:%u", &ipp_test_key, &ipp_test_left) != 2)
		ipp_test_key = UINT32_MAX;
	rt_unwind_unhook_more = ipp_unhook_returns;
	ipp_installed = true;
}

/* ---- registration ------------------------------------------------------ */

/* A thread that called the slot before the site was restored still
 * finds its tracer stub (cont, id); addr 0 matches no probe. */
void rt_ipp_site_forget(uint64_t addr)
{
	for (uint32_t k = 0; k < ipp_nr_sites; k++)
		if (ipp_sites[k].addr == addr) {
			__atomic_store_n(&rt_ipp_site_jit[k], NULL, __ATOMIC_RELAXED);
			__atomic_store_n(&ipp_sites[k].first, NULL, __ATOMIC_RELAXED);
			__atomic_store_n(&ipp_sites[k].addr, 0, __ATOMIC_RELAXED);
		}
}

bool rt_ipp_site_retarget(uint64_t site, uint64_t stub)
{
	uint32_t n = __atomic_load_n(&ipp_nr_sites, __ATOMIC_ACQUIRE);

	for (uint32_t k = 0; k < n; k++)
		if (__atomic_load_n(&ipp_sites[k].addr, __ATOMIC_RELAXED) == site) {
			__atomic_store_n(&ipp_sites[k].cont, stub, __ATOMIC_RELEASE);
			return true;
		}
	return false;
}

/* The slot of a site probe: `push $k; jmp *0(%rip); .quad tramp`. */
static int ipp_site_slot(struct ipp_batch *b, uint8_t *slot, uint64_t site, uint32_t id)
{
	const uint8_t *s = (const uint8_t *)(uintptr_t)site;
	uint64_t tramp = (uint64_t)(uintptr_t)utrace_inproc_probe_site_tramp;
	uint32_t k;
	int32_t rel;

	for (k = 0; k < ipp_nr_sites; k++)
		if (ipp_sites[k].addr == site)
			return 0; /* its slot is there already */
	if (ipp_nr_sites >= IPP_SITES_MAX || !(insn_is_nop5(s) || s[0] == INSN_CALL))
		return -1;
	ipp_sites[k].addr = site;
	ipp_sites[k].id = id;
	if (s[0] == INSN_CALL) { /* the tracer's: its entry is called first */
		memcpy(&rel, s + 1, 4);
		ipp_sites[k].cont = site + 5 + (uint64_t)(int64_t)rel;
	}
	ipp_nr_sites++;
	slot[0] = INSN_PUSH_IMM32;
	memcpy(slot + 1, &k, 4);
	insn_make_farjmp(slot + 5, tramp);
	b->sites[b->nsites].addr = (uint8_t *)(uintptr_t)site;
	insn_rel32(b->sites[b->nsites].bytes, INSN_CALL, site, (uint64_t)(uintptr_t)slot);
	b->nsites++;
	return 0;
}

/*
 * A jump-optimised probe's detour head (common/proto.h): below the red
 * zone, push k, call the trampoline (which saves everything), back above
 * it; then the tool's tail.  The probed instruction becomes `jmp slot`
 * (*jmp, to write now or once inproc_probe_opt.c proves it safe).
 */
static int ipp_detour_head(struct rt_poke *jmp, uint8_t *slot, uint64_t addr)
{
	static const uint8_t below[5] = {0x48, 0x8d, 0x64, 0x24, 0x80}; /* lea -128(%rsp),%rsp */
	static const uint8_t above[8] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0};
	uint64_t tramp = (uint64_t)(uintptr_t)utrace_inproc_probe_detour_tramp;
	int32_t rel = UTRACE_INPROC_PROBE_SLOT - 8 - 16; /* from the call's end to the pointer */
	uint32_t k = ipp_nr_sites;

	if (k >= IPP_SITES_MAX)
		return -1;
	ipp_sites[ipp_nr_sites++].addr = addr;
	memcpy(slot, below, 5);
	slot[5] = INSN_PUSH_IMM32;
	memcpy(slot + 6, &k, 4);
	slot[10] = 0xff; /* call *rel(%rip) */
	slot[11] = 0x15;
	memcpy(slot + 12, &rel, 4);
	memcpy(slot + 16, above, 8);
	memcpy(slot + UTRACE_INPROC_PROBE_SLOT - 8, &tramp, 8);
	jmp->addr = (uint8_t *)(uintptr_t)addr;
	insn_rel32(jmp->bytes, INSN_JMP, addr, (uint64_t)(uintptr_t)slot);
	return 0;
}

/* A jmp probe: its detour, and its jmp written with the batch if this
 * is the only thread, else an int3 first and the jmp queued.  With the
 * kprobes-optimization switch at 0 (inproc_probe_state.c) it is an int3
 * that resumes in the detour's tail; the head is written all the same,
 * for the switch turned on again. */
static void ipp_take_jmp(struct ipp_batch *b, struct rt_inproc_probe *p, uint8_t *slot,
			 const struct utrace_msg_inproc_probe *m)
{
	bool opt = rt_inproc_probe_optimize();
	struct rt_poke jmp;

	if (opt && b->alone && ipp_detour_head(&b->sites[b->nsites], slot, m->addr) == 0) {
		b->nsites++;
		p->detour = 1;
		return;
	}
	b->int3[b->nint3++] = (uint8_t *)(uintptr_t)m->addr;
	if (!opt || b->alone) {
		p->detour = !opt && ipp_detour_head(&jmp, slot, m->addr) == 0;
	} else if (ipp_detour_head(&b->opt[b->nopt], slot, m->addr) == 0) {
		b->opt_hi[b->nopt++] = m->addr + m->insn_len;
		p->detour = 1;
	}
}

/* A checked program's copies (common/fetch_fast.h), or NULL: interpreted. */
static const struct utrace_fetch_fast *ipp_fast_of(const void *prog)
{
	struct utrace_fetch_fast *f = malloc(sizeof(*f));

	if (f && utrace_fetch_fast_of(prog, f) < 0) {
		free(f);
		f = NULL;
	}
	return f;
}

/* One INPROC_PROBE of obj: checked, its slot written, added to the batch. */
int rt_ipp_take(struct ipp_batch *b, const struct rt_object *o, uint8_t *area,
		   const struct utrace_msg_inproc_probe *m, uint32_t size)
{
	const struct rt_inproc_probe *q;
	struct rt_inproc_probe *p;
	uint64_t orig;
	void *prog;

	if (size < sizeof(*m) + UTRACE_INPROC_PROBE_XOL + m->prog_len || m->xol_len > UTRACE_INPROC_PROBE_XOL ||
	    m->slot + UTRACE_INPROC_PROBE_SLOT > UTRACE_INPROC_PROBE_AREA || !area || m->addr < o->lo ||
	    m->addr >= o->hi || m->key >= UTRACE_INPROC_PROBE_MAX)
		return -1;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct rt_inproc_probe *np = realloc(b->p, cap * sizeof(*np));
		uint8_t **ni = realloc(b->int3, cap * sizeof(*ni));
		struct rt_poke *ns = realloc(b->sites, cap * sizeof(*ns));
		struct rt_poke *no = realloc(b->opt, cap * sizeof(*no));
		uint64_t *nh = realloc(b->opt_hi, cap * sizeof(*nh));

		b->p = np ? np : b->p;
		b->int3 = ni ? ni : b->int3;
		b->sites = ns ? ns : b->sites;
		b->opt = no ? no : b->opt;
		b->opt_hi = nh ? nh : b->opt_hi;
		if (!np || !ni || !ns || !no || !nh)
			return -1;
		b->cap = cap;
	}
	if (utrace_ctl_inproc_probe_off(rt.ctl, m->key))
		return 0; /* removed before this object came */
	if (utrace_fetch_load(m->addr, 8, &orig) < 0) /* before any of the batch's pokes */
		return -1;
	/* one there already has the program's bytes (the text: its int3) */
	if ((q = rt_ipp_find(rt_ipp_table, m->addr)))
		orig = q->orig;
	prog = aligned_alloc(8, (m->prog_len + 7) & ~7u);
	if (!prog)
		return -1;
	memcpy(prog, m->data + UTRACE_INPROC_PROBE_XOL, m->prog_len);
	if (utrace_fetch_check(prog, m->prog_len) < 0) {
		free(prog);
		rt_log("a probe from the recorder is malformed; it stays off");
		return 0;
	}
	p = &b->p[b->n];
	*p = (struct rt_inproc_probe){m->addr, m->func, (uint64_t)(uintptr_t)(area + m->slot), orig,
				(uint64_t)(uintptr_t)(area + m->slot), m->call_to, m->insn_len,
				m->key, m->is_return, m->how, prog, ipp_fast_of(prog), 0, 0, 0};
	p->lean = m->how == UTRACE_IPPH_SITE && !m->is_return && p->fast &&
		  !(utrace_fetch_fast_regs(p->fast) & ~IPP_LEAN_REGS);
	if (m->how == UTRACE_IPPH_SITE) {
		if (m->site >= o->nr_sites ||
		    ipp_site_slot(b, area + m->slot, m->addr, o->id_base + m->site) < 0)
			return 0;
	} else if (m->how == UTRACE_IPPH_JMP) {
		uint8_t *slot = area + m->slot;

		if (m->insn_len < 5 || m->xol_len + UTRACE_INPROC_PROBE_DETOUR_HEAD > UTRACE_INPROC_PROBE_SLOT - 8)
			return -1;
		memcpy(slot + UTRACE_INPROC_PROBE_DETOUR_HEAD, m->data, m->xol_len);
		p->resume = (uint64_t)(uintptr_t)(slot + UTRACE_INPROC_PROBE_DETOUR_HEAD);
		ipp_take_jmp(b, p, slot, m);
	} else {
		memcpy(area + m->slot, m->data, m->xol_len);
		if (!rt_ipp_find(rt_ipp_table, m->addr))
			b->int3[b->nint3++] = (uint8_t *)(uintptr_t)m->addr;
	}
	b->n++;
	return 0;
}

static int ipp_cmp(const void *x, const void *y)
{
	const struct rt_inproc_probe *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Whether every probe at addr in t is lean (none: not). */
static bool ipp_all_lean(const struct ipp_table *t, uint64_t addr)
{
	const struct rt_inproc_probe *p = rt_ipp_find(t, addr);

	for (const struct rt_inproc_probe *q = p; q && q < t->p + t->n && q->addr == addr; q++)
		if (!q->lean)
			return false;
	return p != NULL;
}

/* The sites' ways for table t: a site that turns full before t is
 * published, one that turns lean after (pub: which of the two). */
static void ipp_sites_lean(const struct ipp_table *t, bool pub)
{
	for (uint32_t k = 0; k < ipp_nr_sites; k++) {
		bool lean = ipp_all_lean(t, ipp_sites[k].addr);

		if (lean == pub)
			__atomic_store_n(&rt_ipp_site_lean[k], lean, __ATOMIC_RELAXED);
	}
}

/* Whether f's copies fill its record past the ip (bytes 16 to fixed)
 * exactly, each once: then they may go straight into the ring. */
static bool ipp_fills(const struct utrace_fetch_fast *f)
{
	uint32_t sum = 0;

	if (f->fixed < 16 || f->fixed - sizeof(struct utrace_trace_entry) > 0xffff)
		return false;
	for (uint32_t i = 0; i < f->n; i++) {
		const struct utrace_fetch_farg *a = &f->a[i];

		if (a->dst < 16 || a->dst + a->size > f->fixed)
			return false;
		for (uint32_t j = 0; j < i; j++)
			if (a->dst < f->a[j].dst + f->a[j].size && f->a[j].dst < a->dst + a->size)
				return false;
		sum += a->size;
	}
	return sum == f->fixed - 16;
}

/* Each site's first probe in table t, once t is published: a hit that
 * still finds the table before (the old one is never freed) fires as it
 * would have a moment earlier; a probe removed since is off (ipp_plain's
 * check). */
static void ipp_sites_first(const struct ipp_table *t)
{
	for (uint32_t k = 0; k < ipp_nr_sites; k++)
		__atomic_store_n(&ipp_sites[k].first,
				 ipp_sites[k].addr ? rt_ipp_find(t, ipp_sites[k].addr) : NULL,
				 __ATOMIC_RELEASE);
}

/* Each site's stub for its first probe (inproc_probe_jit.c), once the
 * table is published and the sites' first probes set. */
static void ipp_sites_jit(void)
{
	static struct rt_ipp_jit_site sites[IPP_SITES_MAX]; /* rt_ipp_lock held */

	for (uint32_t k = 0; k < ipp_nr_sites; k++)
		sites[k] = (struct rt_ipp_jit_site){k, &ipp_sites[k].cont,
						    ipp_sites[k].addr ? ipp_sites[k].first : NULL};
	rt_ipp_jit_build(sites, ipp_nr_sites);
}

/* Each probe's plain bits in table t, before t is published. */
static void ipp_mark_plain(struct ipp_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct rt_inproc_probe *p = &t->p[i];
		bool alone = (!i || p[-1].addr != p->addr) && (i + 1 == t->n || p[1].addr != p->addr);

		p->plain = 0;
		if (!alone || p->is_return || p->key == ipp_test_key)
			continue;
		p->plain = IPP_PLAIN_BT;
		if (p->fast)
			p->plain |= IPP_PLAIN_REC | (ipp_fills(p->fast) ? IPP_PLAIN_PUT : 0);
	}
}

/* Table t, made under rt_ipp_lock, the one hits read: its plain bits,
 * then the release store, then the sites' first probes. */
void rt_ipp_table_set(struct ipp_table *t)
{
	ipp_mark_plain(t);
	__atomic_store_n(&rt_ipp_table, t, __ATOMIC_RELEASE);
	ipp_sites_first(t);
	ipp_sites_jit();
}

/* The old table and the batch, sorted, published (the old one is kept:
 * a trap handler may still be reading it). */
static int ipp_publish(const struct ipp_batch *b)
{
	const struct ipp_table *old = rt_ipp_table;
	size_t n = (old ? old->n : 0) + b->n;
	struct ipp_table *t = malloc(sizeof(*t) + n * sizeof(t->p[0]));

	if (!t)
		return -ENOMEM;
	t->n = n;
	if (old)
		memcpy(t->p, old->p, old->n * sizeof(t->p[0]));
	memcpy(t->p + (old ? old->n : 0), b->p, b->n * sizeof(t->p[0]));
	qsort(t->p, n, sizeof(t->p[0]), ipp_cmp);
	ipp_mark_plain(t);
	ipp_sites_lean(t, false);
	__atomic_store_n(&rt_ipp_table, t, __ATOMIC_RELEASE);
	ipp_sites_first(t);
	ipp_sites_lean(t, true);
	ipp_sites_jit();
	return 0;
}

/* An object unloaded by dlclose (ftrace.c holds the objects lock): its
 * probes go, so that the same addresses loaded again get theirs anew.
 * The old table stays readable, as in ipp_publish. */
void rt_inproc_probes_forget(uint64_t lo, uint64_t hi)
{
	const struct ipp_table *old;
	struct ipp_table *t;
	size_t n = 0;

	rt_inproc_probe_opt_forget(lo, hi);
	pthread_mutex_lock(&rt_ipp_lock);
	old = rt_ipp_table;
	for (uint32_t k = 0; k < ipp_nr_sites; k++)
		if (ipp_sites[k].addr >= lo && ipp_sites[k].addr < hi)
			ipp_sites[k].addr = 0; /* its slot is never called again */
	if (old && (t = malloc(sizeof(*t) + old->n * sizeof(t->p[0])))) {
		for (size_t i = 0; i < old->n; i++)
			if (old->p[i].addr < lo || old->p[i].addr >= hi)
				t->p[n++] = old->p[i];
		t->n = n;
		rt_ipp_table_set(t);
	}
	pthread_mutex_unlock(&rt_ipp_lock);
}

/* A batch in place (rt_ipp_lock and the objects lock held): the table
 * first, then the int3s, then the sites, then the jmps that wait for the
 * other threads. */
int rt_ipp_commit(struct ipp_batch *b)
{
	uint8_t *cc = NULL;
	int ret;

	if (!b->n)
		return 0;
	ret = ipp_publish(b);
	if (ret >= 0 && b->nint3 && (cc = malloc(b->nint3))) {
		memset(cc, INSN_INT3, b->nint3);
		ret = rt_text_poke_bytes(b->int3, cc, b->nint3);
	}
	if (ret >= 0)
		ret = rt_text_poke_batch(b->sites, b->nsites);
	if (ret >= 0)
		rt_inproc_probe_opt_queue(b->opt, b->opt_hi, b->nopt);
	free(cc);
	return ret;
}

void rt_ipp_batch_free(struct ipp_batch *b)
{
	free(b->opt);
	free(b->opt_hi);
	free(b->p);
	free(b->int3);
	free(b->sites);
	memset(b, 0, sizeof(*b));
}
