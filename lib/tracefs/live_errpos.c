/* SPDX-License-Identifier: MIT */
/*
 * live_errpos.c - where the kernel puts the caret of an event filter's
 * error (kernel/trace/trace_events_filter.c), from where utrace's filter
 * compiler points (lib/events/event_filter.c: the offending token,
 * 1-based).
 *
 * The kernel's positions are its parser's, quirks included: errors
 * found before parsing (calc_stack: an unmatched '(' or ')', a quote
 * never closed) are at the character; errors inside a predicate
 * (parse_pred) are one past where its index stands then, since a
 * predicate's offset is taken after its first character: past the end of
 * an unknown field name, at the operator, at the value, past the end of a
 * value too long.  Tools and the ftrace selftests read those columns, so
 * error_log and the filter file show them; `utrace record -f` keeps the
 * token's column.
 */
#include <ctype.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/tracefs/live_internal.h"

/* The index past the operator at i and the spaces after it. */
static size_t past_op(const char *s, size_t i)
{
	while (s[i] && strchr("=!<>&~", s[i]))
		i++;
	while (isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* The index of a value's end: its closing quote, or past its digits. */
static size_t value_end(const char *s, size_t i)
{
	char q = s[i];

	if (q == '"' || q == '\'') {
		const char *e = strchr(s + i + 1, q);

		return e ? (size_t)(e - s) : strlen(s);
	}
	if (s[i] == '-')
		i++;
	while (isalnum((unsigned char)s[i]))
		i++;
	return i;
}

unsigned live_filter_errpos(const char *text, int code, int column)
{
	size_t len = strlen(text), i = column > 0 ? (size_t)column - 1 : 0;

	if (i > len)
		i = len;
	switch (code) {
	case UTRACE_FILTER_ERR_TOO_MANY_OPEN:
	case UTRACE_FILTER_ERR_TOO_MANY_CLOSE:
	case UTRACE_FILTER_ERR_MISSING_QUOTE:
		return (unsigned)i;
	case UTRACE_FILTER_ERR_FIELD_NOT_FOUND: /* past the name */
		while (isalnum((unsigned char)text[i]) || text[i] == '_')
			i++;
		return (unsigned)i + 1;
	case UTRACE_FILTER_ERR_ILLEGAL_FIELD_OP: /* utrace: the operator */
		return (unsigned)past_op(text, i) + 1;
	case UTRACE_FILTER_ERR_OPERAND_TOO_LONG:
		return (unsigned)value_end(text, i) + 1;
	case UTRACE_FILTER_ERR_INVALID_OP:
	case UTRACE_FILTER_ERR_EXPECT_STRING:
	case UTRACE_FILTER_ERR_EXPECT_DIGIT:
	case UTRACE_FILTER_ERR_ILLEGAL_INTVAL:
	case UTRACE_FILTER_ERR_INVALID_VALUE:
		return (unsigned)i + 1;
	default:
		return (unsigned)i;
	}
}
