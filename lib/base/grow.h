/* SPDX-License-Identifier: MIT */
/*
 * grow.h - one growable array for every library.
 *
 * An array that is appended to keeps a capacity next to its count; when
 * the count reaches it, the capacity doubles (from 16 elements) until it
 * holds what is needed, so appending n elements costs O(n) copies.  The
 * byte size is checked for overflow, and on failure the array and its
 * capacity are left as they were (still valid, still owned by the
 * caller) and errno is ENOMEM, as after a failed realloc.
 *
 *	if (UTRACE_GROW(t->items, t->cap, t->n + 1) < 0)
 *		return -ENOMEM;
 *	t->items[t->n++] = item;
 *
 * The macros take the array and its capacity as lvalues of any pointer
 * and unsigned integer type; a capacity that its type cannot hold fails
 * as an overflow does.
 */
#ifndef UTRACE_LIB_BASE_GROW_H
#define UTRACE_LIB_BASE_GROW_H

#include <stddef.h>

/* *(void **)pptr grown to at least need elements of size bytes, *cap
 * updated: 0, or -ENOMEM (nothing changed).  need <= *cap: 0 at once. */
int utrace_grow(void *pptr, size_t *cap, size_t need, size_t size);
/* The same, the new elements [old *cap, new *cap) zeroed. */
int utrace_grow_zero(void *pptr, size_t *cap, size_t need, size_t size);

/* ptr and cap: lvalues; the capacity's own type is kept.  The test for
 * room is made here, inline: appends in the readers' per-record loops
 * (a call stack's push) are hot, and the call was a tenth of their time. */
#define UTRACE_GROW_(fn, ptr, cap, need)                                                           \
	({                                                                                         \
		size_t grow_cap_ = (cap), grow_need_ = (need);                                     \
		int grow_ret_ = grow_need_ <= grow_cap_                                            \
				    ? 0                                                            \
				    : fn(&(ptr), &grow_cap_, grow_need_, sizeof(*(ptr)));          \
		if (!grow_ret_ && (size_t)(__typeof__(cap))grow_cap_ != grow_cap_)                       \
			grow_ret_ = utrace_grow_toobig();                                          \
		else if (!grow_ret_)                                                               \
			(cap) = (__typeof__(cap))grow_cap_;                                        \
		grow_ret_;                                                                         \
	})
#define UTRACE_GROW(ptr, cap, need) UTRACE_GROW_(utrace_grow, ptr, cap, need)
#define UTRACE_GROW_ZERO(ptr, cap, need) UTRACE_GROW_(utrace_grow_zero, ptr, cap, need)

/* -ENOMEM with errno ENOMEM: a capacity its type cannot hold. */
int utrace_grow_toobig(void);

#endif
