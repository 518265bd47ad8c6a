/* SPDX-License-Identifier: MIT */
/*
 * kernel_trigger.c - triggers the kernel runs itself, on the events of
 * utrace's instance (kernel_trace.h): written into each event's trigger
 * file before tracing starts, as `echo 'stacktrace:2 if prev_pid == 0' >
 * events/sched/sched_switch/trigger` would.  The kernel checks the
 * filter (its error_log says why it refuses one) and does the work where
 * the event fires; the instance is removed at the end, its triggers with
 * it.
 *
 * A stacktrace trigger has the kernel write its internal kernel_stack
 * entry (events/ftrace/kernel_stack/format: int size, then size return
 * addresses) into the instance's buffer after the event, on the same
 * CPU: it is a post-trigger (EVENT_CMD_FL_POST_TRIGGER), run once the
 * event is committed.  That event has no enable file; its format is
 * added to the session's list so the pages can be read back.
 *
 * A trigger runs even while the instance's tracing is off (the kernel
 * gives a conditional trigger's event a temporary buffer, so that it can
 * look at it), and before set_event_pid scopes the events to the traced
 * command it runs for every task: its :N count would be spent before the
 * recording starts.  So each is written once at open (where the kernel
 * checks it, and says what is wrong before the command runs), and again,
 * removed (!CMD) and added, once set_event_pid is set, as tracing starts.
 *
 * The frames are named from /proc/kallsyms when recording ends: the
 * lines of the symbols that hold them, with the next symbol (the end of
 * each, for %pS), not the whole file (~5 MB).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/kernel/kernel_internal.h"
#include "lib/kernel/kernel_tracefs.h"

bool utrace_ktrace_trigger_available(const char *trigger_file, const char *cmd)
{
	const char *p = trigger_file ? strstr(trigger_file, "# Available triggers:") : NULL;
	size_t n = strlen(cmd);

	if (!p || !(p = strchr(p, '\n')) || *++p != '#')
		return false;
	/* the next line: "# traceon traceoff stacktrace ..." */
	for (p++; *p && *p != '\n';) {
		size_t w;

		p += strspn(p, " \t");
		w = strcspn(p, " \t\n");
		if (w == n && !strncmp(p, cmd, n))
			return true;
		p += w;
	}
	return false;
}

/* ftrace:kernel_stack's format, listed with the events' (once). */
static int kt_add_stack_format(struct utrace_ktrace *kt, struct utrace_error *err)
{
	char path[PATH_MAX], *fmt, *id;
	struct kt_event *e;

	if (kt->stacks)
		return 0;
	fmt = utrace_tracefs_read(
	    utrace_tracefs_path(path, kt->dir, "events/ftrace/kernel_stack/format"));
	if (!fmt)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	if (!(id = strstr(fmt, "\nID: ")) ||
	    UTRACE_GROW(kt->evs, kt->cap_evs, kt->nr_evs + 1) < 0) {
		free(fmt);
		return utrace_error_set(err, id ? -ENOMEM : -EINVAL, "%s: %s", path,
					id ? "out of memory" : "no ID line");
	}
	e = &kt->evs[kt->nr_evs++];
	*e = (struct kt_event){strdup("ftrace"), strdup("kernel_stack"), fmt, atoi(id + 5), true, -1, false, false};
	if (!e->system || !e->name)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	kt->stacks = true;
	return 0;
}

/* Trigger text on event ev, written again at start. */
static int kt_note(struct utrace_ktrace *kt, size_t ev, const char *cmd, const char *text,
		   struct utrace_error *err)
{
	struct kt_trig *t;

