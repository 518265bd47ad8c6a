/* SPDX-License-Identifier: MIT */
/*
 * fetch_fast.h - an in-process probe's fetch-args run as a list of copies
 * instead of interpreted (issue 25: a probe hit near its floor).
 *
 * Most fetch-args are a register or a field of what a register points to
 * (`a=%di:u64 b=+8(%si):u32`, `$arg2`, `+16($stack):s32`, `@sym+8:u64`):
 *
 *   REG r | IMM i;  ADD k ...;  ST_INT size dst | ST_MEM size dst
 *
 * utrace_fetch_run() spends a mispredicted switch per instruction on
 * them (three or four a hit for two arguments).  utrace_fetch_fast_of()
 * recognises the shape once, when the probe is installed
 * (runtime/inproc_probes.c), and folds each argument into one entry
 * (register, offset, whether to load, size, bit-field shifts, dst);
 * utrace_fetch_fast_run() copies them in a loop with no dispatch, through
 * the same load function and the same stores, so the record is the one
 * the interpreter writes (tests/unit/test_fetch_fast.c).  Anything else (a
 * DEREF chain, strings, arrays, comm, constants of text) is left to the
 * interpreter.
 */
#ifndef UTRACE_COMMON_FETCH_FAST_H
#define UTRACE_COMMON_FETCH_FAST_H

#include <stdint.h>

#include "common/fetch_prog.h"

#define UTRACE_FETCH_FAST_ARGS 16u
#define UTRACE_FETCH_FAST_IMM 0xffu /* reg of an argument that starts from an immediate */

struct utrace_fetch_farg {
	uint8_t reg;  /* enum utrace_fetch_reg, ENTRY_ARGn, or UTRACE_FETCH_FAST_IMM */
	uint8_t size; /* the store's: 1, 2, 4, 8 */
	uint8_t mem;  /* load size bytes at the value (ST_MEM) */
	uint8_t bits; /* a bit-field: v << shl >> shr */
	uint8_t shl, shr;
	uint16_t dst;
	int64_t off; /* added to the register; the value itself after an IMM */
};

struct utrace_fetch_fast {
	uint32_t n;	/* arguments */
	uint32_t fixed; /* the record's length: no dynamic data */
	struct utrace_fetch_farg a[UTRACE_FETCH_FAST_ARGS];
};

/* 0 with f filled if prog (a checked program) has the shape, else -1. */
static inline int utrace_fetch_fast_of(const void *prog, struct utrace_fetch_fast *f)
{
	const struct utrace_fetch_hdr *h = (const struct utrace_fetch_hdr *)prog;
	const struct utrace_fetch_insn *in = utrace_fetch_insns(h);
	struct utrace_fetch_farg *a = 0;

	__builtin_memset(f, 0, sizeof(*f));
	f->fixed = h->fixed;
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		const struct utrace_fetch_insn *x = &in[i];

		if (!a) { /* an argument starts: from a register or an immediate */
			if ((x->op != UTRACE_XOP_REG && x->op != UTRACE_XOP_IMM) ||
			    f->n >= UTRACE_FETCH_FAST_ARGS)
				return -1;
			a = &f->a[f->n++];
			a->reg = x->op == UTRACE_XOP_REG ? x->reg : UTRACE_FETCH_FAST_IMM;
			a->off = x->op == UTRACE_XOP_IMM ? x->imm : 0;
		} else if (x->op == UTRACE_XOP_ADD) {
			a->off = (int64_t)((uint64_t)a->off + (uint64_t)x->imm);
		} else if (x->op == UTRACE_XOP_ST_INT || x->op == UTRACE_XOP_ST_MEM) {
			a->size = x->size;
			a->mem = x->op == UTRACE_XOP_ST_MEM;
			a->bits = !!(x->flags & UTRACE_XF_BITFIELD);
			a->shl = x->shl;
			a->shr = x->shr;
			a->dst = x->dst;
			a = 0; /* a store ends one argument */
		} else {
			return -1;
		}
	}
	return a ? -1 : 0; /* a value never stored: leave it to the interpreter */
}

/* The registers f reads, a bit per enum utrace_fetch_reg below
 * UTRACE_FR_MAX (an immediate or a return probe's entry argument reads
 * none): a site probe whose registers the lean trampoline saves takes
 * it (runtime/inproc_probes.c). */
static inline uint32_t utrace_fetch_fast_regs(const struct utrace_fetch_fast *f)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < f->n; i++)
		if (f->a[i].reg < UTRACE_FR_MAX)
			m |= 1u << f->a[i].reg;
	return m;
}

/* Runs f on regs (entry: a return probe's entry arguments, or NULL) into
 * rec (at least f->fixed bytes): the record's length. */
static inline uint32_t utrace_fetch_fast_run(const struct utrace_fetch_fast *f,
					     const struct utrace_fetch_regs *regs,
					     const uint64_t *entry, uint8_t *rec,
					     utrace_fetch_load_fn load)
{
	for (uint32_t i = 0; i < f->n; i++) {
		const struct utrace_fetch_farg *a = &f->a[i];
		uint64_t v = a->reg < UTRACE_FR_MAX		      ? regs->r[a->reg]
			     : a->reg < UTRACE_FR_XMAX && entry ? entry[a->reg - UTRACE_FR_MAX]
								 : 0;

		v += (uint64_t)a->off;
		if (a->mem && load(v, a->size, &v) < 0)
			v = 0; /* a fault: 0, as the interpreter's */
		else if (a->bits)
			v = v << a->shl >> a->shr;
		utrace_fetch_put(rec, a->dst, v, a->size);
	}
	return f->fixed;
}

#endif
