/* SPDX-License-Identifier: MIT */
/*
 * live_profile.c - kprobe_profile, the kernel's (kernel/trace/
 * trace_kprobe.c probes_profile_seq_show): one line per kprobe event
 * (p: and r:, not fprobes or uprobes), oldest first,
 *
 *   "  %-44s %15lu %15lu\n"  event name, hits, misses
 *
 * A hit is a record of the event in the recording (an in-process probe
 * writes one each time it is hit while enabled, and is not there while
 * disabled, as the kernel's is unregistered); the recording answers
 * (ops->event_hits).  The caller holds l->lock.
 */
#include "lib/tracefs/live_internal.h"
#include "lib/events/event_format.h"

int live_show_kprobe_profile(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	live_dynev_format(l, 0); /* the command line's probes, once */
	for (size_t i = 0; i < l->ndyn; i++) {
		const struct utrace_event_format *fmt = l->dyn[i].fmt;
		struct utrace_error err = {0};
		uint64_t hits = 0, missed = 0;

		if (l->dyn[i].kind != LIVE_DYN_KPROBE)
			continue;
		if (l->ops.event_hits &&
		    l->ops.event_hits(l->ops.arg, fmt->system, fmt->name, &hits, &missed, &err) < 0)
			return err.code;
		fprintf(out, "  %-44s %15llu %15llu\n", fmt->name, (unsigned long long)hits,
			(unsigned long long)missed);
	}
	return 0;
}
