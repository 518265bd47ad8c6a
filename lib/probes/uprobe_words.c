/* SPDX-License-Identifier: MIT */
/*
 * uprobe_words.c - the words of a probe definition, as the kernel's
 * trace_probe.c takes them: split at blanks with each word's column (for
 * the caret of an error), the GROUP/EVENT name and its rules
 * (traceprobe_parse_event_name), C identifiers, and numbers as the
 * kernel's kstrtoul/kstrtol read them (a leading '+', no trailing
 * bytes).  Used by uprobe.c, uprobe_args.c and the other parsers of
 * lib/probes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/uprobe_internal.h"

bool upr_good_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

int upr_split(const char *s, char ***tok, int **col, unsigned *n)
{
	size_t len = strlen(s);

	*n = 0;
	*tok = calloc(len / 2 + 2, sizeof(**tok));
	*col = calloc(len / 2 + 2, sizeof(**col));
	if (!*tok || !*col)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		size_t w;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++;
			continue;
		}
		w = strcspn(s + i, " \t\n");
		if (!((*tok)[*n] = strndup(s + i, w)))
			return -ENOMEM;
		(*col)[(*n)++] = (int)i + 1;
		i += w;
	}
	return 0;
}

int upr_event_name(const char *name, int col, char *group, char *event, int *errcol)
{
	const char *slash = strchr(name, '/'), *ev = name;

	*errcol = col;
	if (!slash)
		slash = strchr(name, '.');
	if (slash) {
		if (slash == name)
			return UTRACE_UPROBE_ERR_NO_GROUP_NAME;
		if (slash - name > UTRACE_UPROBE_NAME_MAX)
			return UTRACE_UPROBE_ERR_GROUP_TOO_LONG;
		snprintf(group, UTRACE_UPROBE_NAME_MAX + 1, "%.*s", (int)(slash - name), name);
		if (!upr_good_name(group))
			return UTRACE_UPROBE_ERR_BAD_GROUP_NAME;
		ev = slash + 1;
		*errcol = col + (int)(ev - name);
	}
	if (!*ev) /* GROUP/: the default event name */
		return slash ? 0 : UTRACE_UPROBE_ERR_NO_EVENT_NAME;
	if (strlen(ev) > UTRACE_UPROBE_NAME_MAX)
		return UTRACE_UPROBE_ERR_EVENT_TOO_LONG;
	if (!upr_good_name(ev))
		return UTRACE_UPROBE_ERR_BAD_EVENT_NAME;
	strcpy(event, ev);
	return 0;
}

bool upr_strtoul(const char *s, int base, uint64_t *v)
{
	char *end;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

bool upr_strtol(const char *s, int base, int64_t *v)
{
	uint64_t u;
	bool neg = *s == '-';

	if (!upr_strtoul(s + neg, base, &u) || u > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}
