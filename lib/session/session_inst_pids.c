/* SPDX-License-Identifier: MIT */
/*
 * session_inst_pids.c - each reader's thread-id lists: set_event_pid,
 * set_event_notrace_pid, set_ftrace_pid, set_ftrace_notrace_pid and the
 * options event-fork and function-fork of the top level and of each
 * instance (instances/NAME), as the kernel's, whose every trace_array
 * has its own.
 *
 * The kernel's pid lists decide at the tracepoint whether a record goes
 * into that instance's buffer.  Here an instance is a selection of the
 * one set of per-thread records (session_inst.c), so the lists act
 * twice: the processes run one pair of each kind (the control page's),
 * which the recorder makes the union of the readers' (an event is written
 * while one reader wants that thread's: recorder_livepid.c), and each
 * reader leaves out, when it reads, the records its own lists did not
 * want when they were written.  For that each reader keeps the times
 * its set_event_pid (set_ftrace_pid) had ids, and each thread's times in
 * each of its lists: a write changes them now; a fork child that joins a
 * reader's list (its event-fork, function-fork), or a process that
 * leaves it at its exit, does so in the recorder before the child runs
 * (after the process ended), which logs the time; session_inst_sync
 * moves the windows to those times before any file is read or written.
 * An event record is wanted while its thread is in the ids (or there are
 * none) and not in the notrace ids; a kernel sched_switch also for either
 * task, a kernel wakeup for the woken task, as the kernel's pid filter
 * keeps them (lib/record/recorder_livekev.c does the same for the
 * processes' union).
 *
 * With the top level alone nothing of this runs: its lists are the
 * processes' (the recorder's reader 0).  Once an instance is made, the
 * top level's lists so far start its windows.  An instance that has no
 * reader's slot (more than UTRACE_READERS - 1 at once) wants every
 * thread, and writing its lists is ENOSPC.  Called with the tracefs's
 * lock held; the recorder's lists under rl->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/session/session_live_internal.h"

/* s's reader in the recorder: 0 the top level, -1 an instance without
 * a slot */
static int sel_reader(const struct session_sel *s)
{
	return s->top ? 0 : s->reader ? (int)s->reader : -1;
}

static struct session_tid_wins *tid_find(const struct session_sel *s, int which, int32_t tid)
{
	for (size_t i = 0; i < s->ntids; i++)
		if (s->tids[i].tid == tid && s->tids[i].which == which)
			return &s->tids[i];
	return NULL;
}

static struct session_tid_wins *tid_get(struct session_sel *s, int which, int32_t tid)
{
	struct session_tid_wins *t = tid_find(s, which, tid);

	if (t || UTRACE_GROW_ZERO(s->tids, s->cap_tids, s->ntids + 1) < 0)
		return t;
	t = &s->tids[s->ntids++];
	t->tid = tid;
	t->which = (uint8_t)which;
	return t;
}

static bool pid_in(const int32_t *list, unsigned n, int32_t tid)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == tid)
			return true;
	return false;
}

/* s's list which is tids (n of them) from now on. */
static int list_moved(struct session_sel *s, int which, const int32_t *tids, unsigned n)
{
	struct session_tid_wins *t;

	for (size_t i = 0; i < s->ntids; i++)
		if (s->tids[i].which == which && !pid_in(tids, n, s->tids[i].tid))
			session_wins_end(&s->tids[i].w);
	for (unsigned i = 0; i < n; i++)
		if (!(t = tid_get(s, which, tids[i])) || session_wins_start(&t->w) < 0)
			return -ENOMEM;
	if (which % 2) /* a notrace list */
		return 0;
	if (!n) {
		session_wins_end(&s->listed[which / 2]);
		return 0;
	}
	return session_wins_start(&s->listed[which / 2]);
}

/* The forks' and exits' changes (the recorder's log, nch of them) moved
 * to the readers' windows at their times. */
