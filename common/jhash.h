/* SPDX-License-Identifier: MIT */
/*
 * jhash.h - Bob Jenkins' lookup3 hash (public domain, 2006), the hash the
 * kernel's tracing_map uses for keys (include/linux/jhash.h).
 *
 * Written out here rather than taken from a library because it runs
 * inside the traced program (common/hist_prog.h, in libutrace.so), where
 * the runtime calls no library: a key's words are mixed with plain
 * integer operations only.  Keys are a multiple of 4 bytes long.
 */
#ifndef UTRACE_COMMON_JHASH_H
#define UTRACE_COMMON_JHASH_H

#include <stdint.h>

#define UTRACE_JHASH_INITVAL 0xdeadbeefu

typedef uint32_t __attribute__((aligned(1), may_alias)) utrace_jh_u32;

static inline uint32_t utrace_rol32(uint32_t w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

#define UTRACE_JHASH_MIX(a, b, c)                                                                 \
	do {                                                                                       \
		a -= c; a ^= utrace_rol32(c, 4); c += b;                                           \
		b -= a; b ^= utrace_rol32(a, 6); a += c;                                           \
		c -= b; c ^= utrace_rol32(b, 8); b += a;                                           \
		a -= c; a ^= utrace_rol32(c, 16); c += b;                                          \
		b -= a; b ^= utrace_rol32(a, 19); a += c;                                          \
		c -= b; c ^= utrace_rol32(b, 4); b += a;                                           \
	} while (0)

#define UTRACE_JHASH_FINAL(a, b, c)                                                               \
	do {                                                                                       \
		c ^= b; c -= utrace_rol32(b, 14);                                                  \
		a ^= c; a -= utrace_rol32(c, 11);                                                  \
		b ^= a; b -= utrace_rol32(a, 25);                                                  \
		c ^= b; c -= utrace_rol32(b, 16);                                                  \
		a ^= c; a -= utrace_rol32(c, 4);                                                   \
		b ^= a; b -= utrace_rol32(a, 14);                                                  \
		c ^= b; c -= utrace_rol32(b, 24);                                                  \
	} while (0)

/* The hash of len bytes at key (len a multiple of 4), jhash2()'s. */
static inline uint32_t utrace_jhash(const void *key, uint32_t len, uint32_t initval)
{
	const uint8_t *k = (const uint8_t *)key;
	uint32_t n = len / 4, a, b, c;

	a = b = c = UTRACE_JHASH_INITVAL + (n << 2) + initval;
	for (; n > 3; n -= 3, k += 12) {
		a += *(const utrace_jh_u32 *)k;
		b += *(const utrace_jh_u32 *)(k + 4);
		c += *(const utrace_jh_u32 *)(k + 8);
		UTRACE_JHASH_MIX(a, b, c);
	}
	switch (n) {
	case 3:
		c += *(const utrace_jh_u32 *)(k + 8);
		/* fall through */
	case 2:
		b += *(const utrace_jh_u32 *)(k + 4);
		/* fall through */
	case 1:
		a += *(const utrace_jh_u32 *)k;
		UTRACE_JHASH_FINAL(a, b, c);
		/* fall through */
	case 0:
		break;
	}
	return c;
}

#endif
