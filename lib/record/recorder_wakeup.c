/* SPDX-License-Identifier: MIT */
/*
 * recorder_wakeup.c - the live tracefs's wakeup and wakeup_rt tracers
 * in the recorder: their state (wakeup_lat.h) is fed every kernel record
 * the merge reads (recorder_kmerge.c), as the kernel's tracer's probes
 * see every wakeup and switch, whether the events are enabled or not.
 */
#include <errno.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/wakeup_lat.h"

int utrace_recorder_wakeup(struct utrace_recorder *r, int mode, bool (*own)(void *arg, int pid),
			   void *own_arg)
{
	static const char *const names[] = {"sched_wakeup", "sched_wakeup_new", "sched_switch"};

	if (!mode) {
		if (r->wk)
			utrace_wakeup_lat_start(r->wk, false, false);
		return 0;
	}
	if (!r->km || !rec_kfmt_shown(r, "sched", "sched_wakeup") ||
	    !rec_kfmt_shown(r, "sched", "sched_switch"))
		return -ENOENT;
	if (!r->wk && utrace_wakeup_lat_new(&r->wk) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct rec_kfmt *k = rec_kfmt_shown(r, "sched", names[i]);

		if (k)
			utrace_wakeup_lat_format(r->wk, k->fmt, k->id);
	}
	utrace_wakeup_lat_scope(r->wk, own, own_arg);
	utrace_wakeup_lat_start(r->wk, true, mode == 2);
	return 0;
}

uint64_t utrace_recorder_wakeup_max(struct utrace_recorder *r, bool set, uint64_t max_ns)
{
	if (!r->wk && utrace_wakeup_lat_new(&r->wk) < 0)
		return 0;
	if (set)
		utrace_wakeup_lat_set_max(r->wk, max_ns);
	return utrace_wakeup_lat_max(r->wk);
}

void utrace_recorder_wakeup_clear(struct utrace_recorder *r)
{
	if (r->wk)
		utrace_wakeup_lat_clear(r->wk);
}

void utrace_recorder_wakeup_print(struct utrace_recorder *r, FILE *out)
{
	if (r->wk)
		utrace_wakeup_lat_print(r->wk, out);
}
