/* SPDX-License-Identifier: MIT */
/*
 * glob.c - wildcard matching for function filters.
 *
 * Design: the classic iterative matcher that remembers only the last '*'
 * and, on a mismatch, retries from there one character further into the
 * subject.  That is enough because a later '*' can absorb anything an
 * earlier one could, so it runs in O(len(pattern) * len(s)) without
 * recursion.  A malformed class ("[a-") never matches anything here;
 * utrace_glob_check() is what rejects it, with its column.
 */
#include <errno.h>
#include <string.h>

#include "lib/base/glob.h"

/* Reads one possibly escaped character of a class at *p. */
static unsigned char class_char(const char **p)
{
	unsigned char c = (unsigned char)**p;

	if (c == '\\' && (*p)[1]) {
		(*p)++;
		c = (unsigned char)**p;
	}
	(*p)++;
	return c;
}

/* p points just after '['.  Returns the pattern after the closing ']' and
 * sets *hit, or NULL if the class is not terminated. */
static const char *match_class(const char *p, unsigned char c, bool *hit)
{
	const char *start;
	bool neg = false, in = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	start = p;
	while (*p && (*p != ']' || p == start)) {
		unsigned char lo = class_char(&p), hi = lo;

		if (*p == '-' && p[1] && p[1] != ']') {
			p++;
			hi = class_char(&p);
		}
		if (lo <= c && c <= hi)
			in = true;
	}
	if (*p != ']')
		return NULL;
	*hit = in != neg;
	return p + 1;
}

/* Matches one non-'*' pattern element against c; returns the pattern
 * after it, or NULL on a mismatch. */
static const char *match_one(const char *p, unsigned char c)
{
	const char *next;
	bool hit;

	switch (*p) {
	case '?':
		return p + 1;
	case '[':
		next = match_class(p + 1, c, &hit);
		if (!next)
			return NULL;
		return hit ? next : NULL;
	case '\\':
		if (p[1])
			p++;
		/* fall through */
	default:
		return (unsigned char)*p == c ? p + 1 : NULL;
	}
}

bool utrace_glob_match_n(const char *p, const char *s, size_t n)
{
	const char *star = NULL; /* pattern just after the last '*' */
	size_t star_i = 0, i = 0;

	for (;;) {
		const char *next;

		if (*p == '*') {
			while (*p == '*')
				p++;
			star = p;
			star_i = i;
			continue;
		}
		if (!*p) {
			if (i == n)
				return true;
		} else if (i < n && (next = match_one(p, (unsigned char)s[i]))) {
			p = next;
			i++;
			continue;
		}
		/* Mismatch: let the last '*' swallow one more character. */
		if (!star || star_i >= n)
			return false;
		p = star;
		i = ++star_i;
	}
}

bool utrace_glob_match(const char *pattern, const char *s)
{
	return utrace_glob_match_n(pattern, s, strlen(s));
}

static int check_fail(struct utrace_error *err, int column, const char *what)
{
	int ret = utrace_error_set(err, -EINVAL, "%s at column %d", what, column);

	if (err)
		err->column = column;
	return ret;
}

int utrace_glob_check(const char *pattern, struct utrace_error *err)
{
	const char *p = pattern;
	bool dummy;

	if (!*p)
		return check_fail(err, 1, "empty pattern");
	while (*p) {
		if (*p == '\\') {
			if (!p[1])
				return check_fail(err, (int)(p - pattern) + 1, "trailing '\\'");
			p += 2;
		} else if (*p == '[') {
			const char *end = match_class(p + 1, 0, &dummy);

			if (!end)
				return check_fail(err, (int)(p - pattern) + 1, "unbalanced '['");
			p = end;
		} else {
			p++;
		}
	}
	return 0;
}

bool utrace_glob_is_literal(const char *pattern)
{
	return !strpbrk(pattern, "*?[\\");
}
