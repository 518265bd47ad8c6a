/* SPDX-License-Identifier: MIT */
/*
 * event_filter_value.c - the operands of a filter predicate as the
 * kernel reads them: numbers as kstrtoull()/kstrtoll() with base 0,
 * narrowed to the field's type, and a ~ pattern classified as
 * filter_parse_regex() does.  Pure functions of their text, apart from
 * the parser (event_filter.c) that calls them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/filter_prog.h"
#include "lib/events/event_filter_internal.h"

/* Value of one digit in base, or -1. */
static int digit_value(char c, unsigned base)
{
	int v;

	if (is_digit(c))
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return v < (int)base ? v : -1;
}

/*
 * s[0..len) as the kernel's kstrtoull()/kstrtoll() with base 0 read it:
 * "0x" hex, a leading 0 octal, else decimal; a '-' only if is_signed;
 * nothing else, and no overflow of the type.  0 or -1.
 */
int filter_parse_number(const char *s, size_t len, bool is_signed, uint64_t *out)
{
	bool neg = false;
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len && s[0] == '-') {
		if (!is_signed)
			return -1;
		neg = true;
		i++;
	}
	if (i + 2 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
	    digit_value(s[i + 2], 16) >= 0) {
		base = 16;
		i += 2;
	} else if (i < len && s[i] == '0') {
		base = 8;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		int d = digit_value(s[i], base);

		if (d < 0 || v > (UINT64_MAX - (unsigned)d) / base)
			return -1;
		v = v * base + (unsigned)d;
	}
	if (is_signed) {
		if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
			return -1;
		if (neg)
			v = 0 - v;
	}
	*out = v;
	return 0;
}

/* v converted to a size-byte integer, then extended back to 64 bits. */
uint64_t filter_to_field_type(uint64_t v, uint32_t size, bool is_signed)
{
	unsigned shift = 64 - 8 * size;

	if (size >= 8)
		return v;
	v <<= shift;
	return is_signed ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}

/*
 * The string test of a ~ pattern, as the kernel's filter_parse_regex()
 * classifies it: a leading '!' negates; a '*' only at the start, the end
 * or both makes a suffix, prefix or substring test of the rest; any other
 * wildcard ('*' inside, '?', '[', '\') a glob; none an equality.
 */
uint8_t filter_glob_op(const char **pat, size_t *len, bool *neg)
{
	const char *s = *pat;
	size_t n = *len, i;
	bool lead, trail;

	*neg = n && s[0] == '!';
	if (*neg) {
		s++;
		n--;
	}
	for (i = 0; i < n; i++)
		if (s[i] == '?' || s[i] == '[' || s[i] == '\\' ||
		    (s[i] == '*' && i != 0 && i != n - 1)) {
			*pat = s;
			*len = n;
			return UTRACE_FOP_STR_GLOB;
		}
	lead = n && s[0] == '*';
	trail = n > 1 && s[n - 1] == '*';
	*pat = s + lead;
	*len = n - lead - trail;
	if (lead && trail)
		return UTRACE_FOP_STR_SUBSTR;
	if (lead)
		return UTRACE_FOP_STR_SUFFIX;
	return trail ? UTRACE_FOP_STR_PREFIX : UTRACE_FOP_STR_EQ;
}

