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
 *
 * Each reader of the tracefs (the top level, an instance) has its own
 * lists and options, as the kernel's trace_arrays; the processes look
 * at one pair of lists of each kind, on the control page, made here
 * from the readers' whenever one changes (pids_union): a thread's
 * records are written while one reader that counts wants them.  The
 * page's list of ids is empty (every thread) when a reader has none, else
 * the union of theirs; its notrace list holds the ids of the readers'
 * notrace lists that no reader wants.  A fork or an exit changes each
 * reader's lists as its options say, then the page's; once the tracefs
 * reads through selections (utrace_recorder_live_pid_readers), each
 * change is logged with its time, so that a reader leaves out, at read
 * time, what its lists did not have when it was written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/base/grow.h"
#include "lib/record/recorder_internal.h"

static unsigned pid_max(int which)
{
	return which < UTRACE_RECORDER_PIDS_FTRACE ? UTRACE_EV_PIDS : UTRACE_FT_PIDS;
}

static bool pid_in(const int32_t *list, unsigned n, int32_t tid)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == tid)
			return true;
	return false;
}

/* The readers that count: bit N reader N (the top level alone before
 * the tracefs says otherwise). */
static unsigned pid_readers(const struct utrace_recorder *r)
{
	return r->pid_readers ? r->pid_readers : 1;
}

/* Whether reader L wants the records of tid of the lists from first on
 * (its ids, its notrace ids). */
static bool pid_wanted(const struct rec_pid_lists *L, int first, int32_t tid)
{
	if (L->n[first] && !pid_in(L->l[first], L->n[first], tid))
		return false;
	return !pid_in(L->l[first + 1], L->n[first + 1], tid);
}

