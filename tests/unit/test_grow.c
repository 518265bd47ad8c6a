/* SPDX-License-Identifier: MIT */
/*
 * test_grow.c - lib/base/grow.h: the growable array's capacity, its kept
 * contents, the zeroed variant, and overflow and narrow capacities
 * failing with everything left as it was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/base/grow.h"
#include "check.h"

static void test_append(void)
{
	int *v = NULL;
	size_t cap = 0, n = 0;
	int ok = 1;

	for (int i = 0; i < 1000; i++) {
		if (UTRACE_GROW(v, cap, n + 1) < 0) {
			ok = 0;
			break;
		}
		v[n++] = i;
	}
	for (size_t i = 0; ok && i < n; i++)
		ok = v[i] == (int)i;
	check(ok && n == 1000 && cap >= 1000 && cap < 2048, "1000 appends kept, cap %zu", cap);
	free(v);
}

static void test_no_change(void)
{
	char *p = NULL, *was;
	uint32_t cap = 0;
	int ret = UTRACE_GROW(p, cap, 5);

	check(!ret && p && cap == 16, "the first capacity is 16 (got %u)", cap);
	was = p;
	ret = UTRACE_GROW(p, cap, 16);
	check(!ret && p == was && cap == 16, "need within cap: nothing moves");
	ret = UTRACE_GROW(p, cap, 17);
	check(!ret && cap == 32, "need past cap doubles it (got %u)", cap);
	ret = UTRACE_GROW(p, cap, 1000);
	check(!ret && cap == 1024, "doubled until need fits (got %u)", cap);
	free(p);
}

static void test_zero(void)
{
	uint64_t *v = NULL;
	unsigned cap = 0;
	int ok = 1;

	check(!UTRACE_GROW_ZERO(v, cap, 3), "zeroed grow");
	for (unsigned i = 0; i < cap; i++) {
		ok &= v[i] == 0;
		v[i] = ~0ull;
	}
	check(!UTRACE_GROW_ZERO(v, cap, cap + 1), "zeroed grow again");
	for (unsigned i = 0; i < cap; i++)
		ok &= i < 16 ? v[i] == ~0ull : v[i] == 0;
	check(ok && cap == 32, "old elements kept, new ones zero");
	free(v);
}

static void test_overflow(void)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	uint8_t *b = NULL;
	uint8_t bcap = 0;
	int ret;

	check(!UTRACE_GROW(v, cap, 2), "a small array");
	v[0] = 42;
	errno = 0;
	ret = UTRACE_GROW(v, cap, SIZE_MAX / 4);
	check(ret == -ENOMEM && errno == ENOMEM, "need * size overflows: -ENOMEM, errno ENOMEM");
	check(v && cap == 16 && v[0] == 42, "and the array is as it was");
	ret = utrace_grow(&v, &cap, SIZE_MAX, 1);
	check(ret == -ENOMEM && cap == 16, "SIZE_MAX bytes: -ENOMEM, nothing asked of malloc");
	free(v);

	check(!UTRACE_GROW(b, bcap, 100) && bcap == 128, "a uint8_t capacity of 128");
	errno = 0;
	ret = UTRACE_GROW(b, bcap, 200);
	check(ret == -ENOMEM && errno == ENOMEM && bcap == 128 && b,
	      "256 does not fit its uint8_t: -ENOMEM, capacity kept");
	free(b);
}

int main(void)
{
	test_append();
	test_no_change();
	test_zero();
	test_overflow();
	return check_done();
}
