/* SPDX-License-Identifier: MIT */
/*
 * bt_table.h - a bpftrace map where the program runs at the hit: the
 * aggregations of common/bt_prog.h (count, sum, min, max, avg, stats,
 * hist, lhist) kept in a table of common/hist_map.h, so that a hit costs
 * no system call, no allocation and no lock, as bpftrace's per-CPU maps.
 *
 * Why hist_map: it is already the lock-free, never-growing, signal-safe
 * table a traced process shares with the recorder (a memfd), and its
 * stripes are bpftrace's per-CPU maps made per thread: a thread that owns
 * a stripe adds with one plain instruction, the reader merges the stripes
 * (utrace_hist_map_merge).  A bt map is one table:
 *
 *   key  = u64 bucket | the bt key bytes (common/bt_prog.h), padded to 8
 *   sums = [0] the updates (n), [1] the value
 *
 * hist() and lhist() put the bucket in the key (an entry a bucket, its
 * n the bucket's count), so every aggregation is two sums: count: n;
 * sum: n and the sum; avg, stats: n and the sum; min, max: n and the
 * extreme so far, kept with a compare-and-swap in an order-preserving
 * encoding whose 0 is "nothing yet" (an entry with n > 0 decodes 0 as
 * the extreme value itself, so no value is lost to the sentinel).  The
 * reader (lib/bt/bt_inproc.c) turns each entry back into the tool's map
 * element; the printed maps are those of the replay path, byte for byte.
 */
#ifndef UTRACE_COMMON_BT_TABLE_H
#define UTRACE_COMMON_BT_TABLE_H

#include <stdint.h>

#include "common/bt_prog.h"
#include "common/hist_map.h"
#include "common/hist_memo.h"

/* enum utrace_bt_agg of lib/bt/bt_print.h, which lib/bt checks these against */
enum utrace_bt_tagg {
	UTRACE_BTT_COUNT = 1, UTRACE_BTT_SUM, UTRACE_BTT_MIN, UTRACE_BTT_MAX, UTRACE_BTT_AVG,
	UTRACE_BTT_STATS, UTRACE_BTT_HIST, UTRACE_BTT_LHIST
};

#define UTRACE_BT_TABLE_SUMS 2u
#define UTRACE_BT_TABLE_HIST_BUCKETS 66u /* bucket 0: < 0, 1: 0, k: [2^(k-2), 2^(k-1)) */
#define UTRACE_BT_TABLE_BITS_MAX 16u	 /* stripes stop above this (hist_map.h) */

/* The bytes of a map's key (a map without keys: one byte, 0). */
static inline uint32_t utrace_bt_key_len(const struct utrace_bt_mapdesc *d)
{
	uint32_t len = 0;

	for (uint32_t i = 0; i < d->nkeys; i++)
		len += d->key_str >> i & 1 ? UTRACE_BT_STRLEN : 8;
	return len ? len : 1;
}

static inline uint32_t utrace_bt_table_key_size(const struct utrace_bt_mapdesc *d)
{
	return 8 + ((utrace_bt_key_len(d) + 7) & ~7u);
}

/* Whether a map of d's aggregation can live in a table. */
static inline int utrace_bt_table_agg_ok(const struct utrace_bt_mapdesc *d)
{
	return d->agg >= UTRACE_BTT_COUNT && d->agg <= UTRACE_BTT_LHIST && !d->value_str &&
	       (d->agg != UTRACE_BTT_LHIST || d->lstep > 0);
}

/* bpftrace's hist() bucket of v. */
static inline uint32_t utrace_bt_hist_bucket(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + (63u - (uint32_t)__builtin_clzll((uint64_t)v));
}

static inline uint32_t utrace_bt_lhist_nbuckets(const struct utrace_bt_mapdesc *d)
{
	return d->lstep > 0 ? (uint32_t)((d->lmax - d->lmin) / d->lstep + 2) : 0;
}

