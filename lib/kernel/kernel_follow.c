/* SPDX-License-Identifier: MIT */
/*
 * kernel_follow.c - which tasks the instance records when it is scoped to
 * the command (lib/kernel/kernel_internal.h).
 *
 * Why the kernel follows, not the recorder: a thread that starts and ends
 * between two reads of /proc/PID/task was never put in set_event_pid, so
 * its events were lost (2 of 14 short threads' writes).  The kernel adds
 * each new task of a task in set_event_pid to the list itself, before the
 * task runs, when options/event-fork is set (function-fork does the same
 * for set_ftrace_pid); so both are set whenever the instance is scoped.
 *
 * The kernel cannot tell a thread from a process there: event-fork also
 * follows the processes the command forks, which only -c (--children)
 * asks for.  Without -c, the records of those processes are taken out as
 * each page is read.  Whose a task is comes from the kernel too: the
 * instance also records task:task_newtask (hidden unless -e asked for
 * it), which the parent writes before its new task runs, with the clone
 * flags: CLONE_THREAD makes a thread of the parent's process, else a
 * process of its own (which goes into set_event_notrace_pid at once, so
 * the kernel stops recording it and what it forks).  A task still alive
 * is also known from /proc/TID/status.  A record of another process
 * becomes a discarded event, the kernel's own encoding (type PADDING,
 * its length and time delta kept), which every reader of the format
 * skips.  The sched_switch/sched_wakeup* records the kernel keeps for
 * either of their two tasks stay when the other task (next_pid, pid) is
 * the command's; a kernel_stack entry goes with its event.
 *
 * The task_newtask record of a task may lie on another CPU's page than
 * its first records, read later: a page with a record of a task not
 * known yet is held (with the pages of its CPU after it) until a whole
 * round of reads of every CPU has passed after it (or tracing stops);
 * a task still not known then was not made by a followed task while the
 * instance traced, so it is not the command's (a two-task sched record of
 * an unrelated task).
 *
 * What still cannot be followed is said (utrace_ktrace_follow_note): on a
 * kernel without options/event-fork, threads are added from /proc as
 * they are seen (the old way; a thread that ends first is not recorded);
 * records of tasks whose task_newtask record was lost with a full buffer
 * are dropped as not the command's, and counted.
 *
 * Which tasks are the recording's (utrace_ktrace_follows, for the wakeup
 * tracers, which must wait only for a task whose switch in the instance
 * keeps): without -c, the command's as above; with -c, the instance
 * records task:task_newtask too (hidden, its records discarded as the
 * pages are read, all else kept), so that a task made by a followed one,
 * thread or process, is known as the recording's, as the kernel's
 * event-fork added it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/kernel/kernel_internal.h"
#include "lib/kernel/kernel_tracefs.h"

#define KT_TYPE_PADDING 29 /* ring buffer: a discarded event when its delta is set */
#define KT_CLONE_THREAD 0x00010000ull
#define KT_CHAIN_MAX 64 /* creators followed up to the command */

/* Adds the threads of kt->pid that set_event_pid does not name yet. */
void kt_add_threads(struct utrace_ktrace *kt)
{
	char path[PATH_MAX], num[16];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", kt->pid);
	if (stat(path, &st) < 0 || st.st_nlink == kt->task_nlink)
		return;
	kt->task_nlink = st.st_nlink;
	d = opendir(path);
	while (d && (de = readdir(d))) {
		int tid = atoi(de->d_name);
		size_t i;

		for (i = 0; i < kt->nr_tids && kt->tids[i] != tid; i++)
			;
		if (tid <= 0 || i < kt->nr_tids)
			continue;
		if (UTRACE_GROW(kt->tids, kt->cap_tids, kt->nr_tids + 1) < 0)
			break;
		kt->tids[kt->nr_tids++] = tid;
		snprintf(num, sizeof(num), "%d", tid);
		/* without O_TRUNC a write adds to the list */
		utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "set_event_pid"), num,
				     O_APPEND);
	}
	if (d)
		closedir(d);
}

