/* SPDX-License-Identifier: MIT */
/*
 * live_wakeup.c - the kernel's wakeup latency tracers, wakeup and
 * wakeup_rt (kernel/trace/trace_sched_wakeup.c), and tracing_max_latency:
 *
 *   available_tracers  lists them where the recording has the kernel's
 *                      sched:sched_wakeup and sched:sched_switch (record
 *                      -e: its processes' wakeups and switches)
 *   current_tracer     wakeup, wakeup_rt: the processes run nop, the
 *                      recording measures from then the latency from
 *                      each wakeup of a task to its switch in (the
 *                      kernel's rules: lib/report/wakeup_lat.h), and trace
 *                      shows the longest's trace in the latency format
 *   tracing_max_latency  the longest, in microseconds ("%lu\n" of ns /
 *                      1000); a write of a number N sets it to N us, so
 *                      0 starts the search over; else EINVAL
 */
#include <errno.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/tracefs/live_internal.h"

bool live_wakeup_available(struct utrace_live *l)
{
	const struct utrace_event_format *f;
	bool sw = false, wk = false;

	if (!l->ops.wakeup_start || !l->ops.wakeup_max || !l->ops.kernel_event)
		return false;
	for (size_t i = 0; (f = l->ops.kernel_event(l->ops.arg, i)); i++) {
		if (strcmp(f->system, "sched"))
			continue;
		sw |= !strcmp(f->name, "sched_switch");
		wk |= !strcmp(f->name, "sched_wakeup");
	}
	return sw && wk;
}

int live_wakeup_parse(struct utrace_live *l, const char *name)
{
	if (!strcmp(name, "wakeup"))
		return LIVE_WAKEUP;
	if (!strcmp(name, "wakeup_rt"))
		return LIVE_WAKEUP_RT;
	return -1;
}

const char *live_current_tracer(struct utrace_live *l)
{
	if (l->wakeup)
		return l->wakeup == LIVE_WAKEUP_RT ? "wakeup_rt" : "wakeup";
	return live_tracer_name(l->tracer);
}

int live_wakeup_set(struct utrace_live *l, int which, struct utrace_error *err)
{
	int ret;

	if (which == l->wakeup)
		return 0;
	if (l->wakeup && (ret = l->ops.wakeup_start(l->ops.arg, false, false, err)) < 0)
		return ret;
	l->wakeup = LIVE_WAKEUP_NONE;
	if (!which)
		return 0;
	/* the processes' own tracer off: the kernel's records measure */
	if (l->tracer != UTRACE_TRACER_NOP &&
	    (ret = live_apply(l, UTRACE_TRACER_NOP, l->lists, err)) < 0)
		return ret;
	if ((ret = l->ops.wakeup_start(l->ops.arg, true, which == LIVE_WAKEUP_RT, err)) < 0)
		return ret;
	l->wakeup = which;
	return 0;
}

int live_show_max_latency(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};
	uint64_t ns = 0;
	int ret;

	if (l->ops.wakeup_max && (ret = l->ops.wakeup_max(l->ops.arg, false, &ns, &err)) < 0)
		return ret;
	fprintf(out, "%llu\n", (unsigned long long)(ns / 1000));
	return 0;
}

long live_write_max_latency(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	unsigned long long v;
	uint64_t ns;
	int ret;

	if (live_number(buf, n, &v) < 0 || v > UINT64_MAX / 1000)
		return -EINVAL;
	if (!l->ops.wakeup_max)
		return -ENODEV;
	ns = v * 1000;
	if ((ret = l->ops.wakeup_max(l->ops.arg, true, &ns, &err)) < 0)
		return ret;
	return (long)n;
}
