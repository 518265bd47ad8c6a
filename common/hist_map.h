/* SPDX-License-Identifier: MIT */
/*
 * hist_map.h - the table a hist trigger fills (common/hist_prog.h runs the
 * trigger), shared by every process that has the event.
 *
 * The table is the kernel's tracing_map (kernel/trace/tracing_map.c),
 * in shared memory (a memfd the recorder makes and every traced process
 * maps, so the fork children of a program add to the same histogram, as
 * the kernel's one table per trigger), with indexes instead of pointers:
 *
 *   +--------------------+  0
 *   | utrace_hist_map    |  sizes, next_elt, drops
 *   +--------------------+  UTRACE_HIST_MAP_HDR
 *   | slots[2 * max]     |  { u32 hash, u32 elt + 1 }: open addressing
 *   +--------------------+
 *   | elts[max]          |  key_size bytes of key, then nr_sums u64s
 *   +--------------------+
 *
 * Insert (after Cliff Click's lock-free hash table, as tracing_map): the
 * key's jhash (0 made 1; a bt map's own hash, common/bt_table.h) picks
 * the first slot, hash >> (32 - (bits + 1));
 * linear probing.  A slot is one 64-bit word, hash << 32 | (element + 1),
 * 0 when empty.  A slot whose hash matches and whose element's key is
 * equal is the entry.  At an empty slot the inserter takes the next free
 * element from next_elt (an atomic add: elements are never freed, so no
 * ABA), copies the key into it, and publishes hash and element together
 * with one compare-and-swap (release): a reader (acquire) sees an empty
 * slot or a complete entry, never a half-made one.  The kernel claims the
 * hash first and publishes the element after, and a reader that sees the
 * hash alone retries; it can, because nothing preempts a tracer there.
 * Here the inserter may be preempted, or be the very thread whose signal
 * handler is looking, so nobody ever waits for anybody: the price is that
 * an inserter that loses the race for a slot leaves its element unused
 * (never in a slot, so never read).  When no element is left the hit is
 * counted in drops.  The table never grows and never deletes, so nothing
 * here allocates or frees: it is safe in any context, signal handlers
 * included.  Sums are atomic adds.  A reader lists the entries by walking
 * the slots, in slot order, as tracing_map_sort_entries does.
 *
 * Stripes (as bpftrace's per-CPU maps, per thread here): a locked add
 * costs as much as the rest of a hit, and the common trigger (hist_fast.h)
 * does two (hitcount, value).  So a table of few sums has, after its
 * elements, UTRACE_HIST_STRIPES more copies of every element's sums, each
 * written by one thread only: stripe tid % STRIPES belongs to the first
 * thread that claims its owner word (in the header's first line) (a compare-and-swap, once; tids are
 * unique among live threads of the machine, and a fork child reads its
 * own), and its owner adds with a plain one-instruction add (no lock: no
 * other thread writes it, and a signal handler of the same thread cannot
 * split one instruction).  A thread whose stripe another owns adds to the
 * element with locked adds, as before.  A reader adds every stripe's sums
 * to the element's (utrace_hist_map_merge): stripes of a sum nobody
 * striped are 0.  Totals, size= (the entries) and drops are unchanged.
 */
#ifndef UTRACE_COMMON_HIST_MAP_H
#define UTRACE_COMMON_HIST_MAP_H

#include <stdint.h>

#include "common/filter_prog.h"
#include "common/jhash.h"

/* ---- the table ------------------------------------------------------ */

#define UTRACE_HIST_MAP_MAGIC 0x504d4855u /* "UHMP" */
#define UTRACE_HIST_MAP_HDR 128u

