/* SPDX-License-Identifier: MIT */
/*
 * hist_fast.h - the most common hist trigger run without the interpreter.
 *
 * Most hist triggers people write are "count this field, sum those":
 *
 *   hist:keys=a:vals=b          (hist:keys=common_pid, hist:keys=call_site:vals=bytes_req)
 *
 *   key part:   LOAD a; KEY 0                  one number, the whole key
 *   value part: LOAD b; SUM 1 [; LOAD c; SUM 2 ...]
 *
 * For these utrace_hist_run() spends most of a hit in its own machinery:
 * the 1 KiB key buffer, the frame of variables and refs, the dispatch of
 * each instruction and the general key compare.  utrace_hist_fast_of()
 * recognises the shape once, when the program arrives, and describes it
 * in a few bytes; utrace_hist_fast_run() then does what the interpreter
 * would, straight: the same loads (0 outside the record), the same jhash
 * and the same table (common/hist_map.h), so a table filled by either is
 * the same table, and the same filter first.  Anything else in the
 * program (a modifier that changes a value, a string key, variables,
 * handlers, actions, the clock) leaves it to the interpreter.
 */
#ifndef UTRACE_COMMON_HIST_FAST_H
#define UTRACE_COMMON_HIST_FAST_H

#include <stdint.h>

#include "common/hist_prog.h"

struct utrace_hist_fast_load {
	uint32_t off;	    /* in the record */
	uint8_t size;	    /* 1, 2, 4, 8 */
	uint8_t is_signed;
	uint16_t sum;	    /* value loads: the sum it adds to */
};

struct utrace_hist_fast {
	uint32_t ok; /* the program has the shape: the rest is valid */
	uint32_t nr_vals;
	struct utrace_hist_fast_load key;
	struct utrace_hist_fast_load vals[3];
};

static inline int utrace_hist_fast_load_of(const struct utrace_hist_insn *x,
					   struct utrace_hist_fast_load *l)
{
	if (x->op != UTRACE_HOP_LOAD || x->imm > 1 ||
	    (x->size != 1 && x->size != 2 && x->size != 4 && x->size != 8))
		return -1;
	l->off = x->off;
	l->size = x->size;
	l->is_signed = (uint8_t)x->imm;
	return 0;
}

/* Fills f; f->ok says whether h (a checked program) has the shape. */
static inline void utrace_hist_fast_of(const struct utrace_hist_hdr *h, struct utrace_hist_fast *f)
{
	const struct utrace_hist_insn *in = utrace_hist_insns(h);
	uint32_t n = h->nr_insns;

	__builtin_memset(f, 0, sizeof(*f));
	if (h->key_size != 8 || h->nr_key_insns != 2 || h->nr_resolve_insns ||
	    h->nr_action_insns || h->needs || n < 2 || (n - 2) % 2 || (n - 2) / 2 > 3)
		return;
	if (utrace_hist_fast_load_of(&in[0], &f->key) < 0 || in[1].op != UTRACE_HOP_KEY ||
	    in[1].key_off != 0)
		return;
	for (uint32_t i = 2; i < n; i += 2) {
		struct utrace_hist_fast_load *v = &f->vals[f->nr_vals];

		if (utrace_hist_fast_load_of(&in[i], v) < 0 || in[i + 1].op != UTRACE_HOP_SUM ||
		    in[i + 1].key_off == 0 || in[i + 1].key_off >= h->nr_sums)
			return;
		v->sum = (uint16_t)in[i + 1].key_off;
		f->nr_vals++;
	}
	f->ok = 1;
}

/* LOAD's value: the field extended, 0 if it is not inside the record. */
static inline __attribute__((always_inline)) uint64_t
utrace_hist_fast_load(const struct utrace_hist_fast_load *l, const uint8_t *rec, uint32_t len)
{
	const uint8_t *p = rec + l->off;

	if ((uint64_t)l->off + l->size > len)
		return 0;
	switch (l->size) {
	case 1:
		return l->is_signed ? (uint64_t)(int64_t) * (const int8_t *)p : *p;
	case 2:
		return l->is_signed ? (uint64_t)(int64_t)(int16_t) * (const utrace_fp_u16 *)p
				    : *(const utrace_fp_u16 *)p;
	case 4:
		return l->is_signed ? (uint64_t)(int64_t)(int32_t) * (const utrace_fp_u32 *)p
				    : *(const utrace_fp_u32 *)p;
	default:
		return *(const utrace_fp_u64 *)p;
	}
}

/* One hit, as utrace_hist_run() would count it. */
static inline __attribute__((always_inline)) void
utrace_hist_fast_run(const struct utrace_hist_hdr *h, const struct utrace_hist_fast *f,
		     struct utrace_hist_map *m, const struct utrace_hist_ctx *c)
{
	uint64_t key;
	uint64_t *sums;
	uint8_t *elt;

	if (__atomic_load_n(&m->paused, __ATOMIC_RELAXED))
		return;
	if (h->filter_len && !utrace_filter_run(utrace_hist_filter(h), h->filter_len, c->rec,
						c->rec_len))
		return;
	key = utrace_hist_fast_load(&f->key, c->rec, c->rec_len);
	elt = utrace_hist_map_insert_ks(m, (const uint8_t *)&key, 8);
	if (!elt) {
		__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
		return;
	}
	sums = (uint64_t *)(elt + 8);
	__atomic_fetch_add(&sums[0], 1, __ATOMIC_RELAXED); /* hitcount */
	for (uint32_t i = 0; i < f->nr_vals; i++)
		__atomic_fetch_add(&sums[f->vals[i].sum],
				   utrace_hist_fast_load(&f->vals[i], c->rec, c->rec_len),
				   __ATOMIC_RELAXED);
}

#endif
