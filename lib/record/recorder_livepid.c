/* SPDX-License-Identifier: MIT */
/*
 * recorder_livepid.c - the live tracefs's thread-id lists on the control
 * page: set_event_pid, set_event_notrace_pid (looked at on each event
 * hit, runtime/trace_events.c), set_ftrace_pid, set_ftrace_notrace_pid
 * (ft_pid_gen, runtime/trace_pid.c), and the kernel's event-fork and
 * function-fork options, which add a child to the lists its parent is in.
 *
 * The kernel adds the child in its sched_process_fork hook, before the
 * child runs.  Here a fork child says HELLO before fork() returns to it
 * (runtime/init.c), with the thread that forked (ptid), and waits for the
 * recorder's CONFIG: rec_live_pids_fork adds it then, so its first event
 * already follows the lists.  As the kernel's (with the option on), a
 * process that exits leaves the lists (rec_live_pids_exit), so that a
 * shell that forks all day does not fill them; its pid could be reused.
 * The lists are the recorder's alone (the tracefs writes them through
 * here, with the recorder held), so a fork and a write never race; the
 * tracefs reads them back (what set_event_pid shows includes the
 * children added).
 */
#include <errno.h>

#include "lib/record/recorder_internal.h"

/* The length of a 0-terminated list of max entries. */
static unsigned pid_list_len(const int32_t *list, unsigned max)
{
	unsigned n = 0;

	while (n < max && __atomic_load_n(&list[n], __ATOMIC_RELAXED))
		n++;
	return n;
}

/* An event list: the threads read one entry at a time, so the new
 * entries go first, then the end, and the first (release) last: no list
 * longer than either is ever read. */
static void ev_list_store(int32_t *dst, const int32_t *tids, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		__atomic_store_n(&dst[i], tids[i], __ATOMIC_RELAXED);
	if (n < UTRACE_EV_PIDS)
		__atomic_store_n(&dst[n], 0, __ATOMIC_RELAXED);
	if (n)
		__atomic_store_n(&dst[0], tids[0], __ATOMIC_RELEASE);
}

int utrace_recorder_live_event_pids(struct utrace_recorder *r, const int32_t *tids, unsigned n,
				    const int32_t *notrace, unsigned nn)
{
	if (n > UTRACE_EV_PIDS || nn > UTRACE_EV_PIDS)
		return -ENOSPC;
	ev_list_store(r->ctl->ev_pids, tids, n);
	ev_list_store(r->ctl->ev_notrace_pids, notrace, nn);
	return 0;
}

/* One function list of the control page, 0-terminated unless full. */
static void live_pid_list(int32_t *dst, const int32_t *tids, unsigned n)
{
	for (unsigned i = 0; i < UTRACE_FT_PIDS; i++)
		__atomic_store_n(&dst[i], i < n ? tids[i] : 0, __ATOMIC_RELAXED);
}

/* The function lists changed: release, so that a thread that reads the
 * new word (acquire) reads the new lists; one that read the old word
 * asks again when it sees this. */
static void ft_pid_gen_bump(struct utrace_recorder *r)
{
	uint32_t gen = __atomic_load_n(&r->ctl->ft_pid_gen, __ATOMIC_RELAXED);
	bool any = r->ctl->ft_pids[0] || r->ctl->ft_notrace_pids[0];

	gen = (gen + 2) & ~1u;
	__atomic_store_n(&r->ctl->ft_pid_gen, gen | any, __ATOMIC_RELEASE);
}

int utrace_recorder_live_ftrace_pids(struct utrace_recorder *r, const int32_t *pids, unsigned n,
				     const int32_t *notrace, unsigned nn)
{
	if (n > UTRACE_FT_PIDS || nn > UTRACE_FT_PIDS)
		return -ENOSPC;
	live_pid_list(r->ctl->ft_pids, pids, n);
	live_pid_list(r->ctl->ft_notrace_pids, notrace, nn);
	ft_pid_gen_bump(r);
	return 0;
}