struct utrace_hist_map {
	uint32_t magic;
	uint32_t bits;	   /* max elements = 1 << bits, slots = 2 << bits */
	uint32_t key_size; /* as the program's */
	uint32_t nr_sums;
	uint32_t paused; /* pause/cont: hits are not counted while set */
	uint32_t gen;	 /* + 1 at each utrace_hist_map_empty: a hitter's memo
			  * of elements (hist_memo.h) drops what it kept before */
	/* the stripes' owners (tids, 0 when free; see the top): in the line
	 * every hit reads anyway, written once per thread */
	uint32_t stripe_owner[8];
	_Alignas(64) uint64_t next_elt; /* elements handed out (atomic) */
	/* Totals' Hits is not counted here but added up from the entries'
	 * hit counts when the table is read (the same number: a hit counts
	 * once it has its entry): one shared cache line fewer to fight over
	 * on every hit. */
	uint64_t hits_unused;
	uint64_t drops; /* hits lost because the table was full */
	/* onmax().snapshot() / onchange().snapshot() (common/hist_prog.h,
	 * SNAPSHOT): the tracked value of the last snapshot taken, and how
	 * many were taken; the element that took the last one has snap_seq
	 * in its marker sum (an element index would not survive the reader's
	 * copy of the entries in slot order). */
	uint64_t snap_val;
	uint64_t snap_seq;
};

_Static_assert(sizeof(struct utrace_hist_map) <= UTRACE_HIST_MAP_HDR, "map header fits");
_Static_assert(__builtin_offsetof(struct utrace_hist_map, stripe_owner) + 32 <= 64,
	       "the owners share the first line");

/* A slot: hash << 32 | (element index + 1); 0 when empty. */
typedef uint64_t utrace_hist_mslot_t;
struct utrace_hist_mslot {
	uint64_t word;
};

static inline uint32_t utrace_hist_slot_elt(uint64_t w)
{
	return (uint32_t)w - 1; /* for a used slot */
}

static inline uint64_t utrace_hist_elt_size(uint32_t key_size, uint32_t nr_sums)
{
	return key_size + 8ull * nr_sums;
}

/* Stripes of a table: only small ones (the fast path's sums, at most 4;
 * at most 65536 entries: 16 MiB of stripes at most, touched as used). */
#define UTRACE_HIST_STRIPES 8u /* struct utrace_hist_map's stripe_owner[] */

static inline uint32_t utrace_hist_map_stripes(uint32_t bits, uint32_t nr_sums)
{
	return nr_sums && nr_sums <= 4 && bits <= 16 ? UTRACE_HIST_STRIPES : 0;
}

static inline uint64_t utrace_hist_stripes_bytes(uint32_t bits, uint32_t nr_sums)
{
	uint32_t n = utrace_hist_map_stripes(bits, nr_sums);

	return n * (1ull << bits) * 8ull * nr_sums;
}

static inline uint64_t utrace_hist_map_bytes(uint32_t bits, uint32_t key_size, uint32_t nr_sums)
{
	return UTRACE_HIST_MAP_HDR + (2ull << bits) * sizeof(struct utrace_hist_mslot) +
	       (1ull << bits) * utrace_hist_elt_size(key_size, nr_sums) +
	       utrace_hist_stripes_bytes(bits, nr_sums);
}

static inline struct utrace_hist_mslot *utrace_hist_slots(struct utrace_hist_map *m)
{
	return (struct utrace_hist_mslot *)((uint8_t *)m + UTRACE_HIST_MAP_HDR);
}

static inline uint8_t *utrace_hist_elt(struct utrace_hist_map *m, uint32_t i)
{
	return (uint8_t *)(utrace_hist_slots(m) + (2ull << m->bits)) +
	       (uint64_t)i * utrace_hist_elt_size(m->key_size, m->nr_sums);
}

/* The stripes' owners (u32 tids, 0 when free); NULL if m has none. */
static inline uint32_t *utrace_hist_stripe_owners(struct utrace_hist_map *m)
{
	if (!utrace_hist_map_stripes(m->bits, m->nr_sums))
		return 0;
	return m->stripe_owner;
}

