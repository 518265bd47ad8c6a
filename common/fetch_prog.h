/* SPDX-License-Identifier: MIT */
/*
 * fetch_prog.h - the compiled fetch-args of an in-process probe and their
 * interpreter (the kernel's fetch_insn arrays, kernel/trace/trace_probe.h).
 *
 * A probe definition's FETCHARGS ("+8(%di):u32 name=+0(%si):string") are
 * compiled once by the tool (lib/probes/fetch_compile.c) into a short
 * array of instructions; libutrace.so runs it at every hit on the saved
 * registers and writes the event's record, laid out as the kernel lays out
 * a kprobe event (its format, lib/probes/inproc_probe.c):
 *
 *   offset 0    the 8 bytes of common fields (filled by trace_events.c)
 *   offset 8    __probe_ip                         (p:, f:)
 *               __probe_func, __probe_ret_ip       (r:, f:...%return)
 *   then        each argument at its dst offset, in order
 *   fixed       dynamic data: strings, pointed to by a __data_loc u32
 *               (len << 16 | offset), as the kernel's
 *
 * Each argument is a sequence of value instructions (REG, STACK, IMM,
 * DEREF, ADD, INDEX, LDF) computing one 64-bit value v, ended by one store
 * (ST_INT,
 * ST_MEM, ST_STR, ST_COMM, ST_DATA, ST_ARRAY) that writes the argument
 * at dst.  Memory is read only through the caller's load function, which
 * in the runtime is the safe-load routine (runtime/inproc_probes.c): a fault
 * makes it return -1 and never crashes the program.  A faulting argument
 * is written as the kernel writes it: 0 for a number, and for a string
 * a __data_loc of length 0, which the trace prints as (fault), unquoted
 * (lib/report/event_print.c, the kernel's print_type_string).
 *
 * Robustness: utrace_fetch_check() validates a whole program once; the
 * run never writes beyond rec_cap, nor reads the program out of bounds.
 * The runtime is built with -mgeneral-regs-only and this code calls
 * nothing but load().
 */
#ifndef UTRACE_COMMON_FETCH_PROG_H
#define UTRACE_COMMON_FETCH_PROG_H

#include <stdint.h>

#define UTRACE_FETCH_MAGIC 0x48544655u /* "UFTH" */
#define UTRACE_FETCH_MAX_INSNS 1024u
#define UTRACE_FETCH_STR_MAX 256u  /* bytes of one string, its NUL included */
#define UTRACE_FETCH_REC_MAX 2048u /* a whole record, strings included */

/* Registers, in the order of the kernel's x86-64 regoffset_table (the
 * names lib/probes/uprobe_args.c accepts after '%'). */
enum utrace_fetch_reg {
	UTRACE_FR_R15, UTRACE_FR_R14, UTRACE_FR_R13, UTRACE_FR_R12, UTRACE_FR_R11,
	UTRACE_FR_R10, UTRACE_FR_R9, UTRACE_FR_R8, UTRACE_FR_BX, UTRACE_FR_CX,
	UTRACE_FR_DX, UTRACE_FR_SI, UTRACE_FR_DI, UTRACE_FR_BP, UTRACE_FR_AX,
	UTRACE_FR_ORIG_AX, UTRACE_FR_IP, UTRACE_FR_CS, UTRACE_FR_FLAGS, UTRACE_FR_SP,
	UTRACE_FR_SS, UTRACE_FR_MAX,
	/* a return probe's $arg1..$arg6: the entry's DI SI DX CX R8 R9, kept
	 * when the return was hooked (the kernel's kretprobe entry args) */
	UTRACE_FR_ENTRY_ARG1 = UTRACE_FR_MAX,
	UTRACE_FR_XMAX = UTRACE_FR_MAX + 6
};

/* An event probe (e:, lib/probes/eprobe.h) runs its program on registers
 * whose si holds the address of the attached event's record, as
 * rt_event_write(key, rec, len) receives it; its $FIELDs are LDFs from
 * there. */
#define UTRACE_FR_EVENT UTRACE_FR_SI

/* The registers at the probed instruction, as a trap would see them. */
struct utrace_fetch_regs {
	uint64_t r[UTRACE_FR_MAX];
};

