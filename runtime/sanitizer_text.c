/* SPDX-License-Identifier: MIT */
/*
 * sanitizer_text.c - reading a sanitizer's report text (sanitizer.h):
 * its lines, its SUMMARY line's kind and location, its first stack; and
 * making a line.  Plain loops over the text: no allocation, no libc
 * string call (the sanitizers intercept them), safe in a signal handler.
 */
#include <stddef.h>
#include <stdint.h>

#include "runtime/sanitizer.h"

/* Copies the text [s, end) into dst (cap bytes, NUL-terminated), without
 * the colour escapes a terminal gets; stops at a newline. */
void rt_san_copy(char *dst, size_t cap, const char *s, const char *end)
{
	size_t n = 0;

	while (s && *s && (!end || s < end) && *s != '\n' && n + 1 < cap) {
		if (*s == '\033') { /* ESC [ ... m */
			while (*s && *s != 'm' && *s != '\n')
				s++;
			if (*s == 'm')
				s++;
			continue;
		}
		dst[n++] = *s++;
	}
	dst[n] = 0;
}

bool rt_san_starts(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix)
		s++, prefix++;
	return !*prefix;
}

/* The line of text that starts with prefix (colour escapes before it
 * skipped), NULL if none. */
const char *rt_san_line(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l;) {
		const char *s = l;

		while (*s == '\033' && s[1] == '[') {
			while (*s && *s != 'm')
				s++;
			s += !!*s;
		}
		if (rt_san_starts(s, prefix))
			return s;
		while (*l && *l != '\n')
			l++;
		l += !!*l;
	}
	return NULL;
}

/* The first line that is not empty and not the row of '=' before it. */
const char *rt_san_first_line(const char *text)
{
	for (const char *l = text; *l;) {
		const char *s = l;

		while (*s == '=' || *s == ' ')
			s++;
		if (*s && *s != '\n')
			return l;
		while (*l && *l != '\n')
			l++;
		l += !!*l;
	}
	return text;
}

static unsigned san_digits(const char *s, const char *end, bool *ok)
{
	unsigned v = 0;

	*ok = s < end;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			*ok = false;
		v = v * 10 + (unsigned)(*s - '0');
	}
	return v;
}

/* "FILE:LINE" or "FILE:LINE:COL" in [s, end) into r; a "(module+0x...)"
 * has neither. */
static void san_location(const char *s, const char *end, struct rt_san_report *r)
{
	const char *c1 = NULL, *c2 = NULL;
	bool ok1 = false, ok2 = false;
	unsigned v1, v2;

	if (s >= end || *s == '(')
		return;
	for (const char *p = s; p < end; p++)
		if (*p == ':')
			c1 = c2, c2 = p;
	if (!c2)
		return;
	v2 = san_digits(c2 + 1, end, &ok2);
	v1 = c1 ? san_digits(c1 + 1, c2, &ok1) : 0;
	if (c1 && ok1 && ok2) {
		r->line = v1;
		rt_san_copy(r->file, sizeof(r->file), s, c1);
	} else if (ok2) {
		r->line = v2;
		rt_san_copy(r->file, sizeof(r->file), s, c2);
	}
}

/* "SUMMARY: TOOL: KIND LOCATION in FUNC": the kind (if the runtime did
 * not say it), the source location and the function. */
void rt_san_summary(const char *text, struct rt_san_report *r)
{
	const char *s = rt_san_line(text, "SUMMARY: "), *kind, *loc, *in = NULL, *eol;

	if (!s)
		return;
	s += 9;
	while (*s && *s != '\n' && !rt_san_starts(s, ": "))
		s++;
	if (!rt_san_starts(s, ": "))
		return;
	kind = s + 2;
	for (loc = kind; *loc && *loc != ' ' && *loc != '\n';)
		loc++;
	if (!r->kind[0])
		rt_san_copy(r->kind, sizeof(r->kind), kind, loc);
	loc += *loc == ' ';
	for (eol = loc; *eol && *eol != '\n'; eol++)
		if (rt_san_starts(eol, " in "))
			in = eol;
	san_location(loc, in ? in : eol, r);
	if (in)
		rt_san_copy(r->func, sizeof(r->func), in + 4, eol);
}

/* The report's first stack, as it printed it ("    #N 0x<pc> in ..."),
 * into pc[0..max): how many frames. */
unsigned rt_san_stack(const char *text, uint64_t *pc, unsigned max)
{
	const char *l = rt_san_line(text, "    #0 0x");
	unsigned n = 0;

	while (l && n < max) {
		const char *s = l;

		while (*s == ' ')
			s++;
		if (*s++ != '#')
			break;
		while (*s >= '0' && *s <= '9')
			s++;
		if (!rt_san_starts(s, " 0x"))
			break;
		s += 3;
		pc[n++] = rt_parse_hex(&s);
		while (*s && *s != '\n')
			s++;
		l = *s ? s + 1 : NULL;
	}
	return n;
}

/* NUL-terminated parts of one text, no libc call */
void rt_san_cat(char *dst, size_t cap, size_t *n, const char *s)
{
	while (s && *s && *n + 1 < cap)
		dst[(*n)++] = *s++;
	dst[*n] = 0;
}

void rt_san_cat_u(char *dst, size_t cap, size_t *n, unsigned v)
{
	char d[12];
	int i = 0;

	do
		d[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 11);
	while (i && *n + 1 < cap)
		dst[(*n)++] = d[--i];
	dst[*n] = 0;
}