/* Stripe s's sums of element i (nr_sums u64s), after the elements. */
static inline uint64_t *utrace_hist_stripe_sums(struct utrace_hist_map *m, uint32_t s, uint32_t i)
{
	uint64_t *base = (uint64_t *)utrace_hist_elt(m, 1u << m->bits);

	return base + ((uint64_t)s << m->bits | i) * m->nr_sums;
}

/* The stripe tid may add to without a lock, or -1 (another owns it). */
static inline int utrace_hist_stripe_claim(struct utrace_hist_map *m, uint32_t tid)
{
	uint32_t *owners = utrace_hist_stripe_owners(m), s = tid % UTRACE_HIST_STRIPES, o;

	if (!owners || !tid)
		return -1;
	o = __atomic_load_n(&owners[s], __ATOMIC_RELAXED);
	if (o == tid)
		return (int)s;
	if (o || !__atomic_compare_exchange_n(&owners[s], &o, tid, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED))
		return -1;
	return (int)s;
}

/* *p += v by the one thread that writes *p: one instruction, no lock. */
static inline __attribute__((always_inline)) void utrace_hist_add_owned(uint64_t *p, uint64_t v)
{
#if defined(__x86_64__)
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "r"(v));
#else
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* A reader: element i's sums (out, nr_sums u64s) plus every stripe's. */
static inline void utrace_hist_map_merge(struct utrace_hist_map *m, uint32_t i, uint8_t *out_sums)
{
	uint32_t n = utrace_hist_map_stripes(m->bits, m->nr_sums);

	for (uint32_t s = 0; s < n; s++) {
		const uint64_t *ss = utrace_hist_stripe_sums(m, s, i);

		for (uint32_t j = 0; j < m->nr_sums; j++) {
			uint64_t v;

			__builtin_memcpy(&v, out_sums + 8 * j, 8);
			v += __atomic_load_n(&ss[j], __ATOMIC_RELAXED);
			__builtin_memcpy(out_sums + 8 * j, &v, 8);
		}
	}
}

static inline int utrace_hist_keyeq(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 8)
		if (*(const utrace_fp_u64 *)(a + i) != *(const utrace_fp_u64 *)(b + i))
			return 0;
	return 1;
}

/* utrace_hist_map_insert_idx with the key's hash h (not 0) given: for
 * tables whose every inserter hashes alike and that nobody looks up by
 * hash (common/bt_table.h's), a hash cheaper than jhash. */
