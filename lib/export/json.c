/* SPDX-License-Identifier: MIT */
/*
 * json.c - strings as JSON string bodies (lib/export/json.h), for the
 * Chrome JSON export's events (export_chrome.c) and samples
 * (export_chrome_samples.c).
 *
 * Design: a symbol table may hold any bytes, and the viewers reject a
 * document that is not valid UTF-8, so quotes, backslashes and control
 * characters are escaped and every byte that does not start a valid UTF-8
 * sequence (overlong forms and surrogates included) becomes U+FFFD.
 */
#include <stdint.h>
#include <string.h>

#include "lib/export/json.h"

/* Length of the UTF-8 sequence at s (avail bytes), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* The first len bytes of str as the body of a JSON string. */
void utrace_json_string_n(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + len;

	while (s < end && *s) {
		size_t n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s++, out);
		} else if (*s < 0x20) {
			fprintf(out, "\\u%04x", *s++);
		} else if ((n = utf8_len(s, (size_t)(end - s)))) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
}

void utrace_json_string(FILE *out, const char *s)
{
	utrace_json_string_n(out, s, strlen(s));
}