enum utrace_fetch_op {
	/* value: v = ... */
	UTRACE_XOP_REG = 1, /* regs[reg] */
	UTRACE_XOP_IMM,	    /* imm */
	UTRACE_XOP_DEREF,   /* load 8 bytes at v + imm */
	UTRACE_XOP_ADD,	    /* v + imm */
	/* stores: the argument at dst */
	UTRACE_XOP_ST_INT,   /* the low size bytes of v (a register, an immediate) */
	UTRACE_XOP_ST_MEM,   /* size bytes loaded at v */
	UTRACE_XOP_ST_STR,   /* the NUL-terminated string at v, __data_loc */
	UTRACE_XOP_ST_COMM,  /* the thread's name, __data_loc */
	UTRACE_XOP_ST_DATA,  /* a string constant: imm its offset in the program, shl | shr << 8 its length */
	UTRACE_XOP_ST_ARRAY, /* count elements of size bytes from v (strings: pointers) */
	/* value, after the stores (their numbers stay): an event field, the
	 * size bytes at v + imm, sign-extended if SIGNED; DATALOC: v + their
	 * low 16 bits (a __data_loc's data) */
	UTRACE_XOP_LDF,
	/* value: v + regs[reg] * imm (imm 1, 2, 4 or 8): x86's base +
	 * index * scale, a USDT argument's "-8(%rbp,%rcx,4)" (an in-process
	 * probe's fetcharg "-8(%bp,%cx,4)"; the kernel's syntax has none) */
	UTRACE_XOP_INDEX,
	UTRACE_XOP_MAX
};

enum utrace_fetch_flags {
	UTRACE_XF_BITFIELD = 1u << 0, /* v = v << shl >> shr (unsigned) before storing */
	UTRACE_XF_STRING = 1u << 1,   /* ST_ARRAY: each element a char * to a string */
	UTRACE_XF_SIGNED = 1u << 2,   /* LDF: a signed field */
	UTRACE_XF_DATALOC = 1u << 3,  /* LDF: a __data_loc's data: its address */
};

struct utrace_fetch_insn {
	uint8_t op;    /* enum utrace_fetch_op */
	uint8_t reg;   /* REG: enum utrace_fetch_reg */
	uint8_t size;  /* stores: 1, 2, 4, 8 */
	uint8_t flags; /* enum utrace_fetch_flags */
	uint16_t dst;  /* stores: offset in the record */
	uint8_t shl, shr;
	int64_t imm; /* IMM, DEREF, ADD; ST_ARRAY: count; ST_DATA: offset of the bytes in the program */
};

struct utrace_fetch_hdr {
	uint32_t size;	   /* the whole program, header and data included */
	uint32_t magic;	   /* UTRACE_FETCH_MAGIC */
	uint32_t nr_insns; /* <= UTRACE_FETCH_MAX_INSNS */
	uint32_t fixed;	   /* bytes of the record before its dynamic data */
};

/* load(addr, size, out): size bytes (1, 2, 4, 8) at addr, zero-extended;
 * 0, or -1 if the memory cannot be read. */
typedef int (*utrace_fetch_load_fn)(uint64_t addr, unsigned size, uint64_t *out);

static inline const struct utrace_fetch_insn *utrace_fetch_insns(const struct utrace_fetch_hdr *h)
{
	return (const struct utrace_fetch_insn *)(h + 1);
}

static inline int utrace_fetch_is_store(unsigned op)
{
	return op >= UTRACE_XOP_ST_INT && op <= UTRACE_XOP_ST_ARRAY;
}

