/* SPDX-License-Identifier: MIT */
/*
 * bt_tuple.h - bpftrace's tuples at run time (lib/bt/bt_tuple.c types
 * them).  A tuple is a string value that describes itself, so variables,
 * maps and records carry it as they carry strings:
 *
 *   (1, "a", (2, 3))  ->  \1 "1" \37 \3 "a" \37 \1 "2" \37 "3" \2 \2
 *
 * \1 opens a tuple, \2 closes it, \37 separates elements, \3 starts a
 * string element (an integer is its decimal text), \7 a text that json
 * prints bare too (a strftime() value, bpftrace's timestamp: `[17,1]`).
 * A struct or an array value (lib/bt/bt_record.c) is a tuple too: \5
 * opens a struct, whose elements are each NAME \6 VALUE, \4 an array.
 * It holds at most UTRACE_BT_STRLEN - 1 bytes: a longer one is cut there
 * (its printer closes what is open), but for a struct or an array, which
 * the tool alone makes and keeps in its store (lib/bt/bt_longval.c):
 * the slot then holds \010 and the number of its text there.  No libc:
 * this runs in the traced program.
 */
#ifndef UTRACE_COMMON_BT_TUPLE_H
#define UTRACE_COMMON_BT_TUPLE_H

#define UTRACE_BT_T_OPEN '\001'
#define UTRACE_BT_T_CLOSE '\002'
#define UTRACE_BT_T_STR '\003'
#define UTRACE_BT_T_BARE '\007' /* a text json prints unquoted */
#define UTRACE_BT_T_SEP '\037'
#define UTRACE_BT_T_AOPEN '\004' /* an array */
#define UTRACE_BT_T_SOPEN '\005' /* a struct */
#define UTRACE_BT_T_NAME '\006'  /* ends a struct member's name */
#define UTRACE_BT_T_LONG '\010'  /* a value too long for a slot: its handle (the
				   * tool's store, lib/bt/bt_longval.c), digits */

static inline int utrace_bt_tuple_opens(char c)
{
	return c == UTRACE_BT_T_OPEN || c == UTRACE_BT_T_AOPEN || c == UTRACE_BT_T_SOPEN;
}

static inline unsigned utrace_bt_tuple_put(char *d, unsigned n, char c)
{
	if (n + 1 < UTRACE_BT_STRLEN)
		d[n++] = c;
	return n;
}

/* x's decimal text, as a uint64 when is_unsigned (bpftrace's builtins,
 * arg0 of -1 prints 18446744073709551615; utrace_bt_tuple_get reads it
 * back as the same 64 bits). */
static inline unsigned utrace_bt_tuple_int(char *d, unsigned n, int64_t x, int is_unsigned)
{
	char buf[24];
	unsigned k = 0;
	int neg = x < 0 && !is_unsigned;
	uint64_t u = neg ? 0 - (uint64_t)x : (uint64_t)x;

	do {
		buf[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		buf[k++] = '-';
	while (k)
		n = utrace_bt_tuple_put(d, n, buf[--k]);
	return n;
}

/* The element that starts at s: one past its end. */
static inline const char *utrace_bt_tuple_skip(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (utrace_bt_tuple_opens(*s))
			depth++;
		else if (*s == UTRACE_BT_T_CLOSE && --depth < 0)
			break;
		else if (*s == UTRACE_BT_T_SEP && !depth)
			break;
		if (*s == UTRACE_BT_T_CLOSE && !depth) {
			s++;
			break;
		}
	}
	return s;
}

/* Element idx of tuple t: [*b, *e) its text (a string's without its
 * marker, a tuple's, a struct's or an array's with theirs, a long
 * value's handle: 1) or its digits (an integer: 0). */
static inline int utrace_bt_tuple_elem(const char *t, unsigned idx, const char **b,
				       const char **e)
{
	const char *s = t + utrace_bt_tuple_opens(*t);

	for (; idx && *s && *s != UTRACE_BT_T_CLOSE; idx--) {
		s = utrace_bt_tuple_skip(s);
		if (*s == UTRACE_BT_T_SEP)
			s++;
	}
	*e = utrace_bt_tuple_skip(s);
	for (const char *m = s; *t == UTRACE_BT_T_SOPEN && m < *e; m++)
		if (*m == UTRACE_BT_T_NAME) { /* a struct's member: its value */
			s = m + 1;
			break;
		}
	*b = s + (*s == UTRACE_BT_T_STR || *s == UTRACE_BT_T_BARE);
	return *s == UTRACE_BT_T_STR || *s == UTRACE_BT_T_BARE || *s == UTRACE_BT_T_LONG ||
	       utrace_bt_tuple_opens(*s);
}

/* The integer whose digits are [s, e). */
static inline int64_t utrace_bt_tuple_num(const char *s, const char *e)
{
	int64_t num = 0;
	int neg = 0;

	if (s < e && *s == '-')
		neg = *s++ == '-';
	for (; s < e && *s >= '0' && *s <= '9'; s++)
		num = (int64_t)((uint64_t)num * 10 + (uint64_t)(*s - '0'));
	return neg ? (int64_t)(0 - (uint64_t)num) : num;
}

/* Element idx of tuple t into dst (a string or a tuple, its text, cut
 * at the slot's end) or *num (an integer): 1 for a text, 0 for a number. */
static inline int utrace_bt_tuple_get(const char *t, unsigned idx, char *dst, int64_t *num)
{
	const char *s, *e;
	unsigned n = 0;

	*num = 0;
	if (utrace_bt_tuple_elem(t, idx, &s, &e)) {
		for (; s < e && n + 1 < UTRACE_BT_STRLEN; s++)
			dst[n++] = *s;
		dst[n] = 0;
		return 1;
	}
	*num = utrace_bt_tuple_num(s, e);
	return 0;
}

#endif
