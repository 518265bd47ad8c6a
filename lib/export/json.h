/* SPDX-License-Identifier: MIT */
/*
 * json.h - writing strings into JSON documents (lib/export/json.c).
 */
#ifndef UTRACE_LIB_EXPORT_JSON_H
#define UTRACE_LIB_EXPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* s (or its first len bytes, up to a NUL) as the body of a JSON string,
 * without the quotes: escaped, invalid UTF-8 as U+FFFD. */
void utrace_json_string_n(FILE *out, const char *s, size_t len);
void utrace_json_string(FILE *out, const char *s);

#endif
