/* SPDX-License-Identifier: MIT */
/*
 * kernel_tasks.c - the tables of an instance that kernel_trace.c and
 * kernel_follow.c both fill (lib/kernel/kernel_internal.h): its settings
 * written, its events enabled, and the tasks its records name.
 *
 * Design: the lowest file of lib/kernel's instance code, so the files
 * above it call each other one way; each task is named (comm, tgid) from
 * /proc when its first record is read, while it may still run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/kernel/kernel_internal.h"
#include "lib/kernel/kernel_saved.h"
#include "lib/kernel/kernel_tracefs.h"

static int kt_fail(const struct utrace_ktrace *kt, struct utrace_error *err, int code,
		   const char *file)
{
	return utrace_error_set(err, code, "%s/%s: %s", kt->dir, file, strerror(-code));
}

int kt_set(struct utrace_ktrace *kt, const char *file, const char *value,
	   struct utrace_error *err)
{
	char path[PATH_MAX];
	int ret =
	    utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "%s", file), value, O_TRUNC);

	return ret < 0 ? kt_fail(kt, err, ret, file) : 0;
}

int kt_add_event(struct utrace_ktrace *kt, const char *sys, const char *name, const char *filter,
		 bool later, struct utrace_error *err)
{
	char path[PATH_MAX], *fmt, *id;
	struct kt_event *e;
	int ret;

	for (size_t i = 0; i < kt->nr_evs; i++)
		if (!strcmp(kt->evs[i].system, sys) && !strcmp(kt->evs[i].name, name))
			return 0; /* the first -e that names it decides */
	if (access(utrace_tracefs_path(path, kt->dir, "events/%s/%s/enable", sys, name), W_OK))
		return 0; /* ftrace's own (function, ...) cannot be enabled */
	fmt = utrace_tracefs_read(
	    utrace_tracefs_path(path, kt->dir, "events/%s/%s/format", sys, name));
	if (!fmt)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	id = strstr(fmt, "\nID: ");
	if (!id) {
		free(fmt);
		return utrace_error_set(err, -EINVAL, "%s: no ID line", path);
	}
	if (UTRACE_GROW(kt->evs, kt->cap_evs, kt->nr_evs + 1) < 0) {
		free(fmt);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	e = &kt->evs[kt->nr_evs];
	e->id = atoi(id + 5);
	e->format_only = false;
	e->other_pid_off = -1;
	e->hidden = false;
	e->deferred = later && !kt->started;
	e->format = fmt;
	e->system = strdup(sys);
	e->name = strdup(name);
	kt->nr_evs++;
	if (!e->system || !e->name)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (filter) {
		utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "error_log"), "",
				     O_TRUNC); /* O_TRUNC clears it */
		ret = utrace_tracefs_write(
		    utrace_tracefs_path(path, kt->dir, "events/%s/%s/filter", sys, name), filter,
		    O_TRUNC);
		if (ret < 0)
			return utrace_tracefs_error_log(kt->dir, e->system, e->name, ret, err);
	}
	return e->deferred ? 1 : kt_enable_event(kt, e, err);
}

int kt_enable_event(struct utrace_ktrace *kt, struct kt_event *e, struct utrace_error *err)
{
	char path[PATH_MAX];
	int ret = utrace_tracefs_write(
	    utrace_tracefs_path(path, kt->dir, "events/%s/%s/enable", e->system, e->name), "1",
	    O_TRUNC);

	e->deferred = false;
	if (ret < 0)
		return utrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	return 1;
}

