/* SPDX-License-Identifier: MIT */
/*
 * trace_pid.c - set_ftrace_pid and set_ftrace_notrace_pid: which threads'
 * function records (function and function_graph tracers) are written.
 *
 * The kernel installs a pid-checking wrapper around the tracer only while
 * a list is non-empty (kernel/trace/ftrace.c, ftrace_pid_func), and the
 * task's "ignore" flag is computed when the list changes.  Here the lists
 * are on the control page (common/proto.h ft_pids), which the recorder
 * changes at any time for every process at once; the tracers' fast paths
 * read one word of it, ft_pid_gen (rt_ftpid_out, rt.h): bit 0 clear, no
 * list, nothing else to do.  Otherwise each thread context keeps its
 * answer with the word it was computed under (t->ftpid) and comes here
 * only when the word changed.
 *
 * The recorder writes the lists, then the word (release).  The word is
 * read before the lists (acquire): an answer computed from lists in the
 * middle of a change is kept under the old word and asked again once
 * the new one is seen.  t->ftpid is one 64-bit store of the word and the
 * answer together, so a signal handler that asks in between (the same
 * context, not BUSY yet) leaves a pair that is consistent or stale, never
 * a new word with an old answer.
 *
 * Called from the tracers' paths: signal-safe (loads, and gettid, which
 * cannot fail and leaves errno alone), no allocation.
 */
#include <unistd.h>

#include "runtime/rt.h"

/* Whether tid is in the 0-terminated list (each entry read once). */
static bool ftpid_in(const int32_t *list, int32_t tid)
{
	int32_t v;

	for (unsigned i = 0; i < UTRACE_FT_PIDS && (v = __atomic_load_n(&list[i], __ATOMIC_RELAXED));
	     i++)
		if (v == tid)
			return true;
	return false;
}

/* The answer of rt_ftpid_out when the cached one is not gen's. */
bool rt_ftpid_ask(struct rt_thread *t, uint32_t gen)
{
	const struct utrace_control *c = rt.ctl;
	bool out;

	if ((uint32_t)t->ftpid == gen && t->ftpid >> 32)
		return true; /* left out under gen already */
	if (unlikely(!t->tid))
		t->tid = gettid();
	/* set_ftrace_pid, when it has threads, is the only ones traced;
	 * set_ftrace_notrace_pid's are not, whatever the other says */
	out = (__atomic_load_n(&c->ft_pids[0], __ATOMIC_RELAXED) && !ftpid_in(c->ft_pids, t->tid)) ||
	      ftpid_in(c->ft_notrace_pids, t->tid);
	t->ftpid = (uint64_t)gen | (uint64_t)out << 32;
	return out;
}