	if (UTRACE_GROW(kt->trigs, kt->cap_trigs, kt->nr_trigs + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	t = &kt->trigs[kt->nr_trigs];
	*t = (struct kt_trig){ev, strdup(cmd), strdup(text)};
	if (!t->cmd || !t->text) {
		free(t->cmd);
		free(t->text);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	kt->nr_trigs++;
	return 0;
}

static int kt_trigger_one(struct utrace_ktrace *kt, const struct kt_event *e, const char *cmd,
			  const char *text, struct utrace_error *err)
{
	char path[PATH_MAX], *list;
	bool ok;
	int ret;

	list = utrace_tracefs_read(
	    utrace_tracefs_path(path, kt->dir, "events/%s/%s/trigger", e->system, e->name));
	/* the file lists what the kernel has while the event has no
	 * trigger, else its triggers (ours, from an earlier -R) */
	ok = list &&
	     (!strstr(list, "# Available triggers:") || utrace_ktrace_trigger_available(list, cmd));
	free(list);
	if (!ok)
		return utrace_error_set(err, -EOPNOTSUPP,
					"%s:%s: this kernel has no %s trigger (%s lists the "
					"available ones)",
					e->system, e->name, cmd, path);
	utrace_tracefs_write(utrace_tracefs_path(path, kt->dir, "error_log"), "", O_TRUNC);
	/* without O_TRUNC: O_TRUNC would remove the event's other triggers */
	ret = utrace_tracefs_write(
	    utrace_tracefs_path(path, kt->dir, "events/%s/%s/trigger", e->system, e->name), text,
	    O_APPEND);
	if (ret == -EEXIST)
		return 0; /* one of each command per event: it is there */
	if (ret < 0)
		return utrace_tracefs_error_log(kt->dir, e->system, e->name, ret, err);
	return kt_note(kt, (size_t)(e - kt->evs), cmd, text, err);
}

int kt_triggers_rearm(struct utrace_ktrace *kt, struct utrace_error *err)
{
	for (size_t i = 0; i < kt->nr_trigs; i++) {
		const struct kt_trig *t = &kt->trigs[i];
		const struct kt_event *e = &kt->evs[t->ev];
		char path[PATH_MAX], off[64];
		int ret;

		utrace_tracefs_path(path, kt->dir, "events/%s/%s/trigger", e->system, e->name);
		snprintf(off, sizeof(off), "!%s", t->cmd);
		if ((ret = utrace_tracefs_write(path, off, O_APPEND)) < 0 ||
		    (ret = utrace_tracefs_write(path, t->text, O_APPEND)) < 0)
			return utrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	}
	return 0;
}

void kt_triggers_free(struct utrace_ktrace *kt)
{
	for (size_t i = 0; i < kt->nr_trigs; i++) {
		free(kt->trigs[i].cmd);
		free(kt->trigs[i].text);
	}
	free(kt->trigs);
}

int utrace_ktrace_trigger(struct utrace_ktrace *kt, const char *pattern, const char *cmd,
			  const char *text, struct utrace_error *err)
{
	size_t n = kt->nr_evs;

	for (size_t i = 0; i < n; i++) {
		const struct kt_event *e = &kt->evs[i];

		if (e->format_only || !utrace_event_spec_matches(pattern, e->system, e->name))
			continue;
		if (kt_trigger_one(kt, e, cmd, text, err) < 0)
			return err->code;
		if (!strcmp(cmd, "stacktrace") && kt_add_stack_format(kt, err) < 0)
			return err->code;
	}
	return 0;
}

int utrace_ktrace_stack_format(struct utrace_ktrace *kt, struct utrace_error *err)
{
	return kt_add_stack_format(kt, err);
}

/* Event sys:name of kt, if it records it (not only its format). */
static const struct kt_event *kt_event(const struct utrace_ktrace *kt, const char *sys,
				       const char *name)
{
	for (size_t i = 0; i < kt->nr_evs; i++)
		if (!kt->evs[i].format_only && !strcmp(kt->evs[i].system, sys) &&
		    !strcmp(kt->evs[i].name, name))
			return &kt->evs[i];
	return NULL;
}

int utrace_ktrace_stack_live(struct utrace_ktrace *kt, const char *sys, const char *name,
			     const char *filter, bool on, struct utrace_error *err)
{
	const struct kt_event *e = kt_event(kt, sys, name);
	char path[PATH_MAX], text[4096];
	int ret;

	if (!e || !kt->stacks) /* none to remove; none to arm (trace_marker's event) */
		return on ? utrace_error_set(err, -EOPNOTSUPP, "%s:%s: no kernel stacks here",
					     sys, name)
			  : 0;
	for (size_t i = 0; i < kt->nr_trigs; i++) /* a -R's: armed, and stays */
		if (kt->trigs[i].ev == (size_t)(e - kt->evs) &&
		    !strcmp(kt->trigs[i].cmd, "stacktrace"))
			return 0;
	if (snprintf(text, sizeof(text), "%sstacktrace%s%s", on ? "" : "!", filter ? " if " : "",
		     filter ? filter : "") >= (int)sizeof(text))
		return utrace_error_set(err, -E2BIG, "%s:%s: filter too long", sys, name);
	utrace_tracefs_path(path, kt->dir, "events/%s/%s/trigger", sys, name);
	ret = utrace_tracefs_write(path, text, O_APPEND);
	if (ret < 0 && ret != -EEXIST && (on || ret != -ENOENT))
		return utrace_tracefs_error_log(kt->dir, sys, name, ret, err);
	return 0;
}

bool utrace_ktrace_stacks(const struct utrace_ktrace *kt)
{
	return kt && kt->stacks;
}

/* A code symbol of kallsyms: its address and line. */
struct ksym_line {
	uint64_t addr;
	char *line;
	bool used;
};

static int cmp_ksym_line(const void *a, const void *b)
{
	const struct ksym_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every code symbol line of text (cut into lines, in place), by address. */
static struct ksym_line *ksym_lines(char *text, size_t *n)
{
	size_t cap = 1;
	struct ksym_line *v;

	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	if (!(v = calloc(cap, sizeof(*v))))
		return NULL;
	*n = 0;
	for (char *line = text, *nl; line && *line; line = nl) {
		char *t = strchr(line, ' ');

		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (t && strchr("tTwW", t[1]) && t[1] && t[2] == ' ' && *n < cap)
			v[(*n)++] = (struct ksym_line){strtoull(line, NULL, 16), line, false};
	}
	qsort(v, *n, sizeof(*v), cmp_ksym_line);
	return v;
}

char *utrace_ktrace_kallsyms(const char *path, const uint64_t *addrs, size_t nr, size_t *len,
			     struct utrace_error *err)
{
	char *text = utrace_tracefs_read(path ? path : "/proc/kallsyms"), *out = NULL;
	size_t n = 0, used = 0, size = text ? strlen(text) + 1 : 0;
	struct ksym_line *v = NULL;

	*len = 0;
	/* out before the lines are cut: it holds at most all of them */
	if (!text || !(out = malloc(size)) || !(v = ksym_lines(text, &n))) {
		utrace_error_set(err, -(errno ? errno : ENOMEM), "%s: %s",
				 path ? path : "/proc/kallsyms", strerror(errno ? errno : ENOMEM));
		free(out);
		out = NULL;
		goto done;
	}
	/* the symbol that holds each address, and the next (its size) */
	for (size_t i = 0, k = 0; i < nr; i++) {
		while (k < n && v[k].addr <= addrs[i])
			k++;
		if (k && v[k - 1].addr) {
			v[k - 1].used = true;
			if (k < n)
				v[k].used = true;
		}
	}
	for (size_t k = 0; k < n; k++)
		if (v[k].used)
			used += (size_t)sprintf(out + used, "%s\n", v[k].line);
	*len = used;
done:
	free(v);
	free(text);
	return out;
}