/* lhist(v, min, max, step)'s bucket: 0 below min, the last at max and above. */
static inline uint32_t utrace_bt_lhist_bucket(const struct utrace_bt_mapdesc *d, int64_t v)
{
	if (v < d->lmin)
		return 0;
	if (v >= d->lmax)
		return utrace_bt_lhist_nbuckets(d) - 1;
	return (uint32_t)((v - d->lmin) / d->lstep) + 1;
}

/* min and max in an order that compares as unsigned, 0 the least. */
static inline uint64_t utrace_bt_ext_enc(uint32_t agg, int64_t v)
{
	uint64_t u = (uint64_t)v ^ (1ull << 63);

	return agg == UTRACE_BTT_MIN ? ~u : u;
}

static inline int64_t utrace_bt_ext_dec(uint32_t agg, uint64_t u)
{
	return (int64_t)((agg == UTRACE_BTT_MIN ? ~u : u) ^ (1ull << 63));
}

static inline void utrace_bt_table_add(uint64_t *elt_sum, uint64_t *stripe_sum, uint64_t v)
{
	if (stripe_sum)
		utrace_hist_add_owned(stripe_sum, v);
	else
		__atomic_fetch_add(elt_sum, v, __ATOMIC_RELAXED);
}

/*
 * The hash of a table's key (its words), where hist_map.h's tables use
 * jhash: the kernel's, which a hist trigger's table keeps so that its
 * entries come out in the kernel's slot order.  A bt map is printed in
 * bpftrace's order (lib/bt sorts it), and nobody looks one up by hash but
 * its inserters, which all hash here (the interpreter's path and
 * bt_fast.h's alike), so it takes a multiply-xorshift per word: a
 * 16-byte key's jhash was a third of an update.  The slot comes from the
 * top bits, which the last multiply mixes from every bit of the key.
 */
static inline __attribute__((always_inline)) uint32_t utrace_bt_key_hash(const uint64_t *k,
									 uint32_t words)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint32_t h;

	for (uint32_t i = 0; i < words; i++) {
		x = (x ^ k[i]) * 0xff51afd7ed558ccdull;
		x ^= x >> 32;
	}
	h = (uint32_t)((x * 0xc4ceb9fe1a85ec53ull) >> 32);
	return h ? h : 1; /* 0: an empty slot's */
}

/* The sums of element i (its key ks bytes) of m, map d, updated by v
 * from thread tid (its stripe); i UINT32_MAX: the table was full. */
static inline __attribute__((always_inline)) void
utrace_bt_table_sums(struct utrace_hist_map *m, const struct utrace_bt_mapdesc *d, uint32_t i,
		     uint32_t ks, int64_t v, uint32_t tid)
{
	uint64_t *sums, *ss = 0;
	int s;

	if (i == UINT32_MAX) {
		__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
		return;
	}
	sums = (uint64_t *)(utrace_hist_elt(m, i) + ks);
	if ((s = utrace_hist_stripe_claim(m, tid)) >= 0)
		ss = utrace_hist_stripe_sums(m, (uint32_t)s, i);
	if (d->agg == UTRACE_BTT_MIN || d->agg == UTRACE_BTT_MAX) {
		uint64_t e = utrace_bt_ext_enc(d->agg, v), o = __atomic_load_n(&sums[1], __ATOMIC_RELAXED);

		while (o < e && !__atomic_compare_exchange_n(&sums[1], &o, e, 1, __ATOMIC_RELAXED,
							     __ATOMIC_RELAXED))
			;
	} else if (d->agg == UTRACE_BTT_SUM || d->agg == UTRACE_BTT_AVG ||
		   d->agg == UTRACE_BTT_STATS) {
		utrace_bt_table_add(&sums[1], ss ? &ss[1] : 0, (uint64_t)v);
	}
	utrace_bt_table_add(&sums[0], ss ? &ss[0] : 0, 1);
}

/* The first word of a table key: the bucket of v for hist() and lhist(). */
static inline uint64_t utrace_bt_table_bucket(const struct utrace_bt_mapdesc *d, int64_t v)
{
	return d->agg == UTRACE_BTT_HIST    ? utrace_bt_hist_bucket(v)
	       : d->agg == UTRACE_BTT_LHIST ? utrace_bt_lhist_bucket(d, v)
					    : 0;
}