static void changes_apply(struct session_live *rl, const struct utrace_recorder_pid_change *ch,
			  size_t nch)
{
	for (size_t i = 0; i < nch; i++) {
		struct session_sel *s =
		    ch[i].reader ? session_reader_sel(rl, ch[i].reader) : &rl->top;
		struct session_tid_wins *t = s ? tid_get(s, ch[i].which, ch[i].tid) : NULL;

		if (!t)
			continue;
		if (ch[i].join)
			session_wins_start_at(&t->w, ch[i].ns);
		else
			session_wins_end_at(&t->w, ch[i].ns);
	}
}

void session_pids_sync(struct session_live *rl)
{
	struct utrace_recorder_pid_change *ch;
	size_t n;

	live_lock(rl);
	n = utrace_recorder_live_pid_changes(rl->r, &ch);
	pthread_mutex_unlock(&rl->lock);
	changes_apply(rl, ch, n);
	free(ch);
}

/* A reader's lists of one kind (first: UTRACE_RECORDER_PIDS_EVENT or
 * _FTRACE): the recorder's, and its windows once the readers select. */
static int sel_pids(struct session_sel *s, int first, const int32_t *tids, unsigned n,
		    const int32_t *notrace, unsigned nn)
{
	struct session_live *rl = s->rl;
	int reader = sel_reader(s), ret;

	if (reader < 0)
		return -ENOSPC;
	if (rl->sel_used)
		session_pids_sync(rl); /* the forks' so far, before this write */
	live_lock(rl);
	if (first == UTRACE_RECORDER_PIDS_EVENT)
		ret =
		    utrace_recorder_live_event_pids(rl->r, (unsigned)reader, tids, n, notrace, nn);
	else
		ret =
		    utrace_recorder_live_ftrace_pids(rl->r, (unsigned)reader, tids, n, notrace, nn);
	pthread_mutex_unlock(&rl->lock);
	if (ret < 0 || !rl->sel_used)
		return ret;
	if ((ret = list_moved(s, first, tids, n)) < 0)
		return ret;
	return list_moved(s, first + 1, notrace, nn);
}

int session_sel_event_pids(void *arg, const int32_t *tids, unsigned n, const int32_t *notrace,
			   unsigned nn)
{
	return sel_pids(arg, UTRACE_RECORDER_PIDS_EVENT, tids, n, notrace, nn);
}

int session_sel_ftrace_pids(void *arg, const int32_t *tids, unsigned n, const int32_t *notrace,
			    unsigned nn)
{
	return sel_pids(arg, UTRACE_RECORDER_PIDS_FTRACE, tids, n, notrace, nn);
}

static const int recorder_which[] = {
    [UTRACE_LIVE_PIDS_EVENT] = UTRACE_RECORDER_PIDS_EVENT,
    [UTRACE_LIVE_PIDS_EVENT_NOTRACE] = UTRACE_RECORDER_PIDS_EVENT_NOTRACE,
    [UTRACE_LIVE_PIDS_FTRACE] = UTRACE_RECORDER_PIDS_FTRACE,
    [UTRACE_LIVE_PIDS_FTRACE_NOTRACE] = UTRACE_RECORDER_PIDS_FTRACE_NOTRACE,
};

unsigned session_sel_pids_get(void *arg, enum utrace_live_pids which, int32_t *tids)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int reader = sel_reader(s);
	unsigned n;

	if (reader < 0)
		return 0;
	live_lock(rl);
	n = utrace_recorder_live_pids_get(rl->r, (unsigned)reader, recorder_which[which], tids);
	pthread_mutex_unlock(&rl->lock);
	return n;
}

void session_sel_follow_fork(void *arg, unsigned follow)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int reader = sel_reader(s);

	if (reader < 0)
		return;
	live_lock(rl);
	utrace_recorder_live_follow_fork(
	    rl->r, (unsigned)reader,
	    (follow & UTRACE_LIVE_FOLLOW_EVENT ? UTRACE_RECORDER_FOLLOW_EVENT : 0) |
		(follow & UTRACE_LIVE_FOLLOW_FUNCTION ? UTRACE_RECORDER_FOLLOW_FUNCTION : 0));
	pthread_mutex_unlock(&rl->lock);
}

