/* SPDX-License-Identifier: MIT */
/*
 * bt_buf.h - bpftrace's buf() values at run time.  A buffer holds any
 * bytes, NULs among them, yet travels as a string value (variables, map
 * keys and values, records carry strings), so it is kept escaped: byte 0
 * as \1\1, byte 1 as \1\2, every other byte as it is.  The escaped form
 * is unique, so two buffers are equal when their forms are (STREQ), and
 * it holds at most UTRACE_BT_STRLEN - 1 bytes (a longer buffer is cut).
 * buf() of the traced program's memory is escaped in the tool, from the
 * bytes the hit's fetch-arg read (utrace_bt_buf_bytes).
 * lib/bt/bt_print_buf.c prints it as bpftrace does.  No libc.
 */
#ifndef UTRACE_COMMON_BT_BUF_H
#define UTRACE_COMMON_BT_BUF_H

#include <stdint.h>

/* One byte c escaped onto dst at n: the new length, n itself when the
 * escaped byte would not fit (the buffer is cut there). */
static inline unsigned utrace_bt_buf_put(char *dst, unsigned n, char c)
{
	if (c == 0 || c == 1) {
		if (n + 2 >= UTRACE_BT_STRLEN)
			return n;
		dst[n++] = 1;
		dst[n++] = (char)(c + 1);
	} else if (n + 1 < UTRACE_BT_STRLEN) {
		dst[n++] = c;
	}
	return n;
}

/* BUF: len bytes of the string src (NULs after its end) escaped into dst. */
static inline void utrace_bt_buf_make(char *dst, const char *src, unsigned len)
{
	unsigned n = 0, end = 0;

	for (unsigned i = 0; i < len; i++) {
		unsigned k = n;

		if (!end && src[i] == 0) /* (nothing read past the NUL) */
			end = 1;
		n = utrace_bt_buf_put(dst, n, end ? 0 : src[i]);
		if (n == k)
			break;
	}
	dst[n] = 0;
}

/* buf() of the traced program's memory: len bytes as they are (NULs
 * among them, as the hit's fetch-arg captured them) escaped into dst. */
static inline void utrace_bt_buf_bytes(char *dst, const uint8_t *src, unsigned len)
{
	unsigned n = 0;

	for (unsigned i = 0; i < len; i++) {
		unsigned k = n;

		n = utrace_bt_buf_put(dst, n, (char)src[i]);
		if (n == k)
			break;
	}
	dst[n] = 0;
}

#endif