/* The offset of the other task's pid in the records of the events whose
 * pid filter the kernel passes for either of two tasks; -1 for others. */
static int kt_other_pid_offset(const struct kt_event *e)
{
	const char *field, *p;

	if (strcmp(e->system, "sched"))
		return -1;
	if (!strcmp(e->name, "sched_switch"))
		field = "\tfield:pid_t next_pid;\toffset:";
	else if (!strcmp(e->name, "sched_wakeup") || !strcmp(e->name, "sched_wakeup_new") ||
		 !strcmp(e->name, "sched_waking"))
		field = "\tfield:pid_t pid;\toffset:";
	else
		return -1;
	p = strstr(e->format, field);
	return p ? atoi(p + strlen(field)) : -1;
}

/* task_newtask's pid and clone_flags offsets, enabled (hidden unless an
 * -e selected it); false if the kernel has no such event. */
static bool kt_newtask(struct utrace_ktrace *kt)
{
	const char *pid = "\tfield:pid_t pid;\toffset:", *fl = "\tfield:u64 clone_flags;\toffset:";
	struct kt_event *e = NULL;
	const char *p, *q;

	for (size_t i = 0; i < kt->nr_evs && !e; i++)
		if (!strcmp(kt->evs[i].system, "task") && !strcmp(kt->evs[i].name, "task_newtask"))
			e = &kt->evs[i];
	if (!e) {
		if (kt_add_event(kt, "task", "task_newtask", NULL, false, NULL) <= 0)
			return false;
		e = &kt->evs[kt->nr_evs - 1];
		e->hidden = true;
	}
	p = strstr(e->format, pid);
	q = strstr(e->format, fl);
	if (!p || !q)
		return false;
	kt->newtask_id = e->id;
	kt->newtask_hidden = e->hidden;
	kt->newtask_pid_off = atoi(p + strlen(pid));
	kt->newtask_flags_off = atoi(q + strlen(fl));
	return true;
}

/* The kernel follows the command's new tasks (before tracing is on). */
int kt_follow_start(struct utrace_ktrace *kt, struct utrace_error *err)
{
	char path[PATH_MAX];
	int ret;

	for (size_t i = 0; i < kt->nr_evs; i++)
		kt->evs[i].other_pid_off = kt_other_pid_offset(&kt->evs[i]);
	if (access(utrace_tracefs_path(path, kt->dir, "options/event-fork"), W_OK)) {
		kt->no_event_fork = true; /* threads from /proc, as they are seen */
		return 0;
	}
	if ((ret = kt_set(kt, "options/event-fork", "1", err)) < 0)
		return ret;
	if (!access(utrace_tracefs_path(path, kt->dir, "options/function-fork"), W_OK))
		kt_set(kt, "options/function-fork", "1", NULL);
	if (!kt->children) {
		kt->filtering = kt_newtask(kt);
		if (!kt->filtering)
			kt->no_newtask = true; /* children's records are kept */
		kt->notrace_ok = !access(
		    utrace_tracefs_path(path, kt->dir, "set_event_notrace_pid"), W_OK);
	} else {
		kt->lineage = kt_newtask(kt); /* who made whom: utrace_ktrace_follows */
	}
	return 0;
}

/* Whether pid was put in set_event_pid (the command, its threads at the
 * start). */
static bool kt_listed(const struct utrace_ktrace *kt, int pid)
{
	for (size_t i = 0; i < kt->nr_tids; i++)
		if (kt->tids[i] == pid)
			return true;
	return false;
}

/* Whether task i is of the command: KT_OWN_*; KT_OWN_UNKNOWN if no
 * task_newtask record or /proc has told yet. */
