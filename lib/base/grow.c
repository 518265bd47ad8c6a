/* SPDX-License-Identifier: MIT */
/*
 * grow.c - the growable array of grow.h: capacity doubled from 16
 * elements until it holds need, every product checked, realloc'd once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"

#define GROW_FIRST 16

int utrace_grow_toobig(void)
{
	errno = ENOMEM;
	return -ENOMEM;
}

/* The capacity for need elements of size: *cap doubled; 0 if too big
 * (no object may be larger than PTRDIFF_MAX bytes). */
static size_t grow_cap(size_t cap, size_t need, size_t size)
{
	size_t max = size ? PTRDIFF_MAX / size : PTRDIFF_MAX;

	if (need > max)
		return 0;
	if (!cap)
		cap = GROW_FIRST;
	while (cap < need)
		cap = cap > max / 2 ? max : cap * 2;
	return cap < max ? cap : max;
}

int utrace_grow(void *pptr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = grow_cap(*cap, need, size);
	if (!ncap)
		return utrace_grow_toobig();
	memcpy(&p, pptr, sizeof(p));
	p = realloc(p, ncap * size);
	if (!p)
		return utrace_grow_toobig();
	memcpy(pptr, &p, sizeof(p));
	*cap = ncap;
	return 0;
}

int utrace_grow_zero(void *pptr, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	char *p;
	int ret = utrace_grow(pptr, cap, need, size);

	if (ret < 0 || *cap == old)
		return ret;
	memcpy(&p, pptr, sizeof(p));
	memset(p + old * size, 0, (*cap - old) * size);
	return 0;
}
