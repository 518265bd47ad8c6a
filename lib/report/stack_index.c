/* SPDX-License-Identifier: MIT */
/*
 * stack_index.c - the call stacks of a thread's coroutines (stack_index.h).
 * Found by a walk from the last one used: a coroutine runs many events in
 * a row, and a program has few stacks next to its events.  Stack keys are
 * the runtime's, one per makecontext in the process: the same key in two
 * threads is one coroutine that moved.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/report/stack_index.h"

static long stack_add(struct stack_index *s, void **arr, size_t elem, unsigned nbuf, uint64_t key)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		uint64_t *k = realloc(s->keys, cap * sizeof(*k)), *u;
		void *a;

		if (!k)
			return -1;
		s->keys = k;
		if (!(u = realloc(s->used, cap * sizeof(*u))))
			return -1;
		s->used = u;
		a = realloc(*arr, (nbuf + cap) * elem);
		if (!a)
			return -1;
		*arr = a;
		s->cap = cap;
	}
	memset((char *)*arr + (nbuf + s->nr) * elem, 0, elem);
	s->keys[s->nr] = key;
	s->used[s->nr] = ++s->clock;
	s->last = s->nr++;
	return (long)(nbuf + s->last);
}

long stack_index(struct stack_index *s, void **arr, size_t elem, unsigned nbuf, uint32_t buf,
		 uint32_t stack)
{
	uint64_t key = (uint64_t)buf << 32 | stack;

	if (!stack)
		return buf;
	for (size_t n = 0, i = s->last; n < s->nr; n++, i = i + 1 < s->nr ? i + 1 : 0)
		if (s->keys[i] == key) {
			s->last = i;
			s->used[i] = ++s->clock;
			return (long)(nbuf + i);
		}
	return stack_add(s, arr, elem, nbuf, key);
}

int stack_index_moved(const struct stack_index *s, size_t i)
{
	for (size_t j = 0; j < s->nr; j++)
		if (j != i && (uint32_t)s->keys[j] == (uint32_t)s->keys[i] &&
		    s->used[j] > s->used[i])
			return 1;
	return 0;
}

void stack_index_free(struct stack_index *s)
{
	free(s->keys);
	free(s->used);
	memset(s, 0, sizeof(*s));
}
