/* SPDX-License-Identifier: MIT */
/*
 * bt_fast.h - the most common `utrace bt` actions run without the
 * interpreter (issue 27's speed: a hit at least 20x cheaper than
 * bpftrace's).
 *
 * The one-liners people write on a uprobe are aggregations of arguments:
 *
 *   uprobe:PROG:hit { @c[arg0] = count(); @h = hist(arg0); }
 *
 *   0: ARG 0; 1: KEY map 0 1; 2: AGG map 0 count
 *   3: ARG 0; 4: KEY map 1 0; 5: AGG map 1 hist
 *
 * For these utrace_bt_exec() spends most of a hit in its own machinery:
 * the hit's 24 words filled, the 20 KiB state found, a bounds check and a
 * dispatch per instruction, the key bytes copied, a callback per update.
 * utrace_bt_fast_of() runs the program once on a symbolic stack when it
 * arrives: a program made only of pushes of an argument, a builtin or a
 * constant, integer KEYs and AGGs of a table's aggregation becomes a list
 * of steps (map, the keys' and the value's sources), bound once to their
 * tables when the tables arrive (utrace_bt_fast_bind: each step's table,
 * memo and map description a load away), and utrace_bt_fast_run() does
 * the same table updates straight, a step whose key and value are
 * arguments reading its registers with no dispatch at all
 * (common/bt_table.h: the same keys, the same table, the same stripes),
 * so a table filled by either path is the same table
 * (tests/unit/test_bt_fast.c).  Anything else (a predicate, a string, a
 * variable, a map read, a record) leaves the program to the interpreter.
 * It needs no interpreter state, so no nesting limit either: a signal
 * handler's hit updates the tables as the hit it interrupted does.
 */
#ifndef UTRACE_COMMON_BT_FAST_H
#define UTRACE_COMMON_BT_FAST_H

#include <stdint.h>

#include "common/bt_table.h"
#include "common/fetch_prog.h"

#define UTRACE_BT_FAST_STEPS 8u

enum utrace_bt_fkind { UTRACE_BTF_IMM, UTRACE_BTF_ARG, UTRACE_BTF_BUILTIN };

/* Where a value comes from: a constant, argN, or a builtin. */
struct utrace_bt_fsrc {
	uint32_t kind; /* enum utrace_bt_fkind */
	uint16_t idx;  /* ARG: 0..5; BUILTIN: enum utrace_bt_builtin */
	uint16_t reg;  /* ARG: its register (UTRACE_FR_*), looked up once */
	int64_t imm;
};

/* One AGG: its map, the key it uses (the last KEY's) and its value; and,
 * once bound (utrace_bt_fast_bind), its table, its memo and its map's
 * description, each a load away from the hit. */
struct utrace_bt_fstep {
	uint32_t map, nkeys, has_val;
	uint32_t args; /* its key (if any) and value (if any) are arguments */
	struct utrace_bt_fsrc keys[UTRACE_BT_KEYS_MAX], val;
	struct utrace_hist_map *m;
	uint64_t *memo; /* UTRACE_BT_MEMO words, or NULL */
	struct utrace_bt_mapdesc d;
};

struct utrace_bt_fast {
	uint32_t n; /* steps */
	struct utrace_bt_fstep step[UTRACE_BT_FAST_STEPS];
};

/* argN's register in the hit's registers (as bt_probe.c's rt_bt_hit_of) */
static const uint8_t utrace_bt_arg_regs[6] = {UTRACE_FR_DI, UTRACE_FR_SI, UTRACE_FR_DX,
					      UTRACE_FR_CX, UTRACE_FR_R8, UTRACE_FR_R9};

/* One instruction of the symbolic run (see utrace_bt_fast_of); 0, or -1
 * if the program is not of the shape. */
static inline int utrace_bt_fast_insn(const struct utrace_bt_hdr *h, const struct utrace_bt_insn *in,
				      struct utrace_bt_fsrc *stk, uint32_t *sp,
				      struct utrace_bt_fstep *key, int *key_map,
				      struct utrace_bt_fast *f)
{
	const struct utrace_bt_mapdesc *d = in->a < h->nr_maps ? &utrace_bt_maps(h)[in->a] : 0;
	struct utrace_bt_fstep *s;

