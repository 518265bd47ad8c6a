/* SPDX-License-Identifier: MIT */
/*
 * live_fprofile.c - the function profiler: function_profile_enabled and
 * trace_stat/functionN, the kernel's (kernel/trace/ftrace.c,
 * ftrace_profile_write, function_stat_show):
 *
 *   function_profile_enabled  "0" or "1"; a write of a number (base 10,
 *                             non-zero is 1) starts the profile over (1)
 *                             or stops it (0), its figures kept
 *   trace_stat/functionN      CPU N's table: each function's hits, total
 *                             time, average and s^2 (ops->print_profile)
 *
 * The kernel's profiler is function_graph's entry and return hooks of its
 * own, beside whatever tracer is current.  Here the calls are timed by the
 * function_graph tracer of the runtime: while the profiler is on, the
 * processes run it whatever current_tracer says (live_apply), and the
 * tables are the calls the recording holds between the start and the
 * stop.  What trace shows stays what current_tracer says: the function
 * tracer's lines are the calls' entries, and nop shows no function line
 * (lib/report/report_text.c).  As the kernel's profiler follows
 * set_ftrace_filter, so does this one (it is the tracer's filter).  The
 * caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/tracefs/live_internal.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int live_show_profile_enabled(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%d\n", l->prof_on ? 1 : 0);
	return 0;
}

/* kstrtoul base 10, as ftrace_profile_write: -EINVAL if not a number */
static int profile_word(const char *buf, size_t n, bool *on)
{
	char *s = live_strip(buf, n), *end;
	unsigned long long v;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *s == '+' || *end || errno)
		ret = -EINVAL;
	free(s);
	*on = v != 0;
	return ret;
}

long live_write_profile_enabled(struct utrace_live *l, struct live_handle *h, const char *buf,
				size_t n)
{
	struct utrace_error err = {0};
	bool on, was;
	uint64_t t = now_ns();
	int ret;

	if ((ret = profile_word(buf, n, &on)) < 0)
		return ret;
	if (on == l->prof_on)
		return (long)n;
	was = l->prof_on;
	l->prof_on = on;
	/* the processes' tracer: function_graph while profiling */
	if ((ret = live_apply(l, l->tracer, l->lists, &err)) < 0) {
		l->prof_on = was;
		return ret;
	}
	if (on) { /* ftrace_profile_init resets the tables */
		l->prof_from_ns = t;
		l->prof_to_ns = 0;
	} else {
		l->prof_to_ns = now_ns();
	}
	l->prof_used = true;
	return (long)n;
}

int live_resolve_trace_stat(struct utrace_live *l, const char *p, struct live_handle *h)
{
	static const struct live_file function_file = {
	    "", 0444, live_show_trace_stat, NULL, NULL, NULL, 0, false};
	char *end;
	long cpu;

	if (!*p) {
		h->dir = LIVE_DIR_TRACE_STAT;
		return 0;
	}
	if (strncmp(p, "/function", 9) || !isdigit((unsigned char)p[9]))
		return -ENOENT;
	cpu = strtol(p + 9, &end, 10);
	if (*end || cpu >= l->ncpu || (p[9] == '0' && end != p + 10))
		return -ENOENT;
	h->cpu = (int)cpu;
	h->f = &function_file;
	return 0;
}

void live_trace_stat_names(struct utrace_live *l, void (*fill)(void *arg, const char *name),
			   void *arg)
{
	char name[32];

	for (int c = 0; c < l->ncpu; c++) {
		snprintf(name, sizeof(name), "function%d", c);
		fill(arg, name);
	}
}

int live_show_trace_stat(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};

	if (!l->ops.print_profile)
		return -ENOENT;
	/* never enabled: the kernel's tables are empty, the header only */
	if (l->ops.print_profile(l->ops.arg, out, h->cpu, l->prof_used ? l->prof_from_ns : UINT64_MAX,
				 l->prof_used ? l->prof_to_ns : 1, l->thresh_us * 1000, &err) < 0)
		return err.code ? err.code : -EIO;
	return 0;
}
