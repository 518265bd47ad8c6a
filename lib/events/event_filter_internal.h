/* SPDX-License-Identifier: MIT */
/*
 * event_filter_internal.h - what the filter compiler (event_filter.c)
 * shares with its operand reader (event_filter_value.c): the character
 * classes and the readers of a number and of a ~ pattern.
 */
#ifndef UTRACE_LIB_EVENT_FILTER_INTERNAL_H
#define UTRACE_LIB_EVENT_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* event_filter_value.c */
int filter_parse_number(const char *s, size_t len, bool is_signed, uint64_t *out);
uint64_t filter_to_field_type(uint64_t v, uint32_t size, bool is_signed);
uint8_t filter_glob_op(const char **pat, size_t *len, bool *neg);

#endif
