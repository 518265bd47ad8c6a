/* SPDX-License-Identifier: MIT */
/*
 * session_dynev_append.c - a probe defined under the name of an existing
 * one, checked by the kernel's rules (kernel/trace/trace_kprobe.c
 * append_trace_kprobe, trace_probe.c trace_probe_compare_arg_type), at
 * its columns: another type (p, r, f, f%return) is DIFF_PROBE_TYPE at the
 * definition's start; other arguments (count, name or type: the fields of
 * the two formats, in order) are DIFF_ARG_TYPE at the first that differs;
 * the same point with the same arguments is SAME_PROBE.  Otherwise the
 * new point is appended to the event (the kernel's multiprobe): another
 * in-process probe under the event's id and format, whose print fmt names
 * the location by __probe_ip, as the kernel's (lib/probes/fetch_compile.c).
 */
#include <errno.h>
#include <string.h>

#include "lib/probes/uprobe.h"
#include "lib/session/session_dynev.h"

/* The next argument field line of a format text after *s ("\tfield:TYPE
 * NAME;"): its length up to ';', *s moved past its line; 0 if none. */
static size_t next_arg_field(const char **s, const char **field)
{
	const char *p;

	while ((p = strstr(*s, "\tfield:"))) {
		const char *end = strchr(p, '\n');

		*s = end ? end + 1 : p + strlen(p);
		if (strstr(p, " common_") && strstr(p, " common_") < strchr(p, ';'))
			continue;
		if (strstr(p, " __probe_") && strstr(p, " __probe_") < strchr(p, ';'))
			continue;
		*field = p;
		return (size_t)(strchr(p, ';') - p);
	}
	return 0;
}

/* The 1-based column of word k (0: the type) of def. */
static int word_column(const char *def, unsigned k)
{
	size_t i = strspn(def, " \t");

	for (unsigned w = 0; w < k && def[i]; w++) {
		i += strcspn(def + i, " \t");
		i += strspn(def + i, " \t");
	}
	return (int)i + 1;
}

/* The kernel's register_trace_kprobe and append_trace_kprobe answer every
 * clash with an existing event with -EEXIST (its error_log says which);
 * an append utrace cannot do is -EOPNOTSUPP. */
static int append_err(int code, int column, struct utrace_error *err)
{
	int ret = utrace_error_set(
	    err, code == UTRACE_UPROBE_ERR_APPEND_UNSUPPORTED ? -EOPNOTSUPP : -EEXIST, "%s",
	    utrace_uprobe_error_text(code));

	err->column = column;
	return ret;
}

int session_dynev_append_check(const struct session_dynev_probe *old,
			       const struct session_dynev_probe *add, const char *def,
			       struct utrace_error *err)
{
	const char *a = old->format, *b = add->format, *fa = NULL, *fb = NULL;
	unsigned k = 0;

	if (old->kind != add->kind)
		return append_err(UTRACE_UPROBE_ERR_DIFF_PROBE_TYPE, word_column(def, 0), err);
	for (;; k++) {
		size_t la = next_arg_field(&a, &fa), lb = next_arg_field(&b, &fb);

		if (!la && !lb)
			break;
		if (la != lb || strncmp(fa, fb, la))
			return append_err(UTRACE_UPROBE_ERR_DIFF_ARG_TYPE, word_column(def, 2 + k),
					  err);
	}
	if (!strcmp(old->point, add->point))
		return append_err(UTRACE_UPROBE_ERR_SAME_PROBE, word_column(def, 0), err);
	return 0;
}
