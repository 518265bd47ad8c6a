/* SPDX-License-Identifier: MIT */
/*
 * trigger_parse.c - any line written to events/SYS/EVENT/trigger, as
 * kernel/trace/trace_events_trigger.c reads it: trigger_process_regex()
 * takes the command up to ':' or a blank, '!' before it removes the
 * trigger, and the command's parse function takes the rest:
 *
 *   traceon[:N] [if FILTER]          event_trigger_parse()
 *   enable_event:SYS:EVENT[:N] [if FILTER]   event_enable_trigger_parse()
 *   hist:...                         hist_parse.c
 *
 * None of these report to error_log: every error is a bare -EINVAL.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist/hist_internal.h"

static const char *const cmd_names[] = {
    [UTRACE_TRIG_TRACEON] = "traceon",
    [UTRACE_TRIG_TRACEOFF] = "traceoff",
    [UTRACE_TRIG_SNAPSHOT] = "snapshot",
    [UTRACE_TRIG_STACKTRACE] = "stacktrace",
    [UTRACE_TRIG_ENABLE_EVENT] = "enable_event",
    [UTRACE_TRIG_DISABLE_EVENT] = "disable_event",
    [UTRACE_TRIG_ENABLE_HIST] = "enable_hist",
    [UTRACE_TRIG_DISABLE_HIST] = "disable_hist",
    [UTRACE_TRIG_HIST] = "hist",
};

const char *utrace_trigger_cmd_name(enum utrace_trigger_cmd cmd)
{
	if ((unsigned)cmd >= sizeof(cmd_names) / sizeof(cmd_names[0]))
		return "unknown";
	return cmd_names[cmd];
}

void utrace_trigger_free(struct utrace_trigger *t)
{
	if (!t || __atomic_fetch_sub(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return; /* another holder keeps it */
	utrace_hist_spec_free(t->hist);
	free(t->target_system);
	free(t->target_event);
	free(t->filter);
	free(t);
}

struct utrace_trigger *utrace_trigger_get(const struct utrace_trigger *t)
{
	struct utrace_trigger *w = (struct utrace_trigger *)t; /* the count is not the trigger */

	if (w)
		__atomic_add_fetch(&w->refs, 1, __ATOMIC_RELAXED);
	return w;
}

