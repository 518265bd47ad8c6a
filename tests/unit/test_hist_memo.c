/* SPDX-License-Identifier: MIT */
/*
 * test_hist_memo.c - common/hist_memo.h: a memo word names the element
 * the table gave for its key, and nothing else: the key kept whole (one
 * compare of the word's low 47 bits, the common hit) or compared with the
 * element's; another key at the same word, a word of an older generation
 * (:clear), an element past the table, an empty word and a key above 31
 * bits whose low bits equal a kept one's all miss.  Both lookups: the
 * hist trigger's one-word key (utrace_hist_memo_get8) and the general one
 * (utrace_hist_memo_get, a bt map's 16-byte key).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_memo.h"
#include "tests/unit/check.h"

#define BITS 11
#define MISS UTRACE_HIST_MEMO_MISS

static struct utrace_hist_map *map_new(uint32_t key_size)
{
	uint64_t bytes = utrace_hist_map_bytes(BITS, key_size, 2);
	struct utrace_hist_map *m = calloc(1, bytes);

	if (m)
		*m = (struct utrace_hist_map){.magic = UTRACE_HIST_MAP_MAGIC, .bits = BITS,
					      .key_size = key_size, .nr_sums = 2};
	return m;
}

/* get8's word for key, as hist_fast.h places it */
static uint32_t at8(uint64_t key)
{
	return (uint32_t)(key ^ key >> 4 ^ key >> 12) % UTRACE_HIST_MEMO;
}

/* key into m and its memo word kept; the element's index */
static uint32_t put8(struct utrace_hist_map *m, uint64_t *memo, uint64_t key)
{
	uint32_t i = utrace_hist_map_insert_idx(m, (const uint8_t *)&key, 8);

	utrace_hist_memo_put(m, memo, at8(key), m->gen, key <= UTRACE_HIST_MEMO_KEY, key, i);
	return i;
}

static uint32_t get8(struct utrace_hist_map *m, uint64_t *memo, uint64_t key)
{
	return utrace_hist_memo_get8(m, memo, m->gen, m->bits, key);
}

static void one_word(void)
{
	struct utrace_hist_map *m = map_new(8);
	uint64_t memo[UTRACE_HIST_MEMO] = {0}, big = 1ull << 40 | 77, w;
	uint32_t a, b;

	if (!m)
		return check(0, "a table");
	check(get8(m, memo, 5) == MISS, "an empty word misses");
	a = put8(m, memo, 5);
	check(get8(m, memo, 5) == a, "a key kept whole: its element (%u)", a);
	/* 5 and 5 ^ 0x10 ^ 0x1 share no word; find one that does */
	for (b = 6; at8(b) != at8(5); b++)
		;
	check(get8(m, memo, b) == MISS, "another key at the same word misses (%u)", b);
	check(get8(m, memo, 5 | 1ull << 31) == MISS && at8(5 | 1ull << 31) == at8(5),
	      "a key past 31 bits whose low bits are a kept key's misses");
	a = put8(m, memo, big);
	check(get8(m, memo, big) == a, "a key past 31 bits: its element, by the element's key");
	check(get8(m, memo, big ^ 1ull << 41) == MISS || at8(big ^ 1ull << 41) != at8(big),
	      "another long key at its word misses");
	m->gen++; /* what :clear does */
	check(get8(m, memo, 5) == MISS && get8(m, memo, big) == MISS,
	      "a word of the generation before misses");
	a = put8(m, memo, 5);
	check(get8(m, memo, 5) == a, "kept again in the new generation");
	w = memo[at8(5)];
	memo[at8(5)] = (uint64_t)((1u << BITS) + 1) << 47 | (w & UTRACE_HIST_MEMO_LOW47);
	check(get8(m, memo, 5) == MISS, "a word naming an element past the table misses");
	free(m);
}

static void two_words(void)
{
	struct utrace_hist_map *m = map_new(16);
	uint64_t memo[UTRACE_HIST_MEMO] = {0};
	uint64_t k[2] = {3, 1000}, far[2] = {3, 1u << 24}, other[2] = {4, 999};
	uint32_t a, b;

	if (!m)
		return check(0, "a table");
	a = utrace_hist_map_insert_idx(m, (const uint8_t *)k, 16);
	utrace_hist_memo_put(m, memo, 7, m->gen, 1, k[0] << 24 | k[1], a);
	check(utrace_hist_memo_get(m, memo, 7, m->gen, 1, k[0] << 24 | k[1], k, 16) == a,
	      "a 16-byte key kept whole: its element");
	check(utrace_hist_memo_get(m, memo, 7, m->gen, 1, other[0] << 24 | other[1], other, 16) ==
		  MISS,
	      "another whole key at the word misses");
	check(utrace_hist_memo_get(m, memo, 7, m->gen, 0, 3ull << 24, far, 16) == MISS,
	      "a key not kept whole with the same low form misses");
	b = utrace_hist_map_insert_idx(m, (const uint8_t *)far, 16);
	utrace_hist_memo_put(m, memo, 9, m->gen, 0, 3ull << 24, b);
	check(utrace_hist_memo_get(m, memo, 9, m->gen, 0, 3ull << 24, far, 16) == b,
	      "a key not kept whole: its element, by the element's key");
	check(utrace_hist_memo_get(m, memo, 9, m->gen, 0, 3ull << 24, other, 16) == MISS,
	      "and another key at that word misses");
	check(utrace_hist_memo_get(m, memo, 7, m->gen + 1, 1, k[0] << 24 | k[1], k, 16) == MISS,
	      "a word of the generation before misses");
	memo[7] = (uint64_t)((1u << BITS) + 1) << 47 | (memo[7] & UTRACE_HIST_MEMO_LOW47);
	check(utrace_hist_memo_get(m, memo, 7, m->gen, 1, k[0] << 24 | k[1], k, 16) == MISS,
	      "a word naming an element past the table misses");
	free(m);
}

int main(void)
{
	one_word();
	two_words();
	return check_done();
}
