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
 * in a few words; utrace_hist_fast_run() then does what the interpreter
 * would, straight: the same loads (utrace_hist_load), the same jhash
 * and the same table (common/hist_map.h), so a table filled by either is
 * the same table, and the same filter first.  It adds into the hitting
 * thread's stripe of the table (hist_map.h: no locked add) when the
 * thread owns one, else into the shared sums with locked adds; a reader
 * merges them (utrace_hist_map_merge).  Anything else in the
 * program (a modifier that changes a value, a string key, variables,
 * handlers, actions, the clock) leaves it to the interpreter.
 */
#ifndef UTRACE_COMMON_HIST_FAST_H
#define UTRACE_COMMON_HIST_FAST_H

#include <stdint.h>

#include "common/hist_memo.h"
#include "common/hist_prog.h"

struct utrace_hist_fast {
	uint32_t ok; /* the program has the shape: the rest is valid */
	uint32_t nr_vals;
	/* the program's own LOADs (it outlives this), read with the
	 * interpreter's utrace_hist_load() */
	const struct utrace_hist_insn *key;
	const struct utrace_hist_insn *vals[3];
	uint32_t sums[3]; /* the sum each value adds to */
};

static inline int utrace_hist_fast_load_ok(const struct utrace_hist_insn *x)
{
	return x->op == UTRACE_HOP_LOAD && x->imm <= 1 &&
	       (x->size == 1 || x->size == 2 || x->size == 4 || x->size == 8);
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
	if (!utrace_hist_fast_load_ok(&in[0]) || in[1].op != UTRACE_HOP_KEY || in[1].key_off != 0)
		return;
	f->key = &in[0];
	for (uint32_t i = 2; i < n; i += 2) {
		if (!utrace_hist_fast_load_ok(&in[i]) || in[i + 1].op != UTRACE_HOP_SUM ||
		    in[i + 1].key_off == 0 || in[i + 1].key_off >= h->nr_sums)
			return;
		f->vals[f->nr_vals] = &in[i];
		f->sums[f->nr_vals++] = in[i + 1].key_off;
	}
	f->ok = 1;
}

/* The memo (hist_memo.h) word of an 8-byte key: its low bits mixed. */
static inline uint32_t utrace_hist_memo_at(uint64_t key)
{
	return (uint32_t)(key ^ key >> 4 ^ key >> 12) & (UTRACE_HIST_MEMO - 1);
}

/* One hit, as utrace_hist_run() would count it; tid is the hitting
 * thread's (its stripe of the table; 0: the shared sums).  Not in the
 * ctx: one word more there and the ctx's zeroing becomes a rep stos that
 * costs more than the locked adds the stripes save.  memo: the trigger's
 * (hist_memo.h: UTRACE_HIST_MEMO zeroed words at first), or NULL. */
static inline __attribute__((always_inline)) void
utrace_hist_fast_run(const struct utrace_hist_hdr *h, const struct utrace_hist_fast *f,
		     struct utrace_hist_map *m, const struct utrace_hist_ctx *c, uint32_t tid,
		     uint64_t *memo)
{
	uint64_t key;
	uint64_t *sums;
	uint32_t idx, gen;
	int stripe;

	if (__atomic_load_n(&m->paused, __ATOMIC_RELAXED))
		return;
	if (h->filter_len && !utrace_filter_run(utrace_hist_filter(h), h->filter_len, c->rec,
						c->rec_len))
		return;
	key = utrace_hist_load(f->key, c);
	gen = __atomic_load_n(&m->gen, __ATOMIC_ACQUIRE);
	idx = memo ? utrace_hist_memo_get(m, memo, utrace_hist_memo_at(key), gen,
					  key <= UTRACE_HIST_MEMO_KEY, key, &key, 8)
		   : UINT32_MAX;
	if (idx == UINT32_MAX) {
		idx = utrace_hist_map_insert_idx(m, (const uint8_t *)&key, 8);
		if (memo && idx != UINT32_MAX)
			utrace_hist_memo_put(m, memo, utrace_hist_memo_at(key), gen,
					     key <= UTRACE_HIST_MEMO_KEY, key, idx);
	}
	if (idx == UINT32_MAX) {
		__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
		return;
	}
	stripe = utrace_hist_stripe_claim(m, tid);
	if (stripe >= 0) {
		/* this thread's own copy of the sums (hist_map.h): no lock */
		sums = utrace_hist_stripe_sums(m, (uint32_t)stripe, idx);
		utrace_hist_add_owned(&sums[0], 1); /* hitcount */
		for (uint32_t i = 0; i < f->nr_vals; i++)
			utrace_hist_add_owned(&sums[f->sums[i]], utrace_hist_load(f->vals[i], c));
		return;
	}
	/* the stripe is another thread's: the shared sums, locked */
	sums = (uint64_t *)(utrace_hist_elt(m, idx) + 8);
	__atomic_fetch_add(&sums[0], 1, __ATOMIC_RELAXED); /* hitcount */
	for (uint32_t i = 0; i < f->nr_vals; i++)
		__atomic_fetch_add(&sums[f->sums[i]], utrace_hist_load(f->vals[i], c),
				   __ATOMIC_RELAXED);
}

#endif
