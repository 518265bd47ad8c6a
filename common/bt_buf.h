/* SPDX-License-Identifier: MIT */
/*
 * bt_buf.h - bpftrace's buf() values at run time.  A buffer holds any
 * bytes, NULs among them, yet travels as a string value (variables, map
 * keys and values, records carry strings), so it is kept escaped: byte 0
 * as \1\1, byte 1 as \1\2, every other byte as it is.  The escaped form
 * is unique, so two buffers are equal when their forms are (STREQ), and
 * it holds at most UTRACE_BT_STRLEN - 1 bytes (a longer buffer is cut).
 * lib/bt/bt_print_buf.c prints it as bpftrace does.  No libc.
 */
#ifndef UTRACE_COMMON_BT_BUF_H
#define UTRACE_COMMON_BT_BUF_H

/* BUF: len bytes of the string src (NULs after its end) escaped into dst. */
static inline void utrace_bt_buf_make(char *dst, const char *src, unsigned len)
{
	unsigned n = 0, end = 0;

	for (unsigned i = 0; i < len; i++) {
		char c = 0;

		if (!end && src[i])
			c = src[i];
		else
			end = 1;
		if ((c == 0 || c == 1) && n + 2 < UTRACE_BT_STRLEN) {
			dst[n++] = 1;
			dst[n++] = (char)(c + 1);
		} else if (c > 1 || c < 0) {
			if (n + 1 >= UTRACE_BT_STRLEN)
				break;
			dst[n++] = c;
		} else {
			break;
		}
	}
	dst[n] = 0;
}

#endif