/* 0 if the program is whole and every store stays in the fixed part. */
static inline int utrace_fetch_check(const void *prog, uint32_t len)
{
	const struct utrace_fetch_hdr *h = (const struct utrace_fetch_hdr *)prog;
	const struct utrace_fetch_insn *in;

	if (!prog || len < sizeof(*h) || h->magic != UTRACE_FETCH_MAGIC || h->size != len ||
	    h->nr_insns > UTRACE_FETCH_MAX_INSNS ||
	    sizeof(*h) + (uint64_t)h->nr_insns * sizeof(*in) > len || h->fixed > UTRACE_FETCH_REC_MAX)
		return -1;
	in = utrace_fetch_insns(h);
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		uint64_t end = in[i].dst + (uint64_t)in[i].size;

		if (!in[i].op || in[i].op >= UTRACE_XOP_MAX || in[i].reg >= UTRACE_FR_XMAX ||
		    in[i].shl > 63 || in[i].shr > 63)
			return -1;
		if (in[i].op == UTRACE_XOP_ST_ARRAY) {
			if (in[i].imm <= 0 || in[i].imm > 64)
				return -1;
			end = in[i].dst + (uint64_t)in[i].imm *
					      (in[i].flags & UTRACE_XF_STRING ? 4 : in[i].size);
		}
		if (in[i].op == UTRACE_XOP_ST_STR || in[i].op == UTRACE_XOP_ST_COMM ||
		    in[i].op == UTRACE_XOP_ST_DATA)
			end = in[i].dst + 4u;
		if (in[i].op == UTRACE_XOP_ST_DATA &&
		    ((uint64_t)in[i].imm > len || in[i].imm < 0 ||
		     (uint64_t)in[i].imm + in[i].shl + ((uint64_t)in[i].shr << 8) > len))
			return -1;
		if (in[i].op == UTRACE_XOP_INDEX && in[i].imm != 1 && in[i].imm != 2 &&
		    in[i].imm != 4 && in[i].imm != 8)
			return -1;
		if (in[i].op == UTRACE_XOP_LDF && in[i].size != 1 && in[i].size != 2 &&
		    in[i].size != 4 && in[i].size != 8)
			return -1;
		if (utrace_fetch_is_store(in[i].op) &&
		    ((in[i].size != 1 && in[i].size != 2 && in[i].size != 4 && in[i].size != 8) ||
		     end > h->fixed))
			return -1;
	}
	return 0;
}

/* A string at dyn (the record's next free byte): its __data_loc at dst. */
static inline uint32_t utrace_fetch_str(uint8_t *rec, uint32_t dyn, uint32_t cap, uint64_t addr,
					utrace_fetch_load_fn load)
{
	uint32_t n = 0, room = cap - dyn < UTRACE_FETCH_STR_MAX ? cap - dyn : UTRACE_FETCH_STR_MAX;
	uint64_t w;

	if (!room)
		return 0;
	while (n + 1 < room) {
		/* one aligned word at a time: it never crosses into a page the
		 * string does not reach */
		uint64_t a = (addr + n) & ~7ull;
		unsigned k = (unsigned)((addr + n) & 7);

		if (load(a, 8, &w) < 0)
			goto faulted;
		for (; k < 8 && n + 1 < room; k++) {
			uint8_t c = (uint8_t)(w >> (8 * k));

			rec[dyn + n] = c;
			if (!c)
				return (n + 1) << 16 | dyn;
			n++;
		}
	}
	rec[dyn + n] = 0; /* truncated, as the kernel's MAX_STRING_SIZE does */
	return (n + 1) << 16 | dyn;
faulted:
	return dyn; /* length 0 at dyn: the kernel's set_data_loc of a fault */
}

/* One store of size bytes (little endian: the low bytes of v). */
static inline void utrace_fetch_put(uint8_t *rec, uint32_t dst, uint64_t v, unsigned size)
{
	uint8_t b = (uint8_t)v;
	uint16_t h = (uint16_t)v;
	uint32_t w = (uint32_t)v;

	switch (size) {
	case 1:
		__builtin_memcpy(rec + dst, &b, 1);
		break;
	case 2:
		__builtin_memcpy(rec + dst, &h, 2);
		break;
	case 4:
		__builtin_memcpy(rec + dst, &w, 4);
		break;
	default:
		__builtin_memcpy(rec + dst, &v, 8);
		break;
	}
}

/*
 * Runs a checked program: writes the arguments into rec (rec_cap bytes,
 * at least h->fixed) and returns the record's length, fixed part and
 * strings.  comm: the thread's name (16 bytes); entry: a return probe's
 * UTRACE_FR_ENTRY_ARG1.. values (NULL: they read 0).
 */
