/* SPDX-License-Identifier: MIT */
/*
 * glob.h - shell-style wildcard matching, as in tracefs filter files.
 *
 *   *        any string, including the empty one
 *   ?        any one character
 *   [abc]    one of a, b, c;  [a-z] a range;  [!a-z] or [^a-z] negated;
 *            a ']' right after '[' (or '[!') is literal
 *   \c       the character c itself
 *
 * Matching is byte-wise and case-sensitive.
 */
#ifndef UTRACE_LIB_GLOB_H
#define UTRACE_LIB_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/error.h"

bool utrace_glob_match(const char *pattern, const char *s);
/* Matches the first len bytes of s. */
bool utrace_glob_match_n(const char *pattern, const char *s, size_t len);
/* 0 if pattern is valid; else negative, with err->column the 1-based
 * column of the fault within pattern. */
int utrace_glob_check(const char *pattern, struct utrace_error *err);
/* True if pattern has no wildcard (it matches only itself). */
bool utrace_glob_is_literal(const char *pattern);

#endif
