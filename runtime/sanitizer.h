/* SPDX-License-Identifier: MIT */
/*
 * sanitizer.h - what the files of the sanitizer events share: the report
 * as sanitizer_events.h records it, and reading a report's text
 * (sanitizer_text.c), for ASan's callback and the text of MSan and LSan
 * (sanitizer.c, sanitizer_print.c).
 */
#ifndef UTRACE_RUNTIME_SANITIZER_H
#define UTRACE_RUNTIME_SANITIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"
/* No jump label: an event is off until enabled, and reports are rare. */
#ifndef UTRACE_NO_ASM_GOTO
#define UTRACE_NO_ASM_GOTO
#endif
#include "runtime/sanitizer_events.h"

/* [s, end) (end NULL: to the NUL) into dst, one line, colours left out */
void rt_san_copy(char *dst, size_t cap, const char *s, const char *end) RT_HIDDEN;
bool rt_san_starts(const char *s, const char *prefix) RT_HIDDEN;
/* the line of text that starts with prefix, NULL if none */
const char *rt_san_line(const char *text, const char *prefix) RT_HIDDEN;
/* the first line that is not empty nor a row of '=' */
const char *rt_san_first_line(const char *text) RT_HIDDEN;
/* "SUMMARY: TOOL: KIND LOCATION in FUNC": kind (if r has none), file,
 * line, func */
void rt_san_summary(const char *text, struct rt_san_report *r) RT_HIDDEN;
/* the first stack of text ("    #N 0x<pc> ...") into pc[0..max) */
unsigned rt_san_stack(const char *text, uint64_t *pc, unsigned max) RT_HIDDEN;
/* a text, a number appended at dst[*n] (cap bytes, NUL kept) */
void rt_san_cat(char *dst, size_t cap, size_t *n, const char *s) RT_HIDDEN;
void rt_san_cat_u(char *dst, size_t cap, size_t *n, unsigned v) RT_HIDDEN;

/* sanitizer_print.c: __sanitizer_on_print's replacement, the text of
 * MSan's and LSan's reports */
void rt_san_on_print(const char *str) RT_HIDDEN;

#endif