static bool nobody_wants(const struct utrace_recorder *r, int first, int32_t tid)
{
	unsigned mask = pid_readers(r);

	if (mask >> UTRACE_READERS & 1)
		return false; /* a reader without lists wants every thread */
	for (unsigned k = 0; k < UTRACE_READERS; k++)
		if ((mask >> k & 1) && pid_wanted(&r->pid_lists[k], first, tid))
			return false;
	return true;
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

/* The control page's lists of first's kind (event or function) from the
 * readers' that count: the ids of all when each has some (none past the
 * room: every thread), and the notrace ids nobody wants. */
static void pids_union(struct utrace_recorder *r, int first)
{
	int32_t ids[UTRACE_RECORDER_PIDS_MAX], no[UTRACE_RECORDER_PIDS_MAX];
	unsigned mask = pid_readers(r), max = pid_max(first), n = 0, nn = 0;
	bool all = mask >> UTRACE_READERS & 1;

	for (unsigned k = 0; k < UTRACE_READERS; k++) {
		const struct rec_pid_lists *L = &r->pid_lists[k];

		if (!(mask >> k & 1))
			continue;
		all |= !L->n[first];
		for (unsigned i = 0; i < L->n[first] && !all; i++)
			if (!pid_in(ids, n, L->l[first][i])) {
				if (n == max)
					all = true;
				else
					ids[n++] = L->l[first][i];
			}
		for (unsigned i = 0; i < L->n[first + 1]; i++)
			if (nn < max && !pid_in(no, nn, L->l[first + 1][i]) &&
			    nobody_wants(r, first, L->l[first + 1][i]))
				no[nn++] = L->l[first + 1][i];
	}
	n = all ? 0 : n;
	if (first == UTRACE_RECORDER_PIDS_EVENT) {
		ev_list_store(r->ctl->ev_pids, ids, n);
		ev_list_store(r->ctl->ev_notrace_pids, no, nn);
		return;
	}
	live_pid_list(r->ctl->ft_pids, ids, n);
	live_pid_list(r->ctl->ft_notrace_pids, no, nn);
	ft_pid_gen_bump(r);
}

/* Reader's lists from first on set to tids and notrace (n, nn of them). */
static int pids_set(struct utrace_recorder *r, unsigned reader, int first, const int32_t *tids,
		    unsigned n, const int32_t *notrace, unsigned nn)
{
	struct rec_pid_lists *L;

	if (reader >= UTRACE_READERS)
		return -EINVAL;
	if (n > pid_max(first) || nn > pid_max(first))
		return -ENOSPC;
	L = &r->pid_lists[reader];
	if (n)
		memcpy(L->l[first], tids, n * sizeof(*tids));
	if (nn)
		memcpy(L->l[first + 1], notrace, nn * sizeof(*notrace));
	L->n[first] = n;
	L->n[first + 1] = nn;
	pids_union(r, first);
	return 0;
}

int utrace_recorder_live_event_pids(struct utrace_recorder *r, unsigned reader, const int32_t *tids,
				    unsigned n, const int32_t *notrace, unsigned nn)
{
	return pids_set(r, reader, UTRACE_RECORDER_PIDS_EVENT, tids, n, notrace, nn);
}

int utrace_recorder_live_ftrace_pids(struct utrace_recorder *r, unsigned reader,
				     const int32_t *pids, unsigned n, const int32_t *notrace,
				     unsigned nn)
{
	return pids_set(r, reader, UTRACE_RECORDER_PIDS_FTRACE, pids, n, notrace, nn);
}

unsigned utrace_recorder_live_pids_get(struct utrace_recorder *r, unsigned reader, int which,
				       int32_t *tids)
{
	const struct rec_pid_lists *L;

	if (reader >= UTRACE_READERS || which < 0 || which > UTRACE_RECORDER_PIDS_FTRACE_NOTRACE)
		return 0;
	L = &r->pid_lists[reader];
	memcpy(tids, L->l[which], L->n[which] * sizeof(*tids));
	return L->n[which];
}

void utrace_recorder_live_follow_fork(struct utrace_recorder *r, unsigned reader, unsigned follow)
{
	if (reader < UTRACE_READERS)
		r->pid_lists[reader].follow = follow;
}

void utrace_recorder_live_pid_readers(struct utrace_recorder *r, unsigned mask)
{
	size_t k = 0;

	for (unsigned i = 0; i < UTRACE_READERS; i++)
		if (!(mask >> i & 1))
			memset(&r->pid_lists[i], 0, sizeof(r->pid_lists[i]));
	/* what was logged of the readers left out is no one's now */
	for (size_t i = 0; i < r->npid_log; i++)
		if (mask >> r->pid_log[i].reader & 1)
			r->pid_log[k++] = r->pid_log[i];
	r->npid_log = k;
	r->pid_readers = mask | 1;
	pids_union(r, UTRACE_RECORDER_PIDS_EVENT);
	pids_union(r, UTRACE_RECORDER_PIDS_FTRACE);
}

size_t utrace_recorder_live_pid_changes(struct utrace_recorder *r,
					struct utrace_recorder_pid_change **out)
{
	size_t n = r->npid_log;

	*out = r->pid_log;
	r->pid_log = NULL;
	r->npid_log = r->cap_pid_log = 0;
	return n;
}

/* A change to reader's list which, logged once selections read them
 * (a change that cannot be logged is lost to the reader's selection:
 * the processes' lists have it). */
static void pid_log(struct utrace_recorder *r, unsigned reader, int which, int32_t tid, bool join)
{
	struct timespec ts;

	if (!r->pid_readers || UTRACE_GROW(r->pid_log, r->cap_pid_log, r->npid_log + 1) < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->pid_log[r->npid_log++] = (struct utrace_recorder_pid_change){
	    .ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
	    .tid = tid,
	    .reader = (uint8_t)reader,
	    .which = (uint8_t)which,
	    .join = join,
	};
}

/* The follow option of the lists which */
static unsigned follow_bit(int which)
{
	return which < UTRACE_RECORDER_PIDS_FTRACE ? UTRACE_RECORDER_FOLLOW_EVENT
						   : UTRACE_RECORDER_FOLLOW_FUNCTION;
}

/* pid added to reader L's list which if ptid is in it and pid is not, and
 * there is room. */
static bool pid_list_follow(struct rec_pid_lists *L, int which, int32_t ptid, int32_t pid)
{
	unsigned n = L->n[which];

	if (pid_in(L->l[which], n, pid) || !pid_in(L->l[which], n, ptid) || n == pid_max(which))
		return false;
	L->l[which][L->n[which]++] = pid;
	return true;
}

/* pid out of L's list which: the last entry moves into its place. */
static bool pid_list_drop(struct rec_pid_lists *L, int which, int32_t pid)
{
	unsigned n = L->n[which], i;

	for (i = 0; i < n && L->l[which][i] != pid; i++)
		;
	if (i == n)
		return false;
	L->l[which][i] = L->l[which][n - 1];
	L->n[which]--;
	return true;
}

/* Each reader's lists that follow forks changed for pid (a child of
 * ptid joins, or pid leaves), then the control page's of the kinds
 * changed. */
static void pids_follow(struct utrace_recorder *r, int32_t ptid, int32_t pid, bool join)
{
	unsigned mask = pid_readers(r);
	bool changed[2] = {false, false};

	for (unsigned k = 0; k < UTRACE_READERS; k++) {
		struct rec_pid_lists *L = &r->pid_lists[k];

		if (!(mask >> k & 1))
			continue;
		for (int w = 0; w <= UTRACE_RECORDER_PIDS_FTRACE_NOTRACE; w++) {
			if (!(L->follow & follow_bit(w)) ||
			    !(join ? pid_list_follow(L, w, ptid, pid) : pid_list_drop(L, w, pid)))
				continue;
			changed[w / 2] = true;
			pid_log(r, k, w, pid, join);
		}
	}
	if (changed[0])
		pids_union(r, UTRACE_RECORDER_PIDS_EVENT);
	if (changed[1])
		pids_union(r, UTRACE_RECORDER_PIDS_FTRACE);
}

void rec_live_pids_fork(struct utrace_recorder *r, int32_t ptid, int32_t pid)
{
	if (ptid && pid)
		pids_follow(r, ptid, pid, true);
}

void rec_live_pids_exit(struct utrace_recorder *r, int32_t pid)
{
	if (pid > 0)
		pids_follow(r, 0, pid, false);
}
