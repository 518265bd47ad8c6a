/* SPDX-License-Identifier: MIT */
/*
 * fastout.h - small writes to a stdio stream without a call each.
 *
 * A text report writes a line as a dozen pieces (columns, bars, the
 * name); each fwrite or fputs went through glibc's fwrite, _IO_sputn
 * and xsputn, about 120 instructions a piece, half of the report.  As
 * putc_unlocked does for one byte, the pieces are copied straight into
 * the stream's buffer when they fit, and handed to fwrite_unlocked when
 * they do not (the buffer is full, or the stream is line-buffered or
 * unbuffered: glibc keeps no room in its write area then, its end at
 * or before the write pointer, so every write goes through the call and
 * its flushing rules).  For a stream
 * only the calling thread writes to (no lock is taken).
 */
#ifndef UTRACE_LIB_BASE_FASTOUT_H
#define UTRACE_LIB_BASE_FASTOUT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static inline void utrace_out_write(FILE *f, const void *s, size_t n)
{
#ifdef __GLIBC__
	/* signed: a line-buffered stream's write area ends where it began,
	 * before what was written into it since */
	ptrdiff_t room = f->_IO_write_end - f->_IO_write_ptr;

	if (room > 0 && (size_t)room >= n) {
		memcpy(f->_IO_write_ptr, s, n);
		f->_IO_write_ptr += n;
		return;
	}
#endif
	fwrite_unlocked(s, 1, n, f);
}

static inline void utrace_out_puts(FILE *f, const char *s)
{
	utrace_out_write(f, s, strlen(s));
}

static inline void utrace_out_putc(FILE *f, int c)
{
	putc_unlocked(c, f);
}

#endif