static int einval(int *code, struct utrace_error *err, int col, const char *why)
{
	if (code)
		*code = -1;
	utrace_error_set(err, -EINVAL, "Invalid argument: %s", why);
	if (err)
		err->column = col;
	return -EINVAL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* set_trigger_filter(): "if" then a blank, the rest is the filter. */
static int set_filter(struct utrace_trigger *t, const char *line, const char *f, int *code,
		      struct utrace_error *err)
{
	size_t n = strcspn(f, " \t");

	if (n != 2 || strncmp(f, "if", 2) || !f[2])
		return einval(code, err, (int)(f - line) + 1, "expected \"if\" before a filter");
	t->filter_pos = (unsigned)(f + 3 - line);
	t->filter = strdup(f + 3);
	return t->filter ? 0 : utrace_error_set(err, -ENOMEM, "Out of memory");
}

/* event_trigger_parse_num(): the count up to ':', kstrtoul(, 0). */
static int parse_count(struct utrace_trigger *t, const char *line, const char *p, size_t n,
		       int *code, struct utrace_error *err)
{
	char num[32];
	uint64_t v;
	size_t len = strcspn(p, ":");

	if (len > n)
		len = n;
	if (!len || len >= sizeof(num))
		return einval(code, err, (int)(p - line) + 1, "malformed count");
	memcpy(num, p, len);
	num[len] = '\0';
	if (hist_strtou64(num, &v) || v > (uint64_t)LONG_MAX)
		return einval(code, err, (int)(p - line) + 1, "malformed count");
	t->count = (long)v;
	return 0;
}

/*
 * event_trigger_separate_filter(): the param is the first word if it is
 * required or starts with a digit; what follows it is the filter.
 */
static int parse_common(struct utrace_trigger *t, const char *line, const char *rest, int *code,
			struct utrace_error *err)
{
	bool required = t->cmd >= UTRACE_TRIG_ENABLE_EVENT;
	const char *param = NULL, *filter = NULL;
	size_t plen = 0;

	if (!rest) {
		if (required)
			return einval(code, err, 0, "missing SYSTEM:EVENT");
		return 0;
	}
	if (!required && !(*rest >= '0' && *rest <= '9')) {
		filter = rest;
	} else {
		param = rest;
		plen = strcspn(rest, " \t");
		filter = rest + plen;
		while (blank(*filter))
			filter++;
		if (!*filter)
			filter = NULL;
	}
	if (required) {
		size_t sys = strcspn(param, ":");
		const char *ev;
		size_t evlen;

		if (sys >= plen)
			return einval(code, err, (int)(param - line) + 1, "missing :EVENT");
		ev = param + sys + 1;
		evlen = strcspn(ev, ":");
		if (ev + evlen > param + plen)
			evlen = (size_t)(param + plen - ev);
		t->target_system = strndup(param, sys);
		t->target_event = strndup(ev, evlen);
		if (!t->target_system || !t->target_event)
			return utrace_error_set(err, -ENOMEM, "Out of memory");
		param = ev + evlen < param + plen ? ev + evlen + 1 : NULL;
		plen = param ? (size_t)(rest + plen - param) : 0;
	}
	/* a removal neither reads its count nor compiles its filter */
	if (t->remove)
		return 0;
	if (param && parse_count(t, line, param, plen, code, err))
		return -EINVAL;
	return filter ? set_filter(t, line, filter, code, err) : 0;
}

int utrace_trigger_parse(const char *text, struct utrace_trigger **out, int *code,
			 struct utrace_error *err)
{
	struct utrace_trigger *t;
	const char *name, *rest;
	size_t n, len;
	unsigned i;
	char *line;
	int ret;

	*out = NULL;
	if (code)
		*code = UTRACE_HIST_ERR_NONE;
	/* the kernel strips the line; columns stay those of text */
	for (len = strlen(text); len && strchr(" \t\n", text[len - 1]); len--)
		;
	if (!(line = strndup(text, len)) || !(t = calloc(1, sizeof(*t)))) {
		free(line);
		return utrace_error_set(err, -ENOMEM, "Out of memory");
	}
	t->count = -1;
	for (name = line; blank(*name) || *name == '\n'; name++)
		;
	t->remove = *name == '!';
	name += t->remove;
	n = strcspn(name, ": \t");
	for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (strlen(cmd_names[i]) == n && !strncmp(name, cmd_names[i], n))
			break;
	if (i == sizeof(cmd_names) / sizeof(cmd_names[0])) {
		ret = einval(code, err, (int)(name - line) + 1, "unknown trigger command");
		goto out;
	}
	t->cmd = (enum utrace_trigger_cmd)i;
	rest = name + n + (name[n] != '\0');
	while (blank(*rest))
		rest++;
	if (!*rest)
		rest = NULL;
	if (t->cmd == UTRACE_TRIG_HIST) {
		ret = utrace_hist_parse(line, &t->hist, code, err);
		if (!ret && t->hist->filter) {
			t->filter = strdup(t->hist->filter);
			t->filter_pos = t->hist->filter_pos;
			if (!t->filter)
				ret = utrace_error_set(err, -ENOMEM, "Out of memory");
		}
	} else {
		ret = parse_common(t, line, rest, code, err);
	}
out:
	free(line);
	if (ret < 0)
		utrace_trigger_free(t);
	else
		*out = t;
	return ret < 0 ? ret : 0;
}

/* The spec as hist_trigger_match() sees it: size, clock and
 * pause/cont/clear are not part of it (spec_text prints no flag). */
static char *match_text(const struct utrace_hist_spec *s)
{
	struct utrace_hist_spec x = *s; /* shallow: only read by spec_text */
	int n;
	char *buf;

	x.map_bits = UTRACE_HIST_BITS_DEFAULT;
	x.clock = NULL;
	n = utrace_hist_spec_text(&x, NULL, 0);
	if (n < 0 || !(buf = malloc((size_t)n + 1)))
		return NULL;
	utrace_hist_spec_text(&x, buf, (size_t)n + 1);
	return buf;
}

bool utrace_hist_spec_same(const struct utrace_hist_spec *a, const struct utrace_hist_spec *b)
{
	char *x = match_text(a), *y = match_text(b);
	bool same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}
