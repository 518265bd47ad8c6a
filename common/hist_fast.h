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

/* A LOAD as utrace_hist_fast_hit reads it, from the hit's own words. */
struct utrace_hist_fast_ld {
	uint32_t off;
	uint8_t size; /* 1, 2, 4, 8 */
	uint8_t sign; /* the insn's imm: sign-extend */
};

/*
 * The commonest loads by name, so that a caller can make a hit for one
 * (utrace_hist_fast_hit_as with constants: no test of a load's size
 * and sign, no loop over the values, measured 2 ns of a 10 ns hit):
 * UTRACE_HFK_ANY reads as the description says, UTRACE_HFK_NONE is "no
 * value" (a trigger that only counts).
 */
enum utrace_hist_fast_kind {
	UTRACE_HFK_ANY,
	UTRACE_HFK_U32,
	UTRACE_HFK_S32,
	UTRACE_HFK_64,
	UTRACE_HFK_NONE,
	UTRACE_HFK_NR
};

struct utrace_hist_fast {
	uint32_t ok; /* the program has the shape: the rest is valid */
	uint32_t nr_vals;
	/* the program's own LOADs (it outlives this), read with the
	 * interpreter's utrace_hist_load() */
	const struct utrace_hist_insn *key;
	const struct utrace_hist_insn *vals[3];
	uint32_t sums[3]; /* the sum each value adds to */
	/* utrace_hist_fast_hit's: the record's bytes that every load reads
	 * inside (UINT64_MAX when the program has a filter or its table no
	 * stripes: never the hit's to count), the loads again without a
	 * pointer to follow, and the table's shape (the program's, which
	 * its table has: the runtime checks it when it maps the table) */
	uint64_t hit_min;
	struct utrace_hist_fast_ld kld, vld[3];
	uint32_t bits, nr_sums;
	uint64_t stripes_off; /* of stripe 0's sums from the table's start */
	/* the key's load and the values' by name (ANY for two or three
	 * values): which utrace_hist_fast_hit_as fits */
	uint8_t key_kind, val_kind;
};

static inline uint8_t utrace_hist_fast_kind_of(struct utrace_hist_fast_ld ld)
{
	if (ld.size == 8)
		return UTRACE_HFK_64;
	if (ld.size == 4)
		return ld.sign ? UTRACE_HFK_S32 : UTRACE_HFK_U32;
	return UTRACE_HFK_ANY;
}

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
	f->kld = (struct utrace_hist_fast_ld){in[0].off, in[0].size, (uint8_t)in[0].imm};
	f->hit_min = (uint64_t)in[0].off + in[0].size;
	for (uint32_t i = 2; i < n; i += 2) {
		if (!utrace_hist_fast_load_ok(&in[i]) || in[i + 1].op != UTRACE_HOP_SUM ||
		    in[i + 1].key_off == 0 || in[i + 1].key_off >= h->nr_sums)
			return;
		f->vals[f->nr_vals] = &in[i];
		f->vld[f->nr_vals] = (struct utrace_hist_fast_ld){in[i].off, in[i].size,
								  (uint8_t)in[i].imm};
		f->sums[f->nr_vals++] = in[i + 1].key_off;
		if ((uint64_t)in[i].off + in[i].size > f->hit_min)
			f->hit_min = (uint64_t)in[i].off + in[i].size;
	}
	f->bits = h->map_bits;
	f->nr_sums = h->nr_sums;
	if (h->filter_len || !utrace_hist_map_stripes(h->map_bits, h->nr_sums))
		f->hit_min = UINT64_MAX;
	else
		f->stripes_off = UTRACE_HIST_MAP_HDR + (16ull << h->map_bits) +
				 (utrace_hist_elt_size(8, h->nr_sums) << h->map_bits);
	f->key_kind = utrace_hist_fast_kind_of(f->kld);
	f->val_kind = !f->nr_vals	 ? UTRACE_HFK_NONE
		      : f->nr_vals == 1 ? utrace_hist_fast_kind_of(f->vld[0])
					: UTRACE_HFK_ANY;
	f->ok = 1;
}

/* The memo (hist_memo.h) word of an 8-byte key: its low bits mixed. */
static inline uint32_t utrace_hist_memo_at(uint64_t key)
{
	return (uint32_t)(key ^ key >> 4 ^ key >> 12) & (UTRACE_HIST_MEMO - 1);
}

/* utrace_hist_load of a LOAD inside the record (the hit checked
 * hit_min): no bounds check. */
static inline __attribute__((always_inline)) uint64_t
utrace_hist_fast_load(struct utrace_hist_fast_ld ld, const uint8_t *rec)
{
	const uint8_t *p = rec + ld.off;

	/* an int first, the commonest field */
	if (ld.size == 4)
		return ld.sign ? (uint64_t)(int64_t)(int32_t) * (const utrace_fp_u32 *)p
			       : *(const utrace_fp_u32 *)p;
	if (ld.size == 8)
		return *(const utrace_fp_u64 *)p;
	if (ld.size == 2)
		return ld.sign ? (uint64_t)(int64_t)(int16_t) * (const utrace_fp_u16 *)p
			       : *(const utrace_fp_u16 *)p;
	return ld.sign ? (uint64_t)(int64_t) * (const int8_t *)p : *p;
}