	switch (in->op) {
	case UTRACE_BOP_PUSH:
	case UTRACE_BOP_ARG:
	case UTRACE_BOP_BUILTIN:
		if (*sp >= UTRACE_BT_STACK_MAX || (in->op == UTRACE_BOP_ARG && in->a >= 6) ||
		    (in->op == UTRACE_BOP_BUILTIN && in->a >= UTRACE_BB_MAX))
			return -1;
		stk[(*sp)++] = (struct utrace_bt_fsrc){
		    in->op == UTRACE_BOP_PUSH  ? UTRACE_BTF_IMM
		    : in->op == UTRACE_BOP_ARG ? UTRACE_BTF_ARG
					       : UTRACE_BTF_BUILTIN,
		    (uint16_t)in->a, in->op == UTRACE_BOP_ARG ? utrace_bt_arg_regs[in->a] : 0,
		    in->op == UTRACE_BOP_PUSH ? in->imm : 0};
		return 0;
	case UTRACE_BOP_KEY: /* integers only: the key is their 8 bytes each */
		if (!d || d->key_str || in->b != d->nkeys || in->b > *sp)
			return -1;
		*sp -= in->b;
		key->nkeys = in->b;
		for (uint32_t i = 0; i < in->b; i++)
			key->keys[i] = stk[*sp + i];
		*key_map = in->a;
		return 0;
	case UTRACE_BOP_AGG: /* what rt_bt_update takes: the map's own aggregation */
		if (!d || *key_map != (int)in->a || in->b != d->agg || !utrace_bt_table_agg_ok(d) ||
		    f->n >= UTRACE_BT_FAST_STEPS)
			return -1;
		s = &f->step[f->n++];
		*s = *key;
		s->map = in->a;
		s->has_val = in->b != UTRACE_BTT_COUNT;
		if (s->has_val) {
			if (!*sp)
				return -1;
			s->val = stk[--*sp];
		}
		return 0;
	default:
		return -1;
	}
}

/* 0 with f filled if h (a checked program) has the shape, else -1.  A
 * program that updates nothing (`{ }`) has it too, with no steps: its hit
 * needs no interpreter state either. */
static inline int utrace_bt_fast_of(const struct utrace_bt_hdr *h, struct utrace_bt_fast *f)
{
	const struct utrace_bt_insn *in = utrace_bt_insns(h);
	struct utrace_bt_fsrc stk[UTRACE_BT_STACK_MAX];
	struct utrace_bt_fstep key = {0};
	uint32_t sp = 0;
	int key_map = -1;

	__builtin_memset(f, 0, sizeof(*f));
	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (utrace_bt_fast_insn(h, &in[i], stk, &sp, &key, &key_map, f) < 0) {
			f->n = 0;
			return -1;
		}
	return 0;
}

/* What the interpreter's hit would hold (bt_probe.c rt_bt_hit_of). */
struct utrace_bt_fhit {
	const uint64_t *r;     /* the registers, UTRACE_FR_MAX of them */
	const uint64_t *entry; /* a return probe's entry arguments, or NULL */
	int64_t retval, pid, tid;
};

static inline __attribute__((always_inline)) int64_t
utrace_bt_fast_val(const struct utrace_bt_fsrc *s, const struct utrace_bt_fhit *x)
{
	if (s->kind == UTRACE_BTF_ARG) /* idx < 6, reg < UTRACE_FR_MAX: utrace_bt_fast_of */
		return (int64_t)(x->entry ? x->entry[s->idx] : x->r[s->reg]);
	if (s->kind == UTRACE_BTF_IMM)
		return s->imm;
	return s->idx == UTRACE_BB_PID	   ? x->pid
	       : s->idx == UTRACE_BB_TID    ? x->tid
	       : s->idx == UTRACE_BB_RETVAL ? x->retval
					    : 0; /* as rt_bt_hit_of leaves the others */
}

/* f's steps bound to maps (the program h's tables, in map order) and
 * memo (UTRACE_BT_MEMO words a map, hist_memo.h, zeroes at first and
 * kept by the caller, or NULL), once before the first hit. */
static inline void utrace_bt_fast_bind(const struct utrace_bt_hdr *h, struct utrace_bt_fast *f,
				       struct utrace_hist_map *const *maps, uint64_t *memo)
{
	for (uint32_t k = 0; k < f->n; k++) {
		struct utrace_bt_fstep *s = &f->step[k];

		s->args = s->nkeys <= 1 && (!s->nkeys || s->keys[0].kind == UTRACE_BTF_ARG) &&
			  (!s->has_val || s->val.kind == UTRACE_BTF_ARG);
		s->m = maps[s->map];
		s->memo = memo ? memo + s->map * UTRACE_BT_MEMO : 0;
		s->d = utrace_bt_maps(h)[s->map];
	}
}