/* rl->ksched: the kernel's sched events, the offsets of their tasks' ids */
static void ksched_find(struct session_live *rl)
{
	static const char *const names[4][3] = {{"sched_switch", "prev_pid", "next_pid"},
						{"sched_waking", "pid", NULL},
						{"sched_wakeup", "pid", NULL},
						{"sched_wakeup_new", "pid", NULL}};

	rl->ksched_known = true;
	for (int i = 0; i < 4; i++) {
		struct session_ksched *k = &rl->ksched[i];
		const struct utrace_event_format *f;
		const struct utrace_event_field *fd;

		live_lock(rl);
		k->kid = utrace_recorder_live_kid(rl->r, "sched", names[i][0]);
		pthread_mutex_unlock(&rl->lock);
		f = k->kid >= 0 ? utrace_live_format(rl->fs, "sched", names[i][0]) : NULL;
		k->noff = 0;
		for (int j = 1; j < 3 && f && names[i][j]; j++)
			if ((fd = utrace_event_field_find(f, names[i][j])) && fd->size == 4 &&
			    fd->offset >= 8)
				k->off[k->noff++] = fd->offset;
	}
}

void session_pids_readers(struct session_live *rl, bool first)
{
	unsigned mask = 1;
	int32_t tids[UTRACE_RECORDER_PIDS_MAX];

	if (!rl->ksched_known)
		ksched_find(rl);
	for (size_t i = 0; i < rl->ninsts; i++)
		mask |= rl->insts[i]->reader ? 1u << rl->insts[i]->reader : 1u << UTRACE_READERS;
	live_lock(rl);
	utrace_recorder_live_pid_readers(rl->r, mask);
	pthread_mutex_unlock(&rl->lock);
	/* the top level's lists so far: the processes applied them */
	for (int w = 0; first && w <= UTRACE_RECORDER_PIDS_FTRACE_NOTRACE; w++) {
		unsigned n;

		live_lock(rl);
		n = utrace_recorder_live_pids_get(rl->r, 0, w, tids);
		pthread_mutex_unlock(&rl->lock);
		list_moved(&rl->top, w, tids, n);
	}
}

static bool tid_in(const struct session_sel *s, int which, int32_t tid, uint64_t ts)
{
	const struct session_tid_wins *t = tid_find(s, which, tid);

	return t && session_wins_has(&t->w, ts);
}

/* Whether s's lists from first on wanted tid's records at ts. */
static bool wanted(const struct session_sel *s, int first, int32_t tid, uint64_t ts)
{
	if (session_wins_has(&s->listed[first / 2], ts) && !tid_in(s, first, tid, ts))
		return false;
	return !tid_in(s, first + 1, tid, ts);
}

bool session_sel_pids_keep(const struct session_sel *s, const struct utrace_event *ev, bool call)
{
	int first = call ? UTRACE_RECORDER_PIDS_FTRACE : UTRACE_RECORDER_PIDS_EVENT;
	const struct session_live *rl = s->rl;

	if (!s->ntids && !s->listed[first / 2].n)
		return true; /* it never had a list */
	if (wanted(s, first, ev->tid, ev->ts))
		return true;
	if (call)
		return false;
	for (int i = 0; rl->ksched_known && i < 4; i++) {
		const struct session_ksched *k = &rl->ksched[i];

		if (k->kid < 0 || (uint32_t)k->kid != ev->id)
			continue;
		for (unsigned j = 0; j < k->noff; j++) {
			int32_t other;

			if (k->off[j] - 8 + 4 > ev->data_len)
				continue;
			memcpy(&other, (const uint8_t *)ev->data + k->off[j] - 8, 4);
			if (wanted(s, first, other, ev->ts))
				return true;
		}
	}
	return false;
}

void session_sel_pids_free(struct session_sel *s)
{
	for (size_t i = 0; i < s->ntids; i++)
		free(s->tids[i].w.t);
	free(s->tids);
	free(s->listed[0].t);
	free(s->listed[1].t);
}