/* The list which (enum utrace_recorder_pids) of the control page */
static int32_t *pid_list_of(struct utrace_recorder *r, int which, unsigned *max)
{
	struct utrace_control *c = r->ctl;

	*max = which < UTRACE_RECORDER_PIDS_FTRACE ? UTRACE_EV_PIDS : UTRACE_FT_PIDS;
	switch (which) {
	case UTRACE_RECORDER_PIDS_EVENT: return c->ev_pids;
	case UTRACE_RECORDER_PIDS_EVENT_NOTRACE: return c->ev_notrace_pids;
	case UTRACE_RECORDER_PIDS_FTRACE: return c->ft_pids;
	default: return c->ft_notrace_pids;
	}
}

unsigned utrace_recorder_live_pids_get(struct utrace_recorder *r, int which, int32_t *tids)
{
	unsigned max;
	const int32_t *list = pid_list_of(r, which, &max);
	unsigned n = pid_list_len(list, max);

	for (unsigned i = 0; i < n; i++)
		tids[i] = list[i];
	return n;
}

void utrace_recorder_live_follow_fork(struct utrace_recorder *r, unsigned follow)
{
	r->live_follow = follow;
}

/* pid added to list (max entries) if ptid is in it and pid is not, and
 * there is room: the end first, then the entry (release). */
static bool pid_list_follow(int32_t *list, unsigned max, int32_t ptid, int32_t pid)
{
	unsigned n = pid_list_len(list, max);
	bool parent = false;

	for (unsigned i = 0; i < n; i++) {
		if (list[i] == pid)
			return false;
		parent |= list[i] == ptid;
	}
	if (!parent || n == max)
		return false;
	if (n + 1 < max)
		__atomic_store_n(&list[n + 1], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&list[n], pid, __ATOMIC_RELEASE);
	return true;
}

void rec_live_pids_fork(struct utrace_recorder *r, int32_t ptid, int32_t pid)
{
	struct utrace_control *c = r->ctl;
	bool ft = false;

	if (!ptid || !pid)
		return;
	if (r->live_follow & UTRACE_RECORDER_FOLLOW_EVENT) {
		pid_list_follow(c->ev_pids, UTRACE_EV_PIDS, ptid, pid);
		pid_list_follow(c->ev_notrace_pids, UTRACE_EV_PIDS, ptid, pid);
	}
	if (r->live_follow & UTRACE_RECORDER_FOLLOW_FUNCTION) {
		ft |= pid_list_follow(c->ft_pids, UTRACE_FT_PIDS, ptid, pid);
		ft |= pid_list_follow(c->ft_notrace_pids, UTRACE_FT_PIDS, ptid, pid);
	}
	if (ft)
		ft_pid_gen_bump(r);
}

/* pid out of list (max entries): the last entry moves into its place,
 * then the end moves up, so a reader finds every other entry either way
 * but while both stores are under way (the kernel's lists are RCU's). */
static bool pid_list_drop(int32_t *list, unsigned max, int32_t pid)
{
	unsigned n = pid_list_len(list, max), i;

	for (i = 0; i < n && list[i] != pid; i++)
		;
	if (i == n)
		return false;
	__atomic_store_n(&list[i], list[n - 1], __ATOMIC_RELEASE);
	__atomic_store_n(&list[n - 1], 0, __ATOMIC_RELEASE);
	return true;
}

void rec_live_pids_exit(struct utrace_recorder *r, int32_t pid)
{
	struct utrace_control *c = r->ctl;
	bool ft = false;

	if (pid <= 0)
		return;
	if (r->live_follow & UTRACE_RECORDER_FOLLOW_EVENT) {
		pid_list_drop(c->ev_pids, UTRACE_EV_PIDS, pid);
		pid_list_drop(c->ev_notrace_pids, UTRACE_EV_PIDS, pid);
	}
	if (r->live_follow & UTRACE_RECORDER_FOLLOW_FUNCTION) {
		ft |= pid_list_drop(c->ft_pids, UTRACE_FT_PIDS, pid);
		ft |= pid_list_drop(c->ft_notrace_pids, UTRACE_FT_PIDS, pid);
	}
	if (ft)
		ft_pid_gen_bump(r);
}
