/* SPDX-License-Identifier: MIT */
/*
 * hist_memo.h - a hitter's memo of a common/hist_map.h table's elements
 * (hist_fast.h's hist triggers, bt_table.h's bt maps), so that a hit of a
 * key seen before skips the table's longest chain of dependent loads: the
 * key's hash, its slot's load, the element's key load to compare.
 *
 * One memo per trigger or map, in the process's own memory (a fork child
 * has its copy, of the same shared table): UTRACE_HIST_MEMO 64-bit words,
 * each written in one store and read in one load:
 *
 *   63      47 46      32  31     30        0
 *   | elt + 1 | gen (15) | exact | key (31) |
 *
 * Only an index the table returned for the key (a published entry) is
 * kept.  A key that fits 31 bits is kept whole ("exact"): the word alone
 * then proves which element is the key's, and the hit goes to its sums
 * with no load of the element.  Any other key is compared with the
 * element's before the element is used; elements never move and never
 * change key while their slot names them, so a colliding or stale word
 * only sends the hit to the table.  What :clear (utrace_hist_map_empty)
 * hands out again is told apart by the table's gen, read before the
 * insert whose index is kept: a word would have to outlive 32768 clears
 * unread to be taken for a new one.  Release and acquire: whoever reads
 * an index sees its element's key.  Tables of up to 2^16 elements only
 * (17 bits of an index + 1: the striped ones).
 */
#ifndef UTRACE_COMMON_HIST_MEMO_H
#define UTRACE_COMMON_HIST_MEMO_H

#include <stdint.h>

#include "common/hist_map.h"

#define UTRACE_HIST_MEMO 256u
#define UTRACE_HIST_MEMO_KEY ((1ull << 31) - 1)
#define UTRACE_HIST_MEMO_MISS UINT32_MAX

/* The word of a key kept whole (low, its 31-bit form) in generation gen,
 * below its element: a word whose low 47 bits are these is the key's,
 * which one compare tells (get8's common hit: 8.0 -> 7.6 ns a hit of
 * the loop of utrace_hist_fast_hit alone; the general get, whose key's
 * whole form takes more to make, measured slower so). */
static inline uint64_t utrace_hist_memo_whole(uint32_t gen, uint64_t low)
{
	return (uint64_t)(gen & 0x7fff) << 32 | 1ull << 31 | (low & UTRACE_HIST_MEMO_KEY);
}
#define UTRACE_HIST_MEMO_LOW47 ((1ull << 47) - 1)

/* The element of key (ks bytes at key; its 31-bit form low when exact)
 * by memo word `at`, or UTRACE_HIST_MEMO_MISS. */
static inline __attribute__((always_inline)) uint32_t
utrace_hist_memo_get(struct utrace_hist_map *m, const uint64_t *memo, uint32_t at, uint32_t gen,
		     int exact, uint64_t low, const uint64_t *key, uint32_t ks)
{
	uint64_t w = __atomic_load_n(&memo[at % UTRACE_HIST_MEMO], __ATOMIC_ACQUIRE);
	uint32_t e = (uint32_t)(w >> 47);
	const uint8_t *ek;

	if (!e || (uint32_t)(w >> 32 & 0x7fff) != (gen & 0x7fff) || m->bits > 16 ||
	    e - 1 >= (1u << m->bits))
		return UTRACE_HIST_MEMO_MISS;
	if (w >> 31 & 1) /* a key kept whole: it is ours or another's */
		return exact && (w & UTRACE_HIST_MEMO_KEY) == low ? e - 1 : UTRACE_HIST_MEMO_MISS;
	ek = utrace_hist_elt(m, e - 1);
	for (uint32_t i = 0; i < ks; i += 8)
		if (*(const utrace_fp_u64 *)(ek + i) != key[i / 8])
			return UTRACE_HIST_MEMO_MISS;
	return e - 1;
}

/* utrace_hist_memo_get of a one-word key (hist_fast.h's), at its own
 * word (utrace_hist_memo_at), in a table of at most 2^16 elements (the
 * caller's check): the key in a register, no pointer to it. */
static inline __attribute__((always_inline)) uint32_t
utrace_hist_memo_get8(struct utrace_hist_map *m, const uint64_t *memo, uint32_t gen, uint32_t bits,
		      uint64_t key)
{
	uint64_t w = __atomic_load_n(&memo[(key ^ key >> 4 ^ key >> 12) % UTRACE_HIST_MEMO],
				     __ATOMIC_ACQUIRE);
	uint32_t e = (uint32_t)(w >> 47);

	/* (w & LOW47) == utrace_hist_memo_whole(gen, key) for a key of 31
	 * bits, in fewer steps: the shift drops the element and the bits of
	 * gen above its 15 */
	if (key <= UTRACE_HIST_MEMO_KEY && !((w ^ (key | 1ull << 31 | (uint64_t)gen << 32)) << 17))
		return e - 1 < (1u << bits) ? e - 1 : UTRACE_HIST_MEMO_MISS;
	if (!e || ((uint32_t)(w >> 32) ^ gen) & 0x7fff || e - 1 >= (1u << bits))
		return UTRACE_HIST_MEMO_MISS;
	if (w >> 31 & 1) /* a key kept whole: it is ours or another's */
		return key <= UTRACE_HIST_MEMO_KEY && (w & UTRACE_HIST_MEMO_KEY) == key
			       ? e - 1
			       : UTRACE_HIST_MEMO_MISS;
	return *(const utrace_fp_u64 *)utrace_hist_elt(m, e - 1) == key ? e - 1
									 : UTRACE_HIST_MEMO_MISS;
}

/* Keeps element idx, which the table returned for the key, at word at. */
static inline __attribute__((always_inline)) void
utrace_hist_memo_put(struct utrace_hist_map *m, uint64_t *memo, uint32_t at, uint32_t gen,
		     int exact, uint64_t low, uint32_t idx)
{
	if (m->bits > 16)
		return;
	__atomic_store_n(&memo[at % UTRACE_HIST_MEMO],
			 (uint64_t)(idx + 1) << 47 | (uint64_t)(gen & 0x7fff) << 32 |
				 (exact ? 1ull << 31 | (low & UTRACE_HIST_MEMO_KEY) : 0),
			 __ATOMIC_RELEASE);
}

#endif