static uint8_t kt_own(struct utrace_ktrace *kt, size_t i)
{
	size_t j = i;
	uint8_t own = KT_OWN_UNKNOWN;

	for (int n = 0; n < KT_CHAIN_MAX && own == KT_OWN_UNKNOWN; n++) {
		const struct kt_task_state *s = &kt->tstate[j];

		if (s->own != KT_OWN_UNSET && s->own != KT_OWN_UNKNOWN)
			own = s->own;
		else if (kt_listed(kt, kt->tasks[j].pid))
			own = KT_OWN_YES;
		else if (s->proc)
			own = kt->tasks[j].tgid == kt->pid ? KT_OWN_YES : KT_OWN_NO;
		else if (!s->made)
			break;
		else if (!s->thread)
			own = KT_OWN_NO;
		else
			j = s->creator;
	}
	if (own != KT_OWN_UNKNOWN)
		kt->tstate[i].own = own;
	return own;
}

/* A task_newtask record: what the new task is. */
static void kt_learn(struct utrace_ktrace *kt, size_t creator, const uint8_t *rec, size_t size)
{
	int32_t pid;
	uint64_t flags;
	ssize_t t;

	if ((size_t)kt->newtask_flags_off + 8 > size || (size_t)kt->newtask_pid_off + 4 > size)
		return;
	memcpy(&pid, rec + kt->newtask_pid_off, 4);
	memcpy(&flags, rec + kt->newtask_flags_off, 8);
	t = kt_note_task(kt, pid);
	if (t < 0)
		return;
	kt->tstate[t].made = 1;
	kt->tstate[t].thread = !!(flags & KT_CLONE_THREAD);
	kt->tstate[t].creator = (uint32_t)creator;
	if (!kt->tstate[t].thread && kt->notrace_ok) {
		char path[PATH_MAX], num[16];

		snprintf(num, sizeof(num), "%d", pid);
		utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "set_event_notrace_pid"),
				     num, O_APPEND);
	}
}

static const struct kt_event *kt_event_of(const struct utrace_ktrace *kt, const uint8_t *rec)
{
	uint16_t id;

	memcpy(&id, rec, 2);
	for (size_t k = 0; k < kt->nr_evs; k++)
		if (kt->evs[k].id == id)
			return &kt->evs[k];
	return NULL;
}

/* Whether the record rec (size bytes) of task i stays: KT_OWN_YES keep,
 * KT_OWN_NO drop, KT_OWN_UNKNOWN not known yet. */
static uint8_t kt_keep(struct utrace_ktrace *kt, size_t i, const uint8_t *rec, size_t size)
{
	const struct kt_event *e = kt_event_of(kt, rec);
	uint8_t own, other_own;
	int32_t other;
	ssize_t o;

	if (e && e->hidden)
		return KT_OWN_NO;
	if (!kt->filtering) /* -c: every record the kernel kept stays */
		return KT_OWN_YES;
	own = kt_own(kt, i);
	if (own == KT_OWN_YES || !e || e->other_pid_off < 0 ||
	    (size_t)e->other_pid_off + 4 > size)
		return own;
	memcpy(&other, rec + e->other_pid_off, 4);
	o = kt_note_task(kt, other);
	other_own = o < 0 ? KT_OWN_NO : kt_own(kt, (size_t)o);
	if (other_own == KT_OWN_YES)
		return KT_OWN_YES;
	return own == KT_OWN_UNKNOWN || other_own == KT_OWN_UNKNOWN ? KT_OWN_UNKNOWN : KT_OWN_NO;
}

/* Rewrites the current record of kt->kb (on page) as a discarded event. */
static void kt_discard(struct utrace_ktrace *kt, uint8_t *page)
{
	uint8_t *h = page + kbuffer_curr_offset(kt->kb);
	uint32_t w, len = (uint32_t)kbuffer_curr_size(kt->kb) - 4;

	memcpy(&w, h, 4);
	w = (w & ~0x1fu) | KT_TYPE_PADDING;
	memcpy(h, &w, 4);
	memcpy(h + 4, &len, 4);
}

