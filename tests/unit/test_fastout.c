/* SPDX-License-Identifier: MIT */
/*
 * test_fastout.c - lib/base/fastout.h: pieces written straight into a
 * stream's buffer come out as fwrite would write them, in order with the
 * stream's other writes, whatever the buffering (full with a buffer
 * smaller than some pieces, line, none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fastout.h"
#include "check.h"

/* The same writes into two streams of mode buffering: through fastout.h
 * and through stdio's calls; their bytes afterwards in a and b. */
static void write_both(int mode, char *a, size_t *na, char *b, size_t *nb, size_t cap)
{
	static const char *pieces[] = {"", "x", "ab", "0123456789abcdef", "line\n",
				       "a piece longer than the sixteen bytes of the buffer", "|  ",
				       "\n", "tail"};
	FILE *f = tmpfile(), *g = tmpfile();
	static char fbuf[16], gbuf[16];

	setvbuf(f, mode == _IONBF ? NULL : fbuf, mode, sizeof(fbuf));
	setvbuf(g, mode == _IONBF ? NULL : gbuf, mode, sizeof(gbuf));
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
			const char *s = pieces[(i + (size_t)round) % (sizeof(pieces) / sizeof(pieces[0]))];

			utrace_out_write(f, s, strlen(s));
			fwrite(s, 1, strlen(s), g);
			utrace_out_putc(f, 'a' + round % 26);
			fputc('a' + round % 26, g);
		}
		utrace_out_puts(f, " us ");
		fputs(" us ", g);
		fprintf(f, "%d;", round); /* stdio's own writes in between */
		fprintf(g, "%d;", round);
	}
	rewind(f);
	rewind(g);
	*na = fread(a, 1, cap, f);
	*nb = fread(b, 1, cap, g);
	fclose(f);
	fclose(g);
}

int main(void)
{
	static const struct {
		int mode;
		const char *name;
	} modes[] = {{_IOFBF, "fully buffered (16 bytes)"},
		     {_IOLBF, "line buffered"},
		     {_IONBF, "unbuffered"}};
	size_t cap = 1 << 16;
	char *a = malloc(cap), *b = malloc(cap);

	if (!a || !b)
		return 1;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		size_t na, nb;

		write_both(modes[m].mode, a, &na, b, &nb, cap);
		check(na == nb && na > 1000 && !memcmp(a, b, na),
		      "fastout: %s: the bytes fwrite writes, in order (%zu and %zu bytes)",
		      modes[m].name, na, nb);
	}
	free(a);
	free(b);
	return check_done();
}
