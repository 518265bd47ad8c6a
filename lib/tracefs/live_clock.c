/* SPDX-License-Identifier: MIT */
/*
 * live_clock.c - trace_clock, the kernel's (kernel/trace/trace.c
 * tracing_clock_show, tracing_clock_write):
 *
 *   read     the clocks, space separated, the current one in brackets:
 *            "[mono] x86-tsc"
 *   write    a listed name (white space around it stripped) makes it the
 *            clock trace, trace_pipe and snapshot print their time stamps
 *            in, and clears trace as the kernel resets its buffers; any
 *            other text is EINVAL
 *
 * Every record carries the TSC the runtime read; which clocks the
 * printing can put that in is the recording's (ops->clock_names, the
 * first the one trace starts with), and a clock is applied to the
 * options word trace is printed with (ops->set_clock).  The caller holds
 * l->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"

/* The name at *s (its length), *s moved past it and its space. */
static size_t clock_next(const char **s)
{
	size_t n = strcspn(*s, " ");
	const char *p = *s;

	*s += n + (p[n] == ' ');
	return n;
}

/* At start: the first clock named. */
void live_clock_init(struct utrace_live *l)
{
	const char *names = l->ops.clock_names ? l->ops.clock_names : "", *s = names;
	size_t n = clock_next(&s);

	if (n < sizeof(l->clock)) {
		memcpy(l->clock, names, n); /* names, never NULL: no ops says none */
		l->clock[n] = 0;
	}
}

int live_show_clock(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const char *s = l->ops.clock_names ? l->ops.clock_names : "";

	for (bool first = true; *s; first = false) {
		const char *name = s;
		size_t n = clock_next(&s);
		bool cur = n == strlen(l->clock) && !strncmp(name, l->clock, n);

		fprintf(out, "%s%s%.*s%s", first ? "" : " ", cur ? "[" : "", (int)n, name,
			cur ? "]" : "");
	}
	fputc('\n', out);
	return 0;
}

long live_write_clock(struct utrace_live *l, struct live_handle *h, const char *buf, size_t len)
{
	uint32_t options = l->options;
	const char *s = l->ops.clock_names ? l->ops.clock_names : "";
	char *name = live_strip(buf, len);
	size_t n = name ? strlen(name) : 0;
	long ret = -EINVAL;

	if (!name)
		return -ENOMEM;
	while (n && n < sizeof(l->clock) && *s) { /* only a listed name */
		const char *p = s;

		if (clock_next(&s) == n && !strncmp(p, name, n)) {
			if (l->ops.set_clock(l->ops.arg, name, &options) < 0)
				break;
			l->options = options;
			memcpy(l->clock, name, n + 1);
			live_trace_clear(l);
			ret = (long)len;
			break;
		}
	}
	free(name);
	return ret;
}
