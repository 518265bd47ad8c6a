/* SPDX-License-Identifier: MIT */
/*
 * session_live_wakeup.c - the live tracefs's wakeup and wakeup_rt
 * tracers: the recorder measures them on the kernel's records it merges
 * (lib/record/recorder_wakeup.c); each call first merges what the
 * kernel has written so far, as the kernel's tracer has seen it.
 */
#include <errno.h>
#include <string.h>

#include "lib/session/session_internal.h"
#include "lib/session/session_live_internal.h"

/* The recording's tasks: those the kernel's instance follows, whose
 * every wakeup and switch it keeps. */
static bool session_live_wakeup_own(void *arg, int pid)
{
	struct session_live *rl = arg;

	return !rl->kt || utrace_ktrace_follows(rl->kt, pid);
}

int session_live_wakeup_start(void *arg, bool on, bool rt, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = session_live_merge(rl, err);
	if (ret >= 0 && (ret = utrace_recorder_wakeup(rl->r, on ? (rt ? 2 : 1) : 0,
							    session_live_wakeup_own, rl)) < 0)
		utrace_error_set(err, ret,
				 "the wakeup tracers need the kernel's sched_wakeup "
				 "and sched_switch (record -e)");
	pthread_mutex_unlock(&rl->lock);
	return ret < 0 ? ret : 0;
}

int session_live_wakeup_max(void *arg, bool set, uint64_t *max_ns, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = session_live_merge(rl, err);
	if (ret >= 0)
		*max_ns = utrace_recorder_wakeup_max(rl->r, set, *max_ns);
	pthread_mutex_unlock(&rl->lock);
	return ret < 0 ? ret : 0;
}

void session_live_wakeup_clear(void *arg)
{
	struct session_live *rl = live_rl(arg);
	struct utrace_error err;

	live_lock(rl);
	if (session_live_merge(rl, &err) >= 0) /* what came before goes too */
		utrace_recorder_wakeup_clear(rl->r);
	pthread_mutex_unlock(&rl->lock);
}

bool session_live_wakeup_tracer(const char *tracer)
{
	return !strcmp(tracer, "wakeup") || !strcmp(tracer, "wakeup_rt");
}

int session_live_wakeup_print(struct session_live *rl, FILE *out, struct utrace_error *err)
{
	int ret;

	live_lock(rl);
	ret = session_live_merge(rl, err);
	if (ret >= 0)
		utrace_recorder_wakeup_print(rl->r, out);
	pthread_mutex_unlock(&rl->lock);
	return ret < 0 ? ret : 0;
}
