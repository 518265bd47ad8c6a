/* SPDX-License-Identifier: MIT */
/*
 * bt_print_buf.c - a buf() value (escaped as common/bt_buf.h says) as
 * bpftrace prints it (its hex_format_buffer): printf's %r and a map's
 * keys and values keep printable ASCII and write other bytes as \xNN,
 * %rx writes every byte as \xNN, %rh as hex pairs between spaces.
 */
#include <string.h>

#include "lib/bt/bt_print_internal.h"

void bt_buf_print(FILE *out, const char *enc, char mode)
{
	bool first = true;

	for (const char *s = enc; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == 1 && s[1]) /* \1\1 is 0, \1\2 is 1 */
			c = (unsigned char)(*++s - 1);
		if (mode == 'h')
			fprintf(out, first ? "%02x" : " %02x", c);
		else if (mode != 'x' && c >= 32 && c <= 126)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
		first = false;
	}
}