/* comm and tgid from /proc; false if the task has exited. */
static bool kt_task_info(struct utrace_dat_ktask *t)
{
	char path[64], *s;
	bool found;

	t->tgid = t->pid;
	if (!t->pid) {
		strcpy(t->comm, "<idle>");
		return true;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", t->pid);
	s = utrace_tracefs_read(path);
	if (s) {
		s[strcspn(s, "\n")] = 0;
		snprintf(t->comm, sizeof(t->comm), "%s", s);
		free(s);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", t->pid);
	s = utrace_tracefs_read(path);
	found = s && strstr(s, "\nTgid:");
	if (found)
		t->tgid = atoi(strstr(s, "\nTgid:") + 6);
	free(s);
	return found;
}

/* The kernel's saved cmdlines take a task's comm again at each switch, so
 * its trace names it as it is now: a task noted before its exec (the
 * forked shell that then runs kmarker, seen waking a task) kept the
 * shell's name for good. */
void kt_task_rename(struct utrace_ktrace *kt, size_t i)
{
	struct utrace_dat_ktask t = {.pid = kt->tasks[i].pid};

	if (kt_task_info(&t) && t.comm[0])
		kt->tasks[i] = t;
}

/*
 * An exec renames the task, as the kernel's saved cmdlines take its new
 * comm at its next switch, so that the kernel's trace names every record
 * of the pid, those before the exec too, as it is called after: the
 * instance records sched:sched_process_exec (hidden unless an -e asked
 * for it: its records discarded as the pages are read, its format not
 * written), whose filename's last part is the comm the exec gave it (the
 * kernel's kbasename, 15 bytes).  Without it, a task first read while it
 * was still the forked shell, before its exec, kept the shell's name.
 */
void kt_exec_start(struct utrace_ktrace *kt)
{
	const char *file = "\tfield:__data_loc char[] filename;\toffset:";
	struct kt_event *e = NULL;
	const char *p;

	for (size_t i = 0; i < kt->nr_evs && !e; i++)
		if (!strcmp(kt->evs[i].system, "sched") &&
		    !strcmp(kt->evs[i].name, "sched_process_exec"))
			e = &kt->evs[i];
	if (!e) {
		if (kt_add_event(kt, "sched", "sched_process_exec", NULL, false, NULL) <= 0)
			return; /* no such event: a task keeps its first name */
		e = &kt->evs[kt->nr_evs - 1];
		e->hidden = true;
	}
	if (!(p = strstr(e->format, file)))
		return;
	kt->exec_id = e->id;
	kt->exec_hidden = e->hidden;
	kt->exec_file_off = atoi(p + strlen(file));
}

void kt_exec_rename(struct utrace_ktrace *kt, const uint8_t *rec, size_t n, int32_t pid)
{
	uint32_t loc, off, len;
	const char *name, *base;
	ssize_t i;

	if (kt->exec_file_off < 8 || (size_t)kt->exec_file_off + 4 > n)
		return;
	memcpy(&loc, rec + kt->exec_file_off, 4);
	off = loc & 0xffff; /* __data_loc: offset in the low half, length high */
	len = loc >> 16;
	if (!len || off + len > n || (i = kt_note_task(kt, pid)) < 0)
		return;
	name = (const char *)rec + off;
	len = (uint32_t)strnlen(name, len);
	base = memrchr(name, '/', len);
	base = base ? base + 1 : name;
	if (base < name + len)
		snprintf(kt->tasks[i].comm, sizeof(kt->tasks[i].comm), "%.*s",
			 (int)(name + len - base), base);
}

/* Each task in kt that wants it given its text in the kernel's file NAME
 * (saved_cmdlines, saved_tgids: kernel_saved.c) to set. */
static void kt_saved(struct utrace_ktrace *kt, const char *name, bool all,
		     void (*set)(struct utrace_dat_ktask *t, const char *text))
{
	struct utrace_ksaved saved = {0};

	if (utrace_ksaved_read(&saved, name) < 0)
		return;
	for (size_t i = 0; i < kt->nr_tasks; i++) {
		const char *text;

		if (kt->tasks[i].pid && !kt->tasks[i].comm[0] && (all || !kt->tstate[i].cmdline) &&
		    (text = utrace_ksaved_find(&saved, kt->tasks[i].pid)))
			set(&kt->tasks[i], text);
	}
	utrace_ksaved_free(&saved);
}

static void set_comm(struct utrace_dat_ktask *t, const char *text)
{
	snprintf(t->comm, sizeof(t->comm), "%s", text);
}

static void set_tgid(struct utrace_dat_ktask *t, const char *text)
{
	t->tgid = atoi(text);
}

/*
 * The tasks that had exited when their first record was read (no comm in
 * /proc: a short command, `ls`, read after it ended) named as the
 * kernel's trace names them: their tgid and comm from its saved_tgids and
 * saved_cmdlines, what it saved for the pid at the task's switches.  Both
 * read once for all such tasks; each task looked for once (a task never
 * saved stays unnamed: "<...>"), all of them again if all (the end).
 */
void kt_name_exited(struct utrace_ktrace *kt, bool all)
{
	bool any = false;

	for (size_t i = 0; i < kt->nr_tasks && !any; i++)
		any = kt->tasks[i].pid && !kt->tasks[i].comm[0] && (all || !kt->tstate[i].cmdline);
	if (!any || !utrace_tracefs_root())
		return;
	kt_saved(kt, "saved_tgids", all, set_tgid); /* (before the comm says it is named) */
	kt_saved(kt, "saved_cmdlines", all, set_comm);
	for (size_t i = 0; i < kt->nr_tasks; i++)
		kt->tstate[i].cmdline = 1;
}

static size_t kt_hash(int pid, size_t size)
{
	return ((uint32_t)pid * 2654435761u) & (size - 1);
}

ssize_t kt_find_task(const struct utrace_ktrace *kt, int pid)
{
	if (!kt->hash_size)
		return -1;
	for (size_t s = kt_hash(pid, kt->hash_size); kt->task_hash[s];
	     s = (s + 1) & (kt->hash_size - 1))
		if (kt->tasks[kt->task_hash[s] - 1].pid == pid)
			return kt->task_hash[s] - 1;
	return -1;
}

/* The index of task pid in kt->tasks, added if new; -1 if out of memory. */
ssize_t kt_note_task(struct utrace_ktrace *kt, int pid)
{
	struct utrace_dat_ktask *t;
	struct kt_task_state *st;
	ssize_t found = kt_find_task(kt, pid);
	size_t s;

	if (found >= 0)
		return found;
	if (kt->nr_tasks + 1 > kt->cap_tasks) {
		size_t cap = kt->cap_tasks ? kt->cap_tasks * 2 : 64;
		uint32_t *h = calloc(cap * 2, sizeof(*h));

		t = realloc(kt->tasks, cap * sizeof(*t));
		if (t)
			kt->tasks = t;
		st = realloc(kt->tstate, cap * sizeof(*st));
		if (st)
			kt->tstate = st;
		if (!h || !t || !st) {
			free(h);
			return -1; /* unnamed: the reader says <...> */
		}
		kt->cap_tasks = cap;
		free(kt->task_hash);
		kt->task_hash = h;
		kt->hash_size = cap * 2;
		for (size_t i = 0; i < kt->nr_tasks; i++) {
			for (s = kt_hash(kt->tasks[i].pid, cap * 2); h[s];
			     s = (s + 1) & (cap * 2 - 1))
				;
			h[s] = (uint32_t)i + 1;
		}
	}
	t = &kt->tasks[kt->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	memset(&kt->tstate[kt->nr_tasks], 0, sizeof(kt->tstate[0]));
	kt->tstate[kt->nr_tasks].proc = kt_task_info(t);
	for (s = kt_hash(pid, kt->hash_size); kt->task_hash[s]; s = (s + 1) & (kt->hash_size - 1))
		;
	kt->task_hash[s] = (uint32_t)++kt->nr_tasks;
	return (ssize_t)kt->nr_tasks - 1;
}