static inline uint32_t utrace_fetch_run(const void *prog, const struct utrace_fetch_regs *regs,
					const uint64_t *entry, const char *comm, uint8_t *rec,
					uint32_t rec_cap, utrace_fetch_load_fn load)
{
	const struct utrace_fetch_hdr *h = (const struct utrace_fetch_hdr *)prog;
	const struct utrace_fetch_insn *in = utrace_fetch_insns(h);
	uint32_t dyn = h->fixed;
	uint64_t v = 0, w;
	int bad = 0;

	for (uint32_t i = 0; i < h->nr_insns; i++) {
		const struct utrace_fetch_insn *x = &in[i];

		switch (x->op) {
		case UTRACE_XOP_REG:
			v = x->reg < UTRACE_FR_MAX ? regs->r[x->reg]
			    : entry		 ? entry[x->reg - UTRACE_FR_MAX]
						 : 0;
			continue;
		case UTRACE_XOP_IMM:
			v = (uint64_t)x->imm;
			continue;
		case UTRACE_XOP_ADD:
			v += (uint64_t)x->imm;
			continue;
		case UTRACE_XOP_INDEX:
			v += (x->reg < UTRACE_FR_MAX ? regs->r[x->reg]
			      : entry		     ? entry[x->reg - UTRACE_FR_MAX]
						     : 0) *
			     (uint64_t)x->imm;
			continue;
		case UTRACE_XOP_DEREF:
			if (!bad && load(v + (uint64_t)x->imm, 8, &v) < 0)
				bad = 1;
			continue;
		case UTRACE_XOP_LDF:
			if (!bad && load(v + (uint64_t)x->imm, x->size, &w) < 0)
				bad = 1;
			else if (x->flags & UTRACE_XF_DATALOC)
				v += w & 0xffff;
			else if ((x->flags & UTRACE_XF_SIGNED) && x->size < 8)
				v = (uint64_t)((int64_t)(w << (64 - 8 * x->size)) >> (64 - 8 * x->size));
			else
				v = w;
			continue;
		case UTRACE_XOP_ST_MEM:
			if (!bad && load(v, x->size, &v) < 0)
				bad = 1;
			/* fall through */
		case UTRACE_XOP_ST_INT:
			if (bad)
				v = 0;
			else if (x->flags & UTRACE_XF_BITFIELD)
				v = v << x->shl >> x->shr;
			utrace_fetch_put(rec, x->dst, v, x->size);
			break;
		case UTRACE_XOP_ST_STR:
		case UTRACE_XOP_ST_COMM:
		case UTRACE_XOP_ST_DATA: {
			uint32_t loc = 0, n = 0;

			if (x->op == UTRACE_XOP_ST_STR) {
				loc = utrace_fetch_str(rec, dyn, rec_cap, bad ? 0 : v, load);
			} else {
				const uint8_t *src = x->op == UTRACE_XOP_ST_COMM
							 ? (const uint8_t *)comm
							 : (const uint8_t *)prog + x->imm;
				uint32_t max = x->op == UTRACE_XOP_ST_COMM
						   ? 16
						   : (uint32_t)x->shl | (uint32_t)x->shr << 8;

				while (n < max && src[n] && dyn + n + 1 < rec_cap) {
					rec[dyn + n] = src[n];
					n++;
				}
				if (dyn + n < rec_cap) {
					rec[dyn + n] = 0;
					loc = (n + 1) << 16 | dyn;
				}
			}
			dyn += loc >> 16;
			utrace_fetch_put(rec, x->dst, loc, 4);
			break;
		}
		case UTRACE_XOP_ST_ARRAY:
			for (int64_t k = 0; k < x->imm; k++) {
				if (x->flags & UTRACE_XF_STRING) {
					uint32_t loc = 0;

					if (!bad && load(v + 8 * (uint64_t)k, 8, &w) == 0)
						loc = utrace_fetch_str(rec, dyn, rec_cap, w, load);
					dyn += loc >> 16;
					utrace_fetch_put(rec, x->dst + 4 * (uint32_t)k, loc, 4);
					continue;
				}
				if (bad || load(v + (uint64_t)k * x->size, x->size, &w) < 0)
					w = 0;
				utrace_fetch_put(rec, x->dst + (uint32_t)k * x->size, w, x->size);
			}
			break;
		default:
			return dyn;
		}
		bad = 0; /* a store ends one argument */
		v = 0;
	}
	return dyn;
}

#endif