/* The whole system's page: its hidden records discarded (every other
 * record is kept). */
static void kt_discard_hidden(struct utrace_ktrace *kt, uint8_t *page, size_t size)
{
	void *rec;

	kbuffer_load_subbuffer(kt->kb, page);
	for (rec = kbuffer_read_event(kt->kb, NULL); rec; rec = kbuffer_next_event(kt->kb, NULL)) {
		const struct kt_event *e;

		if (kbuffer_event_size(kt->kb) < 8 ||
		    (uint8_t *)rec + kbuffer_event_size(kt->kb) > page + size)
			break;
		if ((e = kt_event_of(kt, rec)) && e->hidden)
			kt_discard(kt, page);
	}
}

/* Decides every record of page: false (page untouched) if one cannot be
 * decided yet; force: a task not known now is not the command's. */
static bool kt_decide(struct utrace_ktrace *kt, uint8_t *page, size_t size, bool force)
{
	uint8_t last = KT_OWN_YES;

	for (int pass = 0; pass < 2; pass++) {
		void *rec;

		kbuffer_load_subbuffer(kt->kb, page);
		for (rec = kbuffer_read_event(kt->kb, NULL); rec;
		     rec = kbuffer_next_event(kt->kb, NULL)) {
			size_t n = (size_t)kbuffer_event_size(kt->kb);
			const struct kt_event *e;
			int32_t pid;
			ssize_t t;

			if (n < 8 || (uint8_t *)rec + n > page + size)
				break;
			memcpy(&pid, (uint8_t *)rec + 4, 4);
			e = kt_event_of(kt, rec);
			t = kt_note_task(kt, pid);
			if (!(e && e->format_only)) /* a kernel_stack goes with its event */
				last = t < 0 ? KT_OWN_YES : kt_keep(kt, (size_t)t, rec, n);
			if (last == KT_OWN_UNKNOWN && !force)
				return false;
			if (pass && last != KT_OWN_YES) {
				kt->dropped++;
				/* a task of the kernel's pid list not known: its start was lost */
				kt->dropped_unknown += last == KT_OWN_UNKNOWN && e && !e->hidden &&
						       !e->format_only && e->other_pid_off < 0;
				kt_discard(kt, page);
			}
		}
	}
	return true;
}

/* Hands the held pages of c over, oldest first, as far as they can be
 * decided (all of them: force). */
static int kt_release(struct utrace_ktrace *kt, struct kt_cpu *c, bool force,
		      utrace_ktrace_page_fn fn, void *arg, struct utrace_error *err)
{
	size_t n = 0;
	int ret = 0;

	for (; n < c->nr_held && ret >= 0; n++) {
		struct kt_held *h = &c->held[n];
		bool late = force || (kt->round >= h->round + 2 && !kt->backlog);

		if (!kt_decide(kt, h->page, h->size, late))
			break;
		ret = fn(arg, c->cpu, h->page, h->size, err);
		free(h->page);
	}
	if (c->nr_held > n) /* (none held yet: held is NULL, no memmove of it) */
		memmove(c->held, c->held + n, (c->nr_held - n) * sizeof(*c->held));
	c->nr_held -= n;
	return ret;
}

/* A page read from c: its task_newtask records learnt, then handed over
 * or held (kt->page is reused for the next read). */