/* A step of arguments (s->args) whose map's aggregation is agg, a
 * constant: the update's branches on it (its bucket, its sums) compiled
 * away.  Only for aggregations the description's agg alone describes
 * (not lhist, whose bucket reads its bounds). */
static inline __attribute__((always_inline)) void
utrace_bt_fast_args(const struct utrace_bt_fstep *s, const uint64_t *r, uint32_t tid,
		    const uint32_t agg)
{
	const struct utrace_bt_mapdesc d = {.agg = agg};

	utrace_bt_table_update16(s->m, &d, s->nkeys ? r[s->keys[0].reg] : 0,
				 agg != UTRACE_BTT_COUNT ? (int64_t)r[s->val.reg] : 1, tid, s->memo);
}

/* The update of any other step (not inlined: the common ones above keep
 * their registers for themselves). */
static __attribute__((noinline, unused)) void
utrace_bt_fast_other(const struct utrace_bt_fstep *s, const struct utrace_bt_fhit *x, uint32_t tid)
{
	int64_t v;
	uint64_t key[UTRACE_BT_KEYS_MAX];

	if (s->args && !x->entry) {
		utrace_bt_table_update16(s->m, &s->d, s->nkeys ? x->r[s->keys[0].reg] : 0,
					 s->has_val ? (int64_t)x->r[s->val.reg] : 1, tid, s->memo);
		return;
	}
	v = s->has_val ? utrace_bt_fast_val(&s->val, x) : 1;
	if (s->nkeys <= 1) { /* one integer or none (its key byte 0): 16 bytes */
		utrace_bt_table_update16(s->m, &s->d,
					 s->nkeys ? (uint64_t)utrace_bt_fast_val(&s->keys[0], x) : 0, v,
					 tid, s->memo);
		return;
	}
	for (uint32_t i = 0; i < s->nkeys; i++)
		key[i] = (uint64_t)utrace_bt_fast_val(&s->keys[i], x);
	utrace_bt_table_update(s->m, &s->d, (const uint8_t *)key, v, tid);
}

/* One step's update on one hit, from thread tid (its stripe): a step of
 * arguments (`@c[arg0] = count()`, `@h = hist(arg1)`, sum(), avg(),
 * stats()) with its aggregation a constant, at a third less a hit than
 * with the description's read at each branch (bench/hotpaths.sh's bt
 * row); sum, avg and stats update the same two sums alike. */
static inline __attribute__((always_inline)) void
utrace_bt_fast_step(const struct utrace_bt_fstep *s, const struct utrace_bt_fhit *x, uint32_t tid)
{
	if (__builtin_expect(s->args && !x->entry, 1))
		switch (s->d.agg) {
		case UTRACE_BTT_COUNT:
			utrace_bt_fast_args(s, x->r, tid, UTRACE_BTT_COUNT);
			return;
		case UTRACE_BTT_HIST:
			utrace_bt_fast_args(s, x->r, tid, UTRACE_BTT_HIST);
			return;
		case UTRACE_BTT_SUM:
		case UTRACE_BTT_AVG:
		case UTRACE_BTT_STATS:
			utrace_bt_fast_args(s, x->r, tid, UTRACE_BTT_SUM);
			return;
		default:
			break;
		}
	utrace_bt_fast_other(s, x, tid);
}

/* The updates of f (bound) on one hit, from thread tid.  The first two
 * steps each in code of its own: a step's branches (its sources, its
 * aggregation) are then always taken alike, and a hit's two updates
 * overlap, where one loop's alternate and wait on each other. */
static inline __attribute__((always_inline)) void utrace_bt_fast_run(const struct utrace_bt_fast *f,
				      const struct utrace_bt_fhit *x, uint32_t tid)
{
	uint32_t n = f->n;

	if (n > 0)
		utrace_bt_fast_step(&f->step[0], x, tid);
	if (n > 1)
		utrace_bt_fast_step(&f->step[1], x, tid);
	for (uint32_t k = 2; k < n && k < UTRACE_BT_FAST_STEPS; k++)
		utrace_bt_fast_step(&f->step[k], x, tid);
}

#endif