/* A bt map's memo (hist_memo.h) of a 16-byte table key: the word at the
 * sum of its two words' low bits; kept whole when the bucket fits 7 bits
 * and the key 24. */
#define UTRACE_BT_MEMO UTRACE_HIST_MEMO

static inline uint32_t utrace_bt_memo_at(const uint64_t *tkey)
{
	return (uint32_t)(tkey[0] + tkey[1]) & (UTRACE_BT_MEMO - 1);
}

static inline int utrace_bt_memo_exact(const uint64_t *tkey)
{
	return tkey[0] < 128 && tkey[1] < (1u << 24);
}

static inline uint64_t utrace_bt_memo_low(const uint64_t *tkey)
{
	return tkey[0] << 24 | (tkey[1] & ((1u << 24) - 1));
}

/* utrace_bt_table_update of a map with one integer key k1 or none (k1 0),
 * the common case: a 16-byte table key, built, hashed and compared in
 * registers (bt_fast.h calls it straight, with its memo; NULL: none). */
static inline __attribute__((always_inline)) void
utrace_bt_table_update16(struct utrace_hist_map *m, const struct utrace_bt_mapdesc *d, uint64_t k1,
			 int64_t v, uint32_t tid, uint64_t *memo)
{
	uint64_t tkey[2] = {utrace_bt_table_bucket(d, v), k1};
	uint32_t i = UINT32_MAX, gen;

	if (m->key_size != 16 || m->nr_sums != UTRACE_BT_TABLE_SUMS)
		return;
	gen = __atomic_load_n(&m->gen, __ATOMIC_ACQUIRE);
	if (memo)
		i = utrace_hist_memo_get(m, memo, utrace_bt_memo_at(tkey), gen,
					 utrace_bt_memo_exact(tkey), utrace_bt_memo_low(tkey), tkey, 16);
	if (i == UINT32_MAX) {
		i = utrace_hist_map_insert_idx_h(m, (const uint8_t *)tkey, 16,
						 utrace_bt_key_hash(tkey, 2));
		if (memo && i != UINT32_MAX)
			utrace_hist_memo_put(m, memo, utrace_bt_memo_at(tkey), gen,
					     utrace_bt_memo_exact(tkey), utrace_bt_memo_low(tkey), i);
	}
	utrace_bt_table_sums(m, d, i, 16, v, tid);
}

/* One update of map d (its table m) at key by value v, from thread tid;
 * signal-safe, allocation-free.  key has its length rounded up to 8 bytes
 * readable (the interpreter's key buffer).  A full table counts a drop. */
static inline void utrace_bt_table_update(struct utrace_hist_map *m,
					  const struct utrace_bt_mapdesc *d, const uint8_t *key,
					  int64_t v, uint32_t tid)
{
	uint64_t tkey[(8 + UTRACE_BT_KEY_MAX + 8) / 8];
	uint32_t klen = utrace_bt_key_len(d), ks = m->key_size;

	if (ks != utrace_bt_table_key_size(d) || m->nr_sums != UTRACE_BT_TABLE_SUMS)
		return;
	tkey[0] = utrace_bt_table_bucket(d, v);
	/* word by word, no memcpy: the runtime calls no libc at the hit (libc's
	 * would use the vector registers the probed function's caller set) */
	for (uint32_t j = 0; j < ks - 8; j += 8)
		tkey[1 + j / 8] = *(const utrace_fp_u64 *)(key + j);
	if (klen & 7) /* the bytes past the key are not the key's */
		tkey[ks / 8 - 1] &= (1ull << (8 * (klen & 7))) - 1;
	if (ks == 16) {
		utrace_bt_table_update16(m, d, tkey[1], v, tid, 0);
		return;
	}
	utrace_bt_table_sums(m, d,
			     utrace_hist_map_insert_idx_h(m, (const uint8_t *)tkey, ks,
							  utrace_bt_key_hash(tkey, ks / 8)),
			     ks, v, tid);
}

#endif
