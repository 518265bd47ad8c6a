/* SPDX-License-Identifier: MIT */
/*
 * session_step.c - the recording read while it runs, from the caller's
 * o->step (utrace bt's live replay): what the threads have committed and
 * the kernel pages filled so far saved and flushed, so that the file,
 * opened again, holds them (as the live tracefs reads it:
 * session_live_read.c).
 */
#include <signal.h>

#include "lib/session/session_internal.h"

int utrace_session_pid(const struct utrace_session *s)
{
	return s->attach || s->pid < 0 ? 0 : (int)s->pid;
}

void utrace_session_end_command(struct utrace_session *s)
{
	if (s->attach || s->pid <= 0 || s->exited)
		return;
	s->step_killed = true;
	kill(s->pid, SIGTERM);
}

int utrace_session_sync(struct utrace_session *s, struct utrace_error *err)
{
	int ret = utrace_recorder_poll(s->r, 0, err);

	if (ret >= 0 && s->k.kt) {
		ret = utrace_ktrace_poll(s->k.kt, true, session_kpage, s->r, err);
		if (ret > 0)
			ret = utrace_recorder_kround(s->r, err);
	}
	if (ret >= 0)
		ret = utrace_recorder_sync(s->r, err);
	return ret < 0 ? ret : 0;
}