/* utrace_hist_fast_load of a load the caller knows the kind of. */
static inline __attribute__((always_inline)) uint64_t
utrace_hist_fast_load_as(struct utrace_hist_fast_ld ld, const uint8_t *rec, uint32_t kind)
{
	const uint8_t *p = rec + ld.off;

	if (kind == UTRACE_HFK_U32)
		return *(const utrace_fp_u32 *)p;
	if (kind == UTRACE_HFK_S32)
		return (uint64_t)(int64_t)(int32_t) * (const utrace_fp_u32 *)p;
	if (kind == UTRACE_HFK_64)
		return *(const utrace_fp_u64 *)p;
	return utrace_hist_fast_load(ld, rec);
}

/*
 * The common hit of utrace_hist_fast_run, on its own so that a caller can
 * inline it whole (issue 25): no filter, every load inside the record, a
 * key the memo has, the sums in the thread's own stripe, already claimed
 * (the caller checked hit_min, which says the first two and that the
 * table has stripes, a memo and a tid).  kkind and vkind: f's key_kind
 * and val_kind, or UTRACE_HFK_ANY for any (constants: the hit made for
 * them).  1: counted, as utrace_hist_fast_run would count it; 0: nothing
 * done, the rest is utrace_hist_fast_run's.  Every word it needs but the
 * record's is in f or the table's first line, which the hit reads
 * anyway: the chain of loads from one to the next, which the hit waits
 * for, is the record's key, the memo's word, the sums.
 */
static inline __attribute__((always_inline)) int
utrace_hist_fast_hit_as(const struct utrace_hist_fast *f, struct utrace_hist_map *m,
			const uint8_t *rec, uint32_t tid, const uint64_t *memo, uint32_t kkind,
			uint32_t vkind)
{
	uint32_t s = tid % UTRACE_HIST_STRIPES, gen, idx, vk, n;
	uint64_t key, *sums, v0 = 0, v1 = 0, v2 = 0;

	n = vkind == UTRACE_HFK_NONE ? 0 : vkind == UTRACE_HFK_ANY ? f->nr_vals : 1;
	vk = vkind == UTRACE_HFK_NONE ? UTRACE_HFK_ANY : vkind;
	if (__atomic_load_n(&m->stripe_owner[s], __ATOMIC_RELAXED) != tid ||
	    __atomic_load_n(&m->paused, __ATOMIC_RELAXED))
		return 0;
	key = utrace_hist_fast_load_as(f->kld, rec, kkind);
	gen = __atomic_load_n(&m->gen, __ATOMIC_ACQUIRE);
	idx = utrace_hist_memo_get8(m, memo, gen, f->bits, key);
	if (idx == UTRACE_HIST_MEMO_MISS)
		return 0;
	/* utrace_hist_stripe_sums(m, s, idx): the stripe's base does not
	 * wait for the memo */
	sums = (uint64_t *)((uint8_t *)m + f->stripes_off) + ((uint64_t)s * f->nr_sums << f->bits) +
	       (uint64_t)idx * f->nr_sums;
	/* the values read before any add: an add may change what the
	 * compiler must take for any word of f (measured: a reload of
	 * nr_vals and each load's description after every add) */
	if (n > 0)
		v0 = utrace_hist_fast_load_as(f->vld[0], rec, vk);
	if (n > 1)
		v1 = utrace_hist_fast_load(f->vld[1], rec);
	if (n > 2)
		v2 = utrace_hist_fast_load(f->vld[2], rec);
	utrace_hist_add_owned(&sums[0], 1); /* hitcount */
	if (n > 0)
		utrace_hist_add_owned(&sums[f->sums[0]], v0);
	if (n > 1)
		utrace_hist_add_owned(&sums[f->sums[1]], v1);
	if (n > 2)
		utrace_hist_add_owned(&sums[f->sums[2]], v2);
	return 1;
}

/* The common hit, its shape checked, for any loads. */
static inline __attribute__((always_inline)) int
utrace_hist_fast_hit(const struct utrace_hist_fast *f, struct utrace_hist_map *m,
		     const uint8_t *rec, uint32_t rec_len, uint32_t tid, const uint64_t *memo)
{
	if (rec_len < f->hit_min || !memo || !tid)
		return 0;
	return utrace_hist_fast_hit_as(f, m, rec, tid, memo, UTRACE_HFK_ANY, UTRACE_HFK_ANY);
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

	if (utrace_hist_fast_hit(f, m, c->rec, c->rec_len, tid, memo))
		return;
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