static inline __attribute__((always_inline)) uint32_t
utrace_hist_map_insert_idx_h(struct utrace_hist_map *m, const uint8_t *key, uint32_t ks, uint32_t h)
{
	uint32_t nslots = 2u << m->bits, max = 1u << m->bits;
	uint32_t idx, mine = UINT32_MAX;
	struct utrace_hist_mslot *slots = utrace_hist_slots(m);

	idx = h >> (32 - (m->bits + 1));
	for (uint32_t probes = 0; probes < nslots; probes++, idx = (idx + 1) & (nslots - 1)) {
		/* acquire: a published element's key is there to compare */
		uint64_t w = __atomic_load_n(&slots[idx].word, __ATOMIC_ACQUIRE);

		if (!w) {
			if (mine == UINT32_MAX) {
				uint8_t *elt;

				mine = (uint32_t)__atomic_fetch_add(&m->next_elt, 1, __ATOMIC_RELAXED);
				if (mine >= max)
					return UINT32_MAX;
				elt = utrace_hist_elt(m, mine);
				for (uint32_t i = 0; i < ks; i += 8)
					*(utrace_fp_u64 *)(elt + i) = *(const utrace_fp_u64 *)(key + i);
			}
			/* release: the key is in the element before the slot
			 * names it; on failure w is the entry that won */
			if (__atomic_compare_exchange_n(&slots[idx].word, &w,
							(uint64_t)h << 32 | (mine + 1u), 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return mine;
		}
		if ((uint32_t)(w >> 32) == h && utrace_hist_slot_elt(w) < max &&
		    utrace_hist_keyeq(utrace_hist_elt(m, utrace_hist_slot_elt(w)), key, ks))
			return utrace_hist_slot_elt(w);
	}
	return UINT32_MAX;
}

/* The index of key's element (ks bytes, the table's key_size), inserted
 * if new; UINT32_MAX if the table is full.  Always inlined so that a
 * caller that knows ks (hist_fast.h: 8) gets the hash and the compare
 * unrolled for it. */
static inline __attribute__((always_inline)) uint32_t
utrace_hist_map_insert_idx(struct utrace_hist_map *m, const uint8_t *key, uint32_t ks)
{
	uint32_t h = utrace_jhash(key, ks, 0);

	return utrace_hist_map_insert_idx_h(m, key, ks, h ? h : 1);
}

/* The element of key (ks bytes), inserted if new; NULL if the table is full. */
static inline __attribute__((always_inline)) uint8_t *
utrace_hist_map_insert_ks(struct utrace_hist_map *m, const uint8_t *key, uint32_t ks)
{
	uint32_t i = utrace_hist_map_insert_idx(m, key, ks);

	return i == UINT32_MAX ? 0 : utrace_hist_elt(m, i);
}


/* The element of key, inserted if new; NULL if the table is full. */
static inline uint8_t *utrace_hist_map_insert(struct utrace_hist_map *m, const uint8_t *key)
{
	return utrace_hist_map_insert_ks(m, key, m->key_size);
}

/* :clear's emptying (lib/record/recorder_histlive.c, the table paused):
 * the slots go first (a reader or an inserter finds none of the old
 * entries), then the elements and the stripes' sums (the owners stay),
 * then the counter hands the elements out again from the first. */
static inline void utrace_hist_map_empty(struct utrace_hist_map *m)
{
	uint32_t nslots = 2u << m->bits;
	struct utrace_hist_mslot *slots = utrace_hist_slots(m);

	__atomic_fetch_add(&m->gen, 1, __ATOMIC_SEQ_CST); /* before any element goes */
	for (uint32_t i = 0; i < nslots; i++)
		__atomic_store_n(&slots[i].word, 0, __ATOMIC_RELAXED);
	/* release: the slots read empty before an element is cleared */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__builtin_memset(utrace_hist_elt(m, 0), 0,
			 (1ull << m->bits) * utrace_hist_elt_size(m->key_size, m->nr_sums) +
				 utrace_hist_stripes_bytes(m->bits, m->nr_sums));
	__atomic_store_n(&m->drops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&m->snap_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&m->snap_val, 0, __ATOMIC_RELAXED);
	/* release: the elements are zero before one is handed out again */
	__atomic_store_n(&m->next_elt, 0, __ATOMIC_RELEASE);
}

/* The element of key if it is in the table, else NULL; never inserts
 * (RESOLVE: a key the other trigger never saw has no variable). */
static inline uint8_t *utrace_hist_map_find(struct utrace_hist_map *m, const uint8_t *key)
{
	uint32_t ks = m->key_size, nslots = 2u << m->bits, max = 1u << m->bits;
	uint32_t h = utrace_jhash(key, ks, 0), idx;
	struct utrace_hist_mslot *slots = utrace_hist_slots(m);

	if (!h)
		h = 1;
	idx = h >> (32 - (m->bits + 1));
	for (uint32_t probes = 0; probes < nslots; probes++, idx = (idx + 1) & (nslots - 1)) {
		/* acquire: a published element's key is there to compare */
		uint64_t w = __atomic_load_n(&slots[idx].word, __ATOMIC_ACQUIRE);

		if (!w)
			return 0; /* inserts never skip an empty slot: not there */
		if ((uint32_t)(w >> 32) == h && utrace_hist_slot_elt(w) < max &&
		    utrace_hist_keyeq(utrace_hist_elt(m, utrace_hist_slot_elt(w)), key, ks))
			return utrace_hist_elt(m, utrace_hist_slot_elt(w));
	}
	return 0;
}

#endif