int kt_follow_page(struct utrace_ktrace *kt, struct kt_cpu *c, size_t size,
		   utrace_ktrace_page_fn fn, void *arg, struct utrace_error *err)
{
	void *rec;

	if (!kt->filtering && !kt->lineage) {
		if (kt->exec_hidden)
			kt_discard_hidden(kt, kt->page, size);
		return fn(arg, c->cpu, kt->page, size, err);
	}
	kbuffer_load_subbuffer(kt->kb, kt->page);
	for (rec = kbuffer_read_event(kt->kb, NULL); rec; rec = kbuffer_next_event(kt->kb, NULL)) {
		size_t n = (size_t)kbuffer_event_size(kt->kb);
		int32_t pid;
		uint16_t id;
		ssize_t t;

		if (n < 8 || (uint8_t *)rec + n > kt->page + size)
			break;
		memcpy(&id, rec, 2);
		memcpy(&pid, (uint8_t *)rec + 4, 4);
		if (id == kt->newtask_id && (t = kt_note_task(kt, pid)) >= 0)
			kt_learn(kt, (size_t)t, rec, n);
	}
	if (!c->nr_held && kt_decide(kt, kt->page, size, false))
		return fn(arg, c->cpu, kt->page, size, err);
	if (UTRACE_GROW(c->held, c->cap_held, c->nr_held + 1) < 0 ||
	    !(c->held[c->nr_held].page = malloc(size)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memcpy(c->held[c->nr_held].page, kt->page, size);
	c->held[c->nr_held].size = size;
	c->held[c->nr_held++].round = kt->round;
	return 0;
}

/* A round of reads begins (force: tracing has stopped, every page is
 * read): the held pages that can be decided go. */
int kt_follow_round(struct utrace_ktrace *kt, bool force, utrace_ktrace_page_fn fn, void *arg,
		    struct utrace_error *err)
{
	int ret = 0;

	kt->round++;
	if (kt->pid && kt->no_event_fork)
		kt_add_threads(kt);
	for (size_t i = 0; i < kt->nr_cpus && ret >= 0; i++)
		ret = kt_release(kt, &kt->cpus[i], force, fn, arg, err);
	return ret;
}

void kt_follow_free(struct utrace_ktrace *kt)
{
	for (size_t i = 0; i < kt->nr_cpus; i++) {
		for (size_t n = 0; n < kt->cpus[i].nr_held; n++)
			free(kt->cpus[i].held[n].page);
		free(kt->cpus[i].held);
	}
}

/* -c: task i is the command's or was made by one of its tasks (or by
 * one of theirs), whether thread or process. */
static bool kt_descends(const struct utrace_ktrace *kt, size_t i)
{
	for (int n = 0; n < KT_CHAIN_MAX; n++) {
		const struct kt_task_state *s = &kt->tstate[i];

		if (kt_listed(kt, kt->tasks[i].pid))
			return true;
		if (!s->made)
			return s->proc && kt->tasks[i].tgid == kt->pid;
		i = s->creator;
	}
	return false;
}

bool utrace_ktrace_follows(struct utrace_ktrace *kt, int pid)
{
	ssize_t i;

	if (!kt->pid || (!kt->filtering && !kt->lineage))
		return true; /* the whole system, or no task_newtask to tell */
	if (kt_listed(kt, pid))
		return true;
	if ((i = kt_find_task(kt, pid)) < 0)
		return false; /* no record named it: not made by a followed task */
	if (kt->lineage)
		return kt_descends(kt, (size_t)i);
	return kt_own(kt, (size_t)i) == KT_OWN_YES;
}

const char *utrace_ktrace_follow_note(struct utrace_ktrace *kt)
{
	if (kt->no_event_fork && kt->pid)
		snprintf(kt->note, sizeof(kt->note),
			 "kernel events: the kernel has no options/event-fork: threads were "
			 "added as they were seen in /proc, those that ended first are missing");
	else if (kt->no_newtask && kt->pid)
		snprintf(kt->note, sizeof(kt->note),
			 "kernel events: the kernel has no task:task_newtask event: the records "
			 "of the processes the command started are kept (as with -c)");
	else if (kt->dropped_unknown)
		snprintf(kt->note, sizeof(kt->note),
			 "kernel events: %llu records of tasks whose start was not seen (lost "
			 "with a full buffer) were left out as not the command's",
			 (unsigned long long)kt->dropped_unknown);
	else
		return NULL;
	return kt->note;
}
