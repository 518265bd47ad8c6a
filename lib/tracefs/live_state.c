/* SPDX-License-Identifier: MIT */
/*
 * live_state.c - what the files of the live tracefs share: the tracer,
 * the function lists of set_ftrace_filter and set_ftrace_notrace, the
 * error_log, the time of the last clear of trace, how a number written
 * is read, and an event enable's soft-mode mark.  The caller holds l->lock.
 *
 * The lists are kept as the expressions written ("func*", "!func_b",
 * "f:mod:libm.so*"); each change makes a new utrace_func_filter of them
 * (lib/events/ftrace_filter.h decides which functions they select, as at
 * `utrace record -l`) and hands it to the recording.  The processes may
 * still use the previous one until they answered, so every filter made
 * lives until the filesystem goes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/base/grow.h"
#include "lib/tracefs/live_internal.h"

static const char *const tracer_names[] = {
    [UTRACE_TRACER_NOP] = "nop",
    [UTRACE_TRACER_FUNCTION] = "function",
    [UTRACE_TRACER_FUNCTION_GRAPH] = "function_graph",
};

const char *live_tracer_name(enum utrace_tracer t)
{
	return (unsigned)t < sizeof(tracer_names) / sizeof(tracer_names[0]) ? tracer_names[t]
									 : "nop";
}

int live_tracer_parse(const char *name, enum utrace_tracer *out)
{
	for (unsigned i = 0; i < sizeof(tracer_names) / sizeof(tracer_names[0]); i++)
		if (!strcmp(name, tracer_names[i])) {
			*out = (enum utrace_tracer)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * The kernel's tracing_log_err() layout (kernel/trace/trace.c): the
 * location gets ": error: " appended, the command is printed after
 * "  Command: " and the caret is indented by that prefix plus pos.
 */
void live_errlog_add(struct utrace_live *l, const char *loc, const char *cmd, const char *text,
		     unsigned pos)
{
	static const char prefix[] = "  Command: ";
	struct timespec ts;
	char *e;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = strlen(loc) + strlen(cmd) + strlen(text) + sizeof(prefix) + pos + 64;
	if (!(e = malloc(n)))
		return;
	snprintf(e, n, "[%5llu.%06lu] %s: error: %s\n%s%s\n%*s^\n",
		 (unsigned long long)ts.tv_sec, ts.tv_nsec / 1000, loc, text, prefix, cmd,
		 (int)(sizeof(prefix) - 1 + pos), "");
	if (l->nerr == LIVE_ERRLOG_MAX) {
		free(l->errlog[0]);
		memmove(l->errlog, l->errlog + 1, (LIVE_ERRLOG_MAX - 1) * sizeof(char *));
		l->nerr--;
	}
	l->errlog[l->nerr++] = e;
}

void live_errlog_show(struct utrace_live *l, FILE *out)
{
	for (unsigned i = 0; i < l->nerr; i++)
		fputs(l->errlog[i], out);
}

void live_errlog_clear(struct utrace_live *l)
{
	for (unsigned i = 0; i < l->nerr; i++)
		free(l->errlog[i]);
	l->nerr = 0;
}

int live_list_add(struct live_list *l, const char *expr)
{
	if (UTRACE_GROW(l->expr, l->cap, l->n + 1) < 0)
		return -ENOMEM;
	if (!(l->expr[l->n] = strdup(expr)))
		return -ENOMEM;
	l->n++;
	return 0;
}

int live_list_copy(struct live_list *dst, const struct live_list *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (live_list_add(dst, src->expr[i]) < 0)
			return -ENOMEM;
	return 0;
}

void live_list_free(struct live_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->expr[i]);
	free(l->expr);
	l->expr = NULL;
	l->n = 0;
	l->cap = 0;
}

struct utrace_func_filter *live_filter_make(const struct live_list lists[UTRACE_FILTER_LISTS],
					    struct utrace_error *err)
{
	struct utrace_func_filter *f = utrace_func_filter_new();

	if (!f) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	for (int w = 0; w < UTRACE_FILTER_LISTS; w++)
		for (size_t i = 0; i < lists[w].n; i++)
			if (utrace_func_filter_add(f, (enum utrace_filter_list)w, lists[w].expr[i],
						   err) < 0) {
				utrace_func_filter_free(f);
				return NULL;
			}
	return f;
}

int live_lists_from(struct utrace_live *l, const struct utrace_func_filter *f)
{
	enum utrace_filter_list which;
	const char *e;
	bool neg;

	for (size_t i = 0; f && (e = utrace_func_filter_expr(f, i, &which, &neg)); i++)
		if (live_list_add(&l->lists[which], e) < 0)
			return -ENOMEM;
	return 0;
}

static void lists_free(struct live_list lists[UTRACE_FILTER_LISTS])
{
	for (int w = 0; w < UTRACE_FILTER_LISTS; w++)
		live_list_free(&lists[w]);
}

int live_apply(struct utrace_live *l, enum utrace_tracer tracer,
	       const struct live_list lists[UTRACE_FILTER_LISTS], struct utrace_error *err)
{
	struct live_list copy[UTRACE_FILTER_LISTS] = {{0}};
	struct utrace_func_filter *f;
	size_t n = 0;

	if (UTRACE_GROW(l->filters, l->cap_filters, l->nfilters + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (!(f = live_filter_make(lists, err)))
		return err->code;
	l->filters[l->nfilters++] = f;
	for (int w = 0; w < UTRACE_FILTER_LISTS; w++) {
		n += lists[w].n;
		if (live_list_copy(&copy[w], &lists[w]) < 0) {
			lists_free(copy);
			return utrace_error_set(err, -ENOMEM, "out of memory");
		}
	}
	/* a filter with no expression at all selects every function */
	/* the processes run function_graph while the function profiler is
	 * on (live_fprofile.c), whatever tracer trace shows */
	if (l->ops.set_tracer(l->ops.arg, l->prof_on ? UTRACE_TRACER_FUNCTION_GRAPH : tracer,
			      n ? f : NULL, l->max_depth, err) < 0) {
		lists_free(copy);
		return err->code;
	}
	l->tracer = tracer;
	lists_free(l->lists);
	memcpy(l->lists, copy, sizeof(copy));
	return 0;
}

void live_trace_clear(struct utrace_live *l)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	l->clear_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *live_strip(const char *buf, size_t n)
{
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	while (n && isspace((unsigned char)*buf))
		buf++, n--;
	return strndup(buf, n);
}

int live_dointvec(const char *buf, size_t n, long min, long max, long *v)
{
	char *s = live_strip(buf, n), *end;
	int ret;

	if (!s)
		return -ENOMEM;
	errno = 0;
	*v = strtol(s, &end, 10);
	ret = !*s || *end || errno || *v < min || *v > max ? -EINVAL : 0;
	free(s);
	return ret;
}

int live_number(const char *buf, size_t n, unsigned long long *v)
{
	char text[32], *end;

	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	if (!n || n >= sizeof(text))
		return -EINVAL;
	memcpy(text, buf, n);
	text[n] = 0;
	errno = 0;
	*v = strtoull(text, &end, 0);
	return *end || errno || text[0] == '-' ? -EINVAL : 0;
}

/* The soft mode's "*" of an event's enable (event_enable_read): when
 * enable_event, disable_event or its own triggers run it. */
const char *live_soft_mark(struct utrace_live *l, const char *sys, const char *ev)
{
	return l->ops.event_soft && l->ops.event_soft(l->ops.arg, sys, ev) ? "*" : "";
}
