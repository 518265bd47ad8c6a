/* SPDX-License-Identifier: MIT */
/*
 * dat_evfmt.c - whether an EVENT_FORMAT record's text is safe to keep
 * (lib/tracefile/dat_internal.h).
 *
 * Design: utrace report hands the recording's format texts to
 * libtraceevent, which trusts them; so the reader keeps only texts that
 * are printable ASCII, that our own parser (lib/events/event_format.h)
 * reads, and whose print fmt has none of the index shapes that crash
 * libtraceevent (each one found by fuzz_dat).  Every format the kernel
 * and utrace record write passes.
 */
#include <stdbool.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/tracefile/dat_internal.h"

/*
 * libtraceevent (1.7) dereferences NULL on an index "[N]" of the print
 * fmt's arguments that is followed by anything but an operator, a comma,
 * a closing bracket or the end ("REC->a[1];", "x[1]." or "x[1] =", found
 * by fuzz_dat), and on a "]" that closes nothing.  No kernel format has
 * either (checked against all 2323 of this machine's; their "[]" of a
 * static array in a statement expression is empty and harmless).  Strings
 * and characters are skipped.
 */
static bool print_fmt_indexes_ok(const char *text)
{
	const char *s = strstr(text, "\nprint fmt:");
	char open[64]; /* per "[" open: whether it holds anything yet */
	unsigned depth = 0;

	for (s = s ? s + 11 : ""; *s; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;

			for (s++; *s && *s != q; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return true;
			continue;
		}
		if (*s == '[') {
			if (depth == sizeof(open))
				return false;
			open[depth++] = 0;
		} else if (*s == ']') {
			const char *n = s + 1;

			if (!depth)
				return false;
			while (*n == ' ' || *n == '\t' || *n == '\n')
				n++;
			if (open[--depth] && *n && !strchr(")],+-*/%&|^<>!~:?", *n))
				return false;
		} else if (depth && *s != ' ' && *s != '\t') {
			open[depth - 1] = 1;
		}
	}
	return true;
}

/*
 * Whether a format text reads as the kernel's format file.  utrace report
 * hands these texts to libtraceevent, which trusts them: some malformed
 * ones crash it (a field without its name).  Our parser checks every
 * line, and reads every format the kernel and utrace record write.
 */
bool dat_format_ok(const char *system, const char *text)
{
	struct utrace_event_format *f;
	struct utrace_error err;

	/* format files are printable ASCII; libtraceevent's tokenizer trips
	 * on other bytes inside a field's declaration (found by fuzz_dat) */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c > 0x7e)
			return false;
	if (!print_fmt_indexes_ok(text) || utrace_event_format_parse(system, text, &f, &err) < 0)
		return false;
	utrace_event_format_free(f);
	return true;
}
