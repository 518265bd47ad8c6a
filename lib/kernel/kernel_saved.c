/* SPDX-License-Identifier: MIT */
/*
 * kernel_saved.c - the kernel's saved_cmdlines and saved_tgids, read
 * into a table by pid: what names a task that has exited, for the
 * recording's kernel tasks (kernel_tasks.c kt_name_exited) and utrace
 * bt's tracepoint hits (lib/bt/bt_tracepoint.c) alike.
 *
 * Design: the file is read whole (the kernel formats every entry at each
 * read: with saved_cmdlines_size raised to thousands, milliseconds; the
 * callers read it when a task they must name is gone, not at every
 * turn) and parsed once into entries in the file's order plus an open
 * addressing table of their indexes by pid: building it is linear, with
 * no sort, and a lookup is a probe or two.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kernel_saved.h"
#include "lib/kernel/kernel_tracefs.h"

static size_t slot_of(int pid, size_t nslots)
{
	return ((uint32_t)pid * 2654435761u) & (nslots - 1);
}

/* One "PID TEXT" line at p (len bytes) into e; false if it is not one. */
static int parse_line(const char *p, size_t len, struct utrace_ksaved_entry *e)
{
	long pid = 0;
	size_t i = 0, n;

	for (; i < len && p[i] >= '0' && p[i] <= '9' && pid <= INT_MAX; i++)
		pid = pid * 10 + (p[i] - '0');
	if (!i || i == len || p[i] != ' ' || pid <= 0 || pid > INT_MAX)
		return 0;
	n = len - i - 1;
	if (n > sizeof(e->text) - 1)
		n = sizeof(e->text) - 1;
	e->pid = (int)pid;
	memcpy(e->text, p + i + 1, n);
	e->text[n] = 0;
	return 1;
}

int utrace_ksaved_parse(struct utrace_ksaved *t, const char *text)
{
	size_t cap = 1, nslots = 2;

	utrace_ksaved_free(t);
	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	while (nslots < 2 * cap)
		nslots *= 2;
	t->v = malloc(cap * sizeof(*t->v));
	t->slot = calloc(nslots, sizeof(*t->slot));
	if (!t->v || !t->slot) {
		utrace_ksaved_free(t);
		return -ENOMEM;
	}
	t->nslots = nslots;
	for (const char *p = text; *p && t->n < cap;) {
		size_t len = strcspn(p, "\n"), s;
		struct utrace_ksaved_entry *e = &t->v[t->n];

		if (parse_line(p, len, e)) {
			for (s = slot_of(e->pid, nslots); t->slot[s] && t->v[t->slot[s] - 1].pid != e->pid;
			     s = (s + 1) & (nslots - 1))
				;
			if (!t->slot[s]) /* (a pid listed twice: its first line) */
				t->slot[s] = (uint32_t)++t->n;
		}
		p += len + (p[len] == '\n');
	}
	return 0;
}

int utrace_ksaved_read(struct utrace_ksaved *t, const char *name)
{
	char path[PATH_MAX], *text;
	int ret;

	if (!utrace_tracefs_root())
		return -ENOENT;
	text = utrace_tracefs_read(utrace_tracefs_path(path, utrace_tracefs_root(), "%s", name));
	if (!text)
		return errno ? -errno : -EIO;
	ret = utrace_ksaved_parse(t, text);
	free(text);
	return ret;
}

const char *utrace_ksaved_find(const struct utrace_ksaved *t, int pid)
{
	if (!t->nslots)
		return NULL;
	for (size_t s = slot_of(pid, t->nslots); t->slot[s]; s = (s + 1) & (t->nslots - 1))
		if (t->v[t->slot[s] - 1].pid == pid)
			return t->v[t->slot[s] - 1].text;
	return NULL;
}

void utrace_ksaved_free(struct utrace_ksaved *t)
{
	free(t->v);
	free(t->slot);
	*t = (struct utrace_ksaved){0};
}
