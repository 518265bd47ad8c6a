/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_jit.c - a call-site probe's common hit compiled to machine
 * code (issue 25: a probe hit near its floor, as bpftrace's BPF programs
 * are compiled by the kernel's JIT).
 *
 * The lean way (arch/x86_64/inproc_probe.S, inproc_probes.c's ipp_plain)
 * saves nine registers, calls C, which looks the probe up, checks a dozen
 * things and runs the fetch-args' copies in a loop (common/fetch_fast.h):
 * two to three times the cost of the clock read and the record's write it
 * exists for; a probe mid-function (a jmp to a detour) saves every
 * register, searches the table, then does the same.  Here each site whose
 * probe is plain (an entry probe alone at its address, its copies filling
 * its record exactly: IPP_PLAIN_*), at a call site or a detour, gets a
 * stub made for it when its table is published, with everything the
 * table fixes baked in: the key, the record's length and header, the
 * probe's address, each copy's register, offset, load size, shifts and
 * place in the record.  It reads the registers where they are (live, or
 * in the frame for the five it uses itself).
 *
 *   site: call slot --> slot: push $k; jmp *tramp
 *                       tramp: rax, rcx saved; rt_ipp_site_jit[k]?
 *                              |  no: the lean or the full way, as before
 *                              v  yes: jmp stub
 *   stub: rdx, r10, r11 saved; the checks that change at run time
 *         (not retargeted to a tracer, thread named, tracing on, probe
 *         not off; a bt program: see below; thread ready, event
 *         enabled, no filter)
 *         -> any fails: back into tramp's own way (the "nojit" label),
 *            with every register as it came (the flags are dead at a
 *            function's entry, as the lean way's handover leaves them;
 *            a detour's are in the word its trampoline saved)
 *       | BUSY; rdtsc; CPU (rseq); the room, the delta, the CPU checked
 *       |   (any fails: BUSY off, back as above: ev_write_words's way)
 *       | the header words; the ip; each copy straight into the ring,
 *       |   a memory read through utrace_jit_load<N> (below)
 *       | commit (wp, last_ts, written, the sub-buffer's commit: release
 *       |   by x86's store order), BUSY off; registers back; ret over k
 *
 * A probe with a bt program (rt_bt_keys, set at any time) takes it there
 * instead, as ipp_plain does: the argument registers stored, the stack
 * aligned, rt_bt_hit_lean called (utrace bt's count(), hist() ... of
 * arguments: the lean way's C and its table search skipped), the whole
 * frame filled for rt_bt_hit only when the program needs it.
 *
 * A detour's stub is entered the same way from the detour trampoline,
 * the flags saved in lahf's form in the word above the frame: it reads
 * them from there, the program's rsp above the red zone the detour
 * stepped over, and returns with them put back by sahf, `ret $8`, or back
 * into its own way (utrace_inproc_probe_detour_nojit).
 *
 * So the hit does what rt_event_open, utrace_fetch_fast_run and
 * rt_event_close do, in the same order, with the same stores: the record
 * is the one the C way writes (tests/e2e/t/probes-jit.sh compares them
 * with UTRACE_PROBE_JIT=0, which turns this file off).
 *
 * Addresses: the stubs live in their own pages, anywhere (the trampoline
 * jumps through a register); the runtime's variables are reached from one
 * base register (r11 = &rt) with 32-bit displacements (one object, so
 * within reach); the thread's own state through %fs (rt_self is
 * initial-exec TLS: one offset from the thread pointer for every thread).
 * A memory read calls a helper in the runtime's text, whose one load
 * instruction fetch_fault.c recognises, as utrace_fetch_load's: a fault
 * gives 0, as the C way's.
 *
 * Lifetime: a table's stubs are written into fresh pages, made read and
 * execute, then published with release stores; a thread may still run an
 * old stub, so pages are never unmapped (as old tables are never freed).
 * A stub holds no pointer into a table: an old one fires as its probe
 * did a moment earlier, and a probe removed is stopped by its off bit.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/fetch_fast.h"
#include "common/proto.h"
#include "common/rb_abi.h"
#include "common/record.h"
#include "runtime/inproc_probe_internal.h"
#include "runtime/rt.h"
#include "runtime/trace_events.h"

void *rt_ipp_site_jit[IPP_SITES_MAX] RT_HIDDEN;

/* arch/x86_64/inproc_probe.S: where a stub goes back when it does not
 * take the hit, and the loads (value in rax, rax out, 0 on a fault) */
extern const char utrace_inproc_probe_site_nojit[] RT_HIDDEN;
extern const char utrace_inproc_probe_detour_nojit[] RT_HIDDEN;
void utrace_jit_load1(void) RT_HIDDEN;
void utrace_jit_load2(void) RT_HIDDEN;
void utrace_jit_load4(void) RT_HIDDEN;
void utrace_jit_load8(void) RT_HIDDEN;
static void (*const jit_loads[4])(void) = {utrace_jit_load1, utrace_jit_load2, utrace_jit_load4,
					   utrace_jit_load8};

#define JIT_STUB_MAX 2048 /* bytes of one stub at most: 16 copies of the longest form
			   * (45 bytes each) and the bt way fit, with room */

/* The trampoline's frame: struct utrace_fetch_regs, register r at 8 * r
 * (the word after it is k, then the return into the function) */
#define FR_SIZE ((int32_t)sizeof(struct utrace_fetch_regs))
_Static_assert(offsetof(struct utrace_fetch_regs, r) == 0, "the frame is the registers");

/* One stub being written: out of room (or an offset out of reach) is bad. */
struct jit {
	uint8_t *p, *end;
	bool bad;
	uint8_t *to_fallback[24], *to_unbusy[8], *to_done[6], *to_bt[2];
	unsigned nf, nu, nd, nb;
};

static void j_raw(struct jit *j, const void *b, size_t n)
{
	if (j->bad || (size_t)(j->end - j->p) < n) {
		j->bad = true;
		return;
	}
	memcpy(j->p, b, n);
	j->p += n;
}

#define J(j, ...)                                                                                  \
	do {                                                                                       \
		const uint8_t _b[] = {__VA_ARGS__};                                                \
		j_raw(j, _b, sizeof(_b));                                                          \
	} while (0)

static void j_u32(struct jit *j, uint32_t v)
{
	j_raw(j, &v, 4);
}

static void j_u64(struct jit *j, uint64_t v)
{
	j_raw(j, &v, 8);
}

/* A jcc rel32 (cc 0: a jmp) to a label bound later: its displacement's
 * place kept. */
static void j_jcc(struct jit *j, uint8_t cc, uint8_t **list, unsigned *n, unsigned max)
{
	if (cc)
		J(j, 0x0f, cc);
	else
		J(j, 0xe9);
	if (*n >= max)
		j->bad = true;
	else if (!j->bad)
		list[(*n)++] = j->p;
	j_u32(j, 0);
}

static void j_bind(struct jit *j, uint8_t **list, unsigned n)
{
	for (unsigned i = 0; i < n && !j->bad; i++) {
		int32_t d = (int32_t)(j->p - (list[i] + 4));

		memcpy(list[i], &d, 4);
	}
}

#define JCC_JB 0x82
#define JCC_JE 0x84
#define JCC_JNE 0x85
#define JMP 0
#define to_fallback(j, cc) j_jcc(j, cc, (j)->to_fallback, &(j)->nf, 24)
#define to_unbusy(j, cc) j_jcc(j, cc, (j)->to_unbusy, &(j)->nu, 8)
#define to_done(j, cc) j_jcc(j, cc, (j)->to_done, &(j)->nd, 6)
#define to_bt(j, cc) j_jcc(j, cc, (j)->to_bt, &(j)->nb, 2)

/* What the generator needs of the process, found once. */
struct jit_env {
	uint64_t anchor; /* &rt: r11 in a stub */
	int64_t tls;	 /* &rt_self less the thread pointer */
};

/* addr as a displacement from r11, or bad */
static int32_t j_rel(struct jit *j, const struct jit_env *e, const void *addr)
{
	int64_t d = (int64_t)((uint64_t)(uintptr_t)addr - e->anchor);

	if (d != (int32_t)d)
		j->bad = true;
	return (int32_t)d;
}

/* a field of rt_self as a %fs displacement */
static int32_t j_tls(struct jit *j, const struct jit_env *e, size_t off)
{
	int64_t d = e->tls + (int64_t)off;

	if (d != (int32_t)d)
		j->bad = true;
	return (int32_t)d;
}

#define TLS(j, e, f) j_tls(j, e, offsetof(struct rt_thread, f))

/* The checks that may change while the stub exists, as ipp_plain's: a
 * bt program's probe goes on at the bt label (j_bt). */
static void j_checks(struct jit *j, const struct jit_env *e, const struct rt_inproc_probe *p,
		     const uint64_t *cont)
{
	uint32_t key = p->key % UTRACE_INPROC_PROBE_MAX;
	const struct utrace_event_key *k = &ev_inproc_probe_keys[key];

	J(j, 0x49, 0x83, 0xbb); /* cmpq $0, site->cont(%r11): a tracer's stub */
	j_u32(j, (uint32_t)j_rel(j, e, cont));
	J(j, 0x00);
	to_fallback(j, JCC_JNE);
	J(j, 0x64, 0x80, 0x3c, 0x25); /* cmpb $0, %fs:comm */
	j_u32(j, (uint32_t)TLS(j, e, comm));
	J(j, 0x00);
	to_fallback(j, JCC_JE);
	J(j, 0x41, 0x83, 0xbb); /* cmpl $0, rt.enabled(%r11) */
	j_u32(j, (uint32_t)j_rel(j, e, (const void *)&rt.enabled));
	J(j, 0x00);
	to_fallback(j, JCC_JE);
	J(j, 0x49, 0x8b, 0x83); /* mov rt.ctl(%r11), %rax */
	j_u32(j, (uint32_t)j_rel(j, e, &rt.ctl));
	J(j, 0x83, 0xb8); /* cmpl $0, tracing_on(%rax) */
	j_u32(j, (uint32_t)offsetof(struct utrace_control, tracing_on));
	J(j, 0x00);
	to_fallback(j, JCC_JE);
	J(j, 0xf7, 0x80); /* testl $bit, ipp_off[key / 32](%rax) */
	j_u32(j, (uint32_t)(offsetof(struct utrace_control, ipp_off) + 4 * (p->key / 32)));
	j_u32(j, 1u << (p->key % 32));
	to_fallback(j, JCC_JNE);
	J(j, 0x49, 0x8b, 0x83); /* mov rt_bt_keys[key](%r11), %rax */
	j_u32(j, (uint32_t)j_rel(j, e, &rt_bt_keys[key]));
	J(j, 0x48, 0x85, 0xc0); /* test %rax, %rax */
	to_bt(j, JCC_JNE);
	J(j, 0x64, 0x81, 0x3c, 0x25); /* cmpl $READY, %fs:state */
	j_u32(j, (uint32_t)TLS(j, e, state));
	j_u32(j, RT_TS_READY);
	to_fallback(j, JCC_JNE);
	J(j, 0x41, 0x83, 0xbb); /* cmpl $0, key->enabled(%r11): off, nothing */
	j_u32(j, (uint32_t)j_rel(j, e, (const void *)&k->enabled));
	J(j, 0x00);
	to_done(j, JCC_JE);
	J(j, 0x49, 0x83, 0xbb); /* cmpq $0, key->filter(%r11) */
	j_u32(j, (uint32_t)j_rel(j, e, &k->filter));
	J(j, 0x00);
	to_fallback(j, JCC_JNE);
}

/* rt_event_open: BUSY, the clock (rdx), the CPU, the checks, the header;
 * rcx = the record's first word, eax = the delta on the way out. */
static void j_open(struct jit *j, const struct jit_env *e, const struct rt_inproc_probe *p)
{
	uint32_t bytes = p->fast->fixed - (uint32_t)sizeof(struct utrace_trace_entry);
	uint32_t n = (bytes + 3) / 4;

	J(j, 0x64, 0x81, 0x0c, 0x25); /* orl $BUSY, %fs:state */
	j_u32(j, (uint32_t)TLS(j, e, state));
	j_u32(j, RT_TS_BUSY);
	J(j, 0x0f, 0x31);		    /* rdtsc */
	J(j, 0x48, 0xc1, 0xe2, 0x20);	    /* shl $32, %rdx */
	J(j, 0x48, 0x09, 0xc2);		    /* or %rax, %rdx: the clock */
	J(j, 0x49, 0x8b, 0x8b);		    /* mov rt_rseq_cpu(%r11), %rcx */
	j_u32(j, (uint32_t)j_rel(j, e, &rt_rseq_cpu));
	J(j, 0x31, 0xc0,		    /* xor %eax, %eax */
	  0x48, 0x85, 0xc9,		    /* test %rcx, %rcx */
	  0x74, 0x09,			    /* je 1f */
	  0x64, 0x8b, 0x01,		    /* mov %fs:(%rcx), %eax */
	  0x85, 0xc0,			    /* test %eax, %eax */
	  0x79, 0x02,			    /* jns 1f */
	  0x31, 0xc0);			    /* xor %eax, %eax (not registered) */
	J(j, 0x64, 0x3b, 0x04, 0x25);	    /* 1: cmp %fs:cpu, %eax */
	j_u32(j, (uint32_t)TLS(j, e, cpu));
	to_unbusy(j, JCC_JNE);
	J(j, 0x48, 0x89, 0xd0);		    /* mov %rdx, %rax */
	J(j, 0x64, 0x48, 0x2b, 0x04, 0x25); /* sub %fs:last_ts, %rax */
	j_u32(j, (uint32_t)TLS(j, e, last_ts));
	J(j, 0x48, 0x89, 0xc1);		    /* mov %rax, %rcx */
	J(j, 0x48, 0xc1, 0xe9, 0x20);	    /* shr $32, %rcx */
	to_unbusy(j, JCC_JNE);
	J(j, 0x64, 0x48, 0x8b, 0x0c, 0x25); /* mov %fs:wp, %rcx */
	j_u32(j, (uint32_t)TLS(j, e, wp));
	J(j, 0x64, 0x4c, 0x8b, 0x14, 0x25); /* mov %fs:end, %r10 */
	j_u32(j, (uint32_t)TLS(j, e, end));
	J(j, 0x49, 0x29, 0xca);		    /* sub %rcx, %r10 */
	J(j, 0x49, 0x81, 0xfa);		    /* cmp $room, %r10 */
	j_u32(j, 4 * (n + 3));
	to_unbusy(j, JCC_JB);
	J(j, 0xc7, 0x01); /* movl $header, (%rcx) */
	j_u32(j, urec_ext(UEXT_EVENT, n));
	J(j, 0x89, 0x41, 0x04);	      /* mov %eax, 4(%rcx): the delta */
	J(j, 0x45, 0x8b, 0x93);	      /* mov key->id(%r11), %r10d */
	j_u32(j, (uint32_t)j_rel(j, e, &ev_inproc_probe_keys[p->key % UTRACE_INPROC_PROBE_MAX].id));
	J(j, 0x41, 0x81, 0xca);	      /* or $bytes << 16, %r10d */
	j_u32(j, bytes << 16);
	J(j, 0x44, 0x89, 0x51, 0x08); /* mov %r10d, 8(%rcx) */
	J(j, 0x48, 0xb8);	      /* movabs $site, %rax */
	j_u64(j, p->addr);
	J(j, 0x48, 0x89, 0x41, 0x0c); /* mov %rax, 12(%rcx): the record's ip */
	if (bytes & 3) {	      /* the last word's bytes past the record are 0 */
		J(j, 0xc7, 0x81);     /* movl $0, last(%rcx) */
		j_u32(j, 12 + 4 * (n - 1));
		j_u32(j, 0);
	}
}

/* What differs between a call site's stub and a detour's: the frame
 * above the registers, what the stub may read, how it returns. */
struct jit_way {
	bool detour;	   /* mid-function: the flags saved first, all live */
	int32_t sp;	   /* the program's rsp, from the stub's */
	const void *back;  /* the trampoline's own way on */
};

/* x86's number of each register the stubs read live (-1: in the frame
 * or not a general register) */
static int j_live(uint32_t reg)
{
	static const int8_t nr[UTRACE_FR_MAX] = {
		[UTRACE_FR_R15] = 15, [UTRACE_FR_R14] = 14, [UTRACE_FR_R13] = 13, [UTRACE_FR_R12] = 12,
		[UTRACE_FR_R11] = -1, [UTRACE_FR_R10] = -1, [UTRACE_FR_R9] = 9,   [UTRACE_FR_R8] = 8,
		[UTRACE_FR_BX] = 3,   [UTRACE_FR_CX] = -1,  [UTRACE_FR_DX] = -1,  [UTRACE_FR_SI] = 6,
		[UTRACE_FR_DI] = 7,   [UTRACE_FR_BP] = 5,   [UTRACE_FR_AX] = -1,  [UTRACE_FR_ORIG_AX] = -1,
		[UTRACE_FR_IP] = -1,  [UTRACE_FR_CS] = -1,  [UTRACE_FR_FLAGS] = -1, [UTRACE_FR_SP] = -1,
		[UTRACE_FR_SS] = -1};

	return reg < UTRACE_FR_MAX ? nr[reg] : -1;
}

/* the registers the stub saves in the frame itself (rax, rcx: the trampoline) */
static bool j_framed(uint32_t reg)
{
	return reg == UTRACE_FR_AX || reg == UTRACE_FR_CX || reg == UTRACE_FR_DX ||
	       reg == UTRACE_FR_R10 || reg == UTRACE_FR_R11;
}

/* A detour's flags back from the lahf form of their word above the
 * frame (arch/x86_64/inproc_probe.S), into the flags register (rax: the
 * word). */
static void j_sahf(struct jit *j)
{
	J(j, 0x48, 0x8b, 0x84, 0x24); /* mov the flags' word, %rax */
	j_u32(j, (uint32_t)FR_SIZE);
	J(j, 0x04, 0x7f, /* add $0x7f, %al: OF */
	  0x9e);	 /* sahf: SF ZF AF PF CF */
}

/* rax = a detour's flags as pushfq gives them (the program's) */
static void j_flags(struct jit *j)
{
	j_sahf(j);
	J(j, 0x9c, 0x58); /* pushfq; pop %rax */
}

/* rax = the value an argument starts from (the program's register) */
static void j_source(struct jit *j, const struct jit_way *w, const struct rt_inproc_probe *p,
		     const struct utrace_fetch_farg *a)
{
	int nr = j_live(a->reg);

	if (a->reg == UTRACE_FETCH_FAST_IMM || a->reg == UTRACE_FR_IP) {
		J(j, 0x48, 0xb8); /* movabs $v, %rax */
		j_u64(j, a->reg == UTRACE_FR_IP ? p->addr : (uint64_t)a->off);
	} else if (a->reg == UTRACE_FR_SP) {
		J(j, 0x48, 0x8d, 0x84, 0x24); /* lea the program's rsp, %rax */
		j_u32(j, (uint32_t)w->sp);
	} else if (a->reg == UTRACE_FR_FLAGS && w->detour) {
		j_flags(j);
	} else if (j_framed(a->reg)) {
		J(j, 0x48, 0x8b, 0x84, 0x24); /* mov saved(%rsp), %rax */
		j_u32(j, (uint32_t)(8 * a->reg));
	} else if (nr >= 0) {
		J(j, nr >= 8 ? 0x4c : 0x48, 0x89, (uint8_t)(0xc0 | (nr & 7) << 3)); /* mov %reg, %rax */
	} else {
		j->bad = true; /* never here (ipp_jit_ok) */
	}
}

/* One copy: rax from its source, plus its offset, loaded, shifted, stored
 * at its place in the record (rcx + 4 + dst: the body starts 12 bytes in,
 * at the record's byte 8). */
static void j_copy(struct jit *j, const struct jit_env *e, const struct jit_way *w,
		   const struct rt_inproc_probe *p, const struct utrace_fetch_farg *a)
{
	uint32_t at = 4 + a->dst;

	j_source(j, w, p, a);
	if (a->reg != UTRACE_FETCH_FAST_IMM && a->off) {
		if (a->off == (int32_t)a->off) {
			J(j, 0x48, 0x05); /* add $off, %rax */
			j_u32(j, (uint32_t)(int32_t)a->off);
		} else {
			J(j, 0x49, 0xba); /* movabs $off, %r10 */
			j_u64(j, (uint64_t)a->off);
			J(j, 0x4c, 0x01, 0xd0); /* add %r10, %rax */
		}
	}
	if (a->mem) {
		unsigned i = a->size == 8 ? 3 : a->size == 4 ? 2 : a->size == 2 ? 1 : 0;

		J(j, 0x41, 0xff, 0x93); /* call *jit_loads[i](%r11) */
		j_u32(j, (uint32_t)j_rel(j, e, &jit_loads[i]));
	}
	if (a->bits) {
		J(j, 0x48, 0xc1, 0xe0, a->shl); /* shl $shl, %rax */
		J(j, 0x48, 0xc1, 0xe8, a->shr); /* shr $shr, %rax */
	}
	if (a->size == 1)
		J(j, 0x88, 0x81); /* mov %al, at(%rcx) */
	else if (a->size == 2)
		J(j, 0x66, 0x89, 0x81);
	else if (a->size == 4)
		J(j, 0x89, 0x81);
	else
		J(j, 0x48, 0x89, 0x81);
	j_u32(j, at);
}

/* rt_event_close, then the registers back and `ret` over k. */
static void j_close(struct jit *j, const struct jit_env *e, const struct rt_inproc_probe *p)
{
	uint32_t bytes = p->fast->fixed - (uint32_t)sizeof(struct utrace_trace_entry);

	J(j, 0x48, 0x8d, 0x81); /* lea end(%rcx), %rax */
	j_u32(j, 12 + 4 * ((bytes + 3) / 4));
	J(j, 0x64, 0x48, 0x89, 0x04, 0x25); /* mov %rax, %fs:wp */
	j_u32(j, (uint32_t)TLS(j, e, wp));
	J(j, 0x64, 0x48, 0x89, 0x14, 0x25); /* mov %rdx, %fs:last_ts */
	j_u32(j, (uint32_t)TLS(j, e, last_ts));
	J(j, 0x64, 0x48, 0x83, 0x04, 0x25); /* addq $1, %fs:written */
	j_u32(j, (uint32_t)TLS(j, e, written));
	J(j, 0x01);
	J(j, 0x64, 0x48, 0x8b, 0x14, 0x25); /* mov %fs:sb, %rdx */
	j_u32(j, (uint32_t)TLS(j, e, sb));
	J(j, 0x48, 0x29, 0xd0); /* sub %rdx, %rax */
	J(j, 0x48, 0x2d);	/* sub $header, %rax: the bytes after it */
	j_u32(j, (uint32_t)sizeof(struct utrace_subbuf));
	J(j, 0x89, 0x82); /* mov %eax, commit(%rdx): a store, released */
	j_u32(j, (uint32_t)offsetof(struct utrace_subbuf, commit));
	J(j, 0x64, 0x81, 0x24, 0x25); /* andl $~BUSY, %fs:state */
	j_u32(j, (uint32_t)TLS(j, e, state));
	j_u32(j, ~(uint32_t)RT_TS_BUSY);
}

/* The registers j_bt keeps in the frame: the first five are those the
 * lean call needs (the arguments besides the trampoline's ax, cx and
 * j_save's dx) and rbx, which holds rsp across the call. */
static const struct {
	uint8_t rex, modrm;
	uint32_t reg;
} jit_keep[] = {{0x48, 0xb4, UTRACE_FR_SI},  {0x48, 0xbc, UTRACE_FR_DI},  {0x4c, 0x84, UTRACE_FR_R8},
		{0x4c, 0x8c, UTRACE_FR_R9},  {0x48, 0x9c, UTRACE_FR_BX},  {0x48, 0xac, UTRACE_FR_BP},
		{0x4c, 0xa4, UTRACE_FR_R12}, {0x4c, 0xac, UTRACE_FR_R13}, {0x4c, 0xb4, UTRACE_FR_R14},
		{0x4c, 0xbc, UTRACE_FR_R15}};
#define JIT_KEEP_LEAN 5

/* jit_keep[from, to) stored into the frame (load: back from it) */
static void j_keep(struct jit *j, unsigned from, unsigned to, bool load)
{
	for (unsigned i = from; i < to; i++) {
		J(j, jit_keep[i].rex, load ? 0x8b : 0x89, jit_keep[i].modrm, 0x24);
		j_u32(j, 8 * jit_keep[i].reg);
	}
}

/* fn(key, the frame[, NULL, false]) called with the stack aligned for C;
 * rbx (saved) holds rsp across it.  The flags are fn's after. */
static void j_call(struct jit *j, uint32_t key, const void *fn, bool four)
{
	J(j, 0x48, 0x89, 0xe3,	  /* mov %rsp, %rbx */
	  0x48, 0x83, 0xe4, 0xf0, /* and $-16, %rsp */
	  0xbf);		  /* mov $key, %edi */
	j_u32(j, key);
	J(j, 0x48, 0x89, 0xde); /* mov %rbx, %rsi: the registers */
	if (four)
		J(j, 0x31, 0xd2, 0x31, 0xc9); /* xor %edx, %edx; xor %ecx, %ecx */
	J(j, 0x48, 0xb8);		      /* movabs $fn, %rax */
	j_u64(j, (uint64_t)(uintptr_t)fn);
	J(j, 0xff, 0xd0,	/* call *%rax */
	  0x48, 0x89, 0xdc); /* mov %rbx, %rsp */
}

/*
 * A bt program's hit (ipp_plain's): a capture program, or a thread busy
 * or dead, back to the trampoline's way.  Else rt_bt_hit_lean on the
 * argument registers: a straight program (bt_fast.h, the common one)
 * takes the hit there; a program that needs the whole frame gets it
 * filled (every general register, sp, ip, the flags and the constants the
 * trampolines store) and rt_bt_hit called on it.  Taken: the hit is
 * done; else back as ipp_plain's false is (the handover).  The lean call
 * skips the whole frame's dozen stores and the pushfq (a fifth of a
 * straight hit).  Mid-function DF may be set, which C must not see: such
 * a hit goes the trampoline's way, which clears it around the C call.
 */
static void j_bt(struct jit *j, const struct jit_env *e, const struct jit_way *w,
		 const struct rt_inproc_probe *p)
{
	static const struct {
		uint32_t reg, v;
	} consts[] = {{UTRACE_FR_ORIG_AX, 0}, {UTRACE_FR_CS, 0x33}, {UTRACE_FR_SS, 0x2b}};

	j_bind(j, j->to_bt, j->nb);
	J(j, 0xa8, 0x01); /* test $RT_BT_CAPTURE, %al */
	to_fallback(j, JCC_JNE);
	J(j, 0x64, 0x8b, 0x04, 0x25); /* mov %fs:state, %eax */
	j_u32(j, (uint32_t)TLS(j, e, state));
	J(j, 0x25); /* and $~(NOTRACE | UNWINDING), %eax */
	j_u32(j, ~(uint32_t)(RT_TS_NOTRACE | RT_TS_UNWINDING));
	J(j, 0x83, 0xf8, RT_TS_READY, 0x74, 0x08); /* cmp $READY, %eax; je 1f */
	J(j, 0x85, 0xc0);			    /* test %eax, %eax */
	to_fallback(j, JCC_JNE);		    /* (6 bytes) 1: */
	if (w->detour) { /* DF set (the C way clears it for C and puts it back) */
		J(j, 0x9c,			       /* pushfq */
		  0xf6, 0x44, 0x24, 0x01, 0x04,	       /* testb $4, 1(%rsp): DF */
		  0x48, 0x8d, 0x64, 0x24, 0x08); /* lea 8(%rsp), %rsp */
		to_fallback(j, JCC_JNE);
	}
	j_keep(j, 0, JIT_KEEP_LEAN, false);
	j_call(j, p->key, rt_bt_hit_lean, false);
	J(j, 0x83, 0xf8, RT_BT_LEAN_TAKEN); /* cmp $TAKEN, %eax (the movs keep the flags) */
	j_keep(j, 0, JIT_KEEP_LEAN, true);
	to_done(j, JCC_JE);
	J(j, 0x83, 0xf8, RT_BT_LEAN_FRAME); /* cmp $FRAME, %eax */
	to_fallback(j, JCC_JNE);
	/* the whole frame: the lean call's stores still hold (it wrote none) */
	j_keep(j, JIT_KEEP_LEAN, sizeof(jit_keep) / sizeof(jit_keep[0]), false);
	J(j, 0x48, 0x8d, 0x84, 0x24); /* lea the program's rsp, %rax */
	j_u32(j, (uint32_t)w->sp);
	J(j, 0x48, 0x89, 0x84, 0x24); /* mov %rax, sp's word */
	j_u32(j, 8 * UTRACE_FR_SP);
	J(j, 0x48, 0xb8); /* movabs $ip, %rax */
	j_u64(j, p->addr);
	J(j, 0x48, 0x89, 0x84, 0x24); /* mov %rax, ip's word */
	j_u32(j, 8 * UTRACE_FR_IP);
	if (w->detour) {
		j_flags(j);
		J(j, 0x48, 0x89, 0x84, 0x24); /* mov %rax, the flags' word */
	} else {
		J(j, 0x9c, 0x8f, 0x84, 0x24); /* pushfq; popq the flags' word (dead here) */
	}
	j_u32(j, 8 * UTRACE_FR_FLAGS);
	for (unsigned i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
		J(j, 0x48, 0xc7, 0x84, 0x24); /* movq $v, word(%rsp) */
		j_u32(j, 8 * consts[i].reg);
		j_u32(j, consts[i].v);
	}
	j_call(j, p->key, rt_bt_hit, true);
	J(j, 0x84, 0xc0); /* test %al, %al (the movs below keep the flags) */
	j_keep(j, 0, JIT_KEEP_LEAN, true);
	to_done(j, JCC_JNE);
	to_fallback(j, JMP);
}

/* The saved registers this file uses (rax and rcx: the trampoline's) */
static void j_save(struct jit *j, bool restore)
{
	J(j, 0x48, restore ? 0x8b : 0x89, 0x94, 0x24); /* rdx */
	j_u32(j, (uint32_t)(8 * UTRACE_FR_DX));
	J(j, 0x4c, restore ? 0x8b : 0x89, 0x94, 0x24); /* r10 */
	j_u32(j, (uint32_t)(8 * UTRACE_FR_R10));
	J(j, 0x4c, restore ? 0x8b : 0x89, 0x9c, 0x24); /* r11 */
	j_u32(j, (uint32_t)(8 * UTRACE_FR_R11));
}

/* The stub of probe p at its site (whose tracer stub is *cont), into j. */
static void j_stub(struct jit *j, const struct jit_env *e, const struct jit_way *w,
		   const struct rt_inproc_probe *p, const uint64_t *cont)
{
	j_save(j, false);
	J(j, 0x49, 0xbb); /* movabs $rt, %r11 */
	j_u64(j, e->anchor);
	j_checks(j, e, p, cont);
	j_open(j, e, p);
	for (uint32_t i = 0; i < p->fast->n; i++)
		j_copy(j, e, w, p, &p->fast->a[i]);
	j_close(j, e, p);
	to_done(j, JMP);
	j_bt(j, e, w, p);
	j_bind(j, j->to_done, j->nd);
	j_save(j, true);
	J(j, 0x48, 0x8b, 0x8c, 0x24); /* mov saved rcx, %rcx */
	j_u32(j, (uint32_t)(8 * UTRACE_FR_CX));
	if (w->detour)
		j_sahf(j); /* the program's flags; nothing below writes any */
	J(j, 0x48, 0x8b, 0x84, 0x24); /* mov saved rax, %rax */
	j_u32(j, (uint32_t)(8 * UTRACE_FR_AX));
	if (w->detour) {
		J(j, 0x48, 0x8d, 0xa4, 0x24); /* lea frame + flags(%rsp), %rsp */
		j_u32(j, (uint32_t)FR_SIZE + 8);
		J(j, 0xc2, 0x08, 0x00); /* ret $8: into the detour, over k */
	} else {
		J(j, 0x48, 0x81, 0xc4); /* add $frame + k, %rsp */
		j_u32(j, (uint32_t)(FR_SIZE + 8));
		J(j, 0xc3); /* ret: into the function */
	}
	j_bind(j, j->to_unbusy, j->nu);
	J(j, 0x64, 0x81, 0x24, 0x25); /* andl $~BUSY, %fs:state */
	j_u32(j, (uint32_t)TLS(j, e, state));
	j_u32(j, ~(uint32_t)RT_TS_BUSY);
	j_bind(j, j->to_fallback, j->nf);
	j_save(j, true);
	J(j, 0x48, 0xb8); /* movabs $back, %rax; jmp *%rax */
	j_u64(j, (uint64_t)(uintptr_t)w->back);
	J(j, 0xff, 0xe0);
}

/* Whether probe p's hit can be a stub, and which way: ipp_plain's record
 * way (an entry probe alone at its address, its copies filling its
 * record), at a call site or a detour, its copies from general registers,
 * sp, ip (and the flags mid-function), shifts in range. */
static bool ipp_jit_ok(const struct rt_inproc_probe *p, struct jit_way *w)
{
	const uint32_t all = 7; /* IPP_PLAIN_BT | _REC | _PUT (inproc_probes.c) */

	if (!p || (p->plain & all) != all || !p->fast || p->is_return ||
	    p->key / 32 >= UTRACE_INPROC_PROBE_OFF_WORDS)
		return false;
	if (p->how == UTRACE_IPPH_SITE)
		*w = (struct jit_way){false, FR_SIZE + 16, utrace_inproc_probe_site_nojit};
	else if (p->how == UTRACE_IPPH_JMP && p->detour)
		*w = (struct jit_way){true, FR_SIZE + 8 + 16 + 128, utrace_inproc_probe_detour_nojit};
	else
		return false;
	for (uint32_t i = 0; i < p->fast->n; i++) {
		const struct utrace_fetch_farg *a = &p->fast->a[i];

		if (a->reg != UTRACE_FETCH_FAST_IMM && a->reg != UTRACE_FR_IP && a->reg != UTRACE_FR_SP &&
		    !j_framed(a->reg) && j_live(a->reg) < 0 && !(a->reg == UTRACE_FR_FLAGS && w->detour))
			return false;
		if (a->shl >= 64 || a->shr >= 64)
			return false;
	}
	return true;
}

static bool jit_env(struct jit_env *e)
{
	uintptr_t tp;

	if (getenv("UTRACE_PROBE_JIT") && !strcmp(getenv("UTRACE_PROBE_JIT"), "0"))
		return false;
	__asm__("movq %%fs:0, %0" : "=r"(tp));
	e->anchor = (uint64_t)(uintptr_t)&rt;
	e->tls = (int64_t)((uintptr_t)&rt_self - tp);
	return true;
}

/* Stub of site s into buf (JIT_STUB_MAX bytes): its length, 0 if none. */
static size_t jit_one(const struct jit_env *e, const struct rt_ipp_jit_site *s, uint8_t *buf)
{
	struct jit j = {.p = buf, .end = buf + JIT_STUB_MAX};
	struct jit_way w;

	if (!ipp_jit_ok(s->p, &w))
		return 0;
	j_stub(&j, e, &w, s->p, s->cont);
	return j.bad ? 0 : (size_t)(j.p - buf);
}

/* The stubs of n sites in fresh pages, read and execute (NULL: none) */
static uint8_t *jit_pages(const struct jit_env *e, const struct rt_ipp_jit_site *sites, uint32_t n,
			  void **stub)
{
	uint8_t buf[JIT_STUB_MAX], *code;
	size_t total = 0, len, at = 0;

	for (uint32_t i = 0; i < n; i++)
		total += (jit_one(e, &sites[i], buf) + 15) & ~(size_t)15;
	if (!total)
		return NULL;
	total = (total + 4095) & ~(size_t)4095;
	code = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		if ((len = jit_one(e, &sites[i], buf)) && at + len <= total) {
			memcpy(code + at, buf, len); /* position-independent */
			stub[i] = code + at;
			at += (len + 15) & ~(size_t)15;
		}
	if (mprotect(code, total, PROT_READ | PROT_EXEC) < 0) {
		munmap(code, total);
		return NULL;
	}
	return code;
}

/* Each site's stub, or none (rt_ipp_lock held; tables are published). */
void rt_ipp_jit_build(const struct rt_ipp_jit_site *sites, uint32_t n)
{
	void **stub = n ? calloc(n, sizeof(*stub)) : NULL;
	struct jit_env e;

	if (stub && (!jit_env(&e) || !jit_pages(&e, sites, n, stub)))
		memset(stub, 0, n * sizeof(*stub));
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&rt_ipp_site_jit[sites[i].k % IPP_SITES_MAX], stub ? stub[i] : NULL,
				 __ATOMIC_RELEASE);
	free(stub);
}
