/* SPDX-License-Identifier: MIT */
/*
 * live_events.c - the static tracepoints of the traced processes, as
 * tracefs shows events: available_events ("system:event" a line),
 * events/SYSTEM/EVENT/{format,id}, and their switches, the kernel's
 * (kernel/trace/trace_events.c):
 *
 *   events/SYSTEM/EVENT/enable  "0" or "1" ("0*", "1*" while it has a
 *                               trigger or one's enable_/disable_ names
 *                               it: the kernel's soft mode); a write of
 *                               0 or 1 switches it, anything else EINVAL
 *   events/SYSTEM/enable, events/enable
 *                               "0", "1", "X" when some are on and some
 *                               off ("?" when none); a write switches all
 *   set_event                   the events on, "system:event" a line; `>`
 *                               switches every event off first, a word
 *                               SYS:EVENT, SYS:*, *:EVENT, SYS: or NAME (a
 *                               system or an event) switches on, `!WORD`
 *                               off; a word that names none is EINVAL
 *   set_event_pid               the threads whose events are recorded, one
 *                               a line (nothing: every thread's); `>`
 *                               starts the list over, `>>` adds; a word
 *                               that is not a thread id is EINVAL (the
 *                               syntax of live_pids.c)
 *
 * A switch is the event's ev_state byte on the control page (ops
 * ->event_enable): every process has every event enabled, its jump sites
 * patched, and a hit looks at the byte (lib/record/recorder_live.c).
 *
 * The events are those the objects of the traced processes define in
 * their __utrace_events section (lib/events/event_format.h), read once per
 * object file as objects register (ops->objects names them); an event
 * defined by several objects is shown once.  Its id is the one the
 * recording gives it (ops->event_id), so format and id say what the
 * trace's common_type will be.  The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/events/ftrace_formats.h"
#include "lib/tracefs/live_internal.h"

static void events_add(void *arg, const char *path)
{
	struct utrace_live *l = arg;
	struct utrace_event_list *list;
	struct utrace_error err = {0};

	for (size_t i = 0; i < l->nev_paths; i++)
		if (!strcmp(l->ev_paths[i], path))
			return;
	if (UTRACE_GROW(l->ev_paths, l->cap_ev_paths, l->nev_paths + 1) < 0 ||
	    UTRACE_GROW(l->ev_lists, l->cap_ev_lists, l->nev_paths + 1) < 0 ||
	    !(l->ev_paths[l->nev_paths] = strdup(path)))
		return;
	/* a file that cannot be read defines nothing we can show */
	if (utrace_event_list_load(path, &list, &err) < 0)
		list = NULL;
	l->ev_lists[l->nev_paths++] = list;
}

/* Reads the event sections of the objects registered since last time. */
static void events_refresh(struct utrace_live *l)
{
	if (l->ops.objects)
		l->ops.objects(l->ops.arg, events_add, l);
}

/* The recording's kernel events (ops->kernel_event): the i-th, NULL past
 * the end; whether sys:name is one. */
static const struct utrace_event_format *kevent_at(struct utrace_live *l, size_t i)
{
	return l->ops.kernel_event ? l->ops.kernel_event(l->ops.arg, i) : NULL;
}

static bool kevent_is(struct utrace_live *l, const char *sys, const char *name)
{
	const struct utrace_event_format *k;

	for (size_t i = 0; (k = kevent_at(l, i)); i++)
		if (!strcmp(k->system, sys) && !strcmp(k->name, name))
			return true;
	return false;
}

/* The kernel events first (each hides a program's event of its name: the
 * records are the kernel's), then event i of every list in order, each
 * system:name once, then the dynamic events (live_dynev.c); NULL past
 * the end. */
static const struct utrace_event_format *event_at(struct utrace_live *l, size_t i)
{
	const struct utrace_event_format *k;
	size_t nk = 0;

	while ((k = kevent_at(l, nk)))
		if (nk++ == i)
			return k;
	i -= nk;
	for (size_t p = 0; p < l->nev_paths; p++)
		for (unsigned k = 0; l->ev_lists[p] && k < utrace_event_list_count(l->ev_lists[p]);
		     k++) {
			const struct utrace_event_format *f = utrace_event_list_get(l->ev_lists[p], k);
			bool dup = false;

			for (size_t q = 0; q < p && !dup; q++)
				dup = l->ev_lists[q] &&
				      utrace_event_list_find(l->ev_lists[q], f->system, f->name);
			dup = dup || (nk && kevent_is(l, f->system, f->name));
			if (!dup && !i--)
				return f;
		}
	return live_dynev_format(l, i); /* then the dynamic events */
}

/* ftrace:print's format, the one ftrace event with triggers (trace_marker's,
 * live_ftrace.c serves its files), its id given by the recording; NULL if
 * out of memory */
static const struct utrace_event_format *ftrace_print(struct utrace_live *l)
{
	const struct utrace_ftrace_format *f = utrace_ftrace_format_find("print");
	struct utrace_error err = {0};

	if (l->print_fmt || !f)
		return l->print_fmt;
	/* the recording's id, which its triggers go by */
	if (l->ops.event_id(l->ops.arg, "ftrace", "print") < 0)
		return NULL;
	utrace_event_format_parse("ftrace", f->text, &l->print_fmt, &err);
	return l->print_fmt;
}

const struct utrace_event_format *live_event_find(struct utrace_live *l, const char *system,
						  const char *name)
{
	const struct utrace_event_format *f;

	if (!strcmp(system, "ftrace") && name && !strcmp(name, "print"))
		return ftrace_print(l); /* trace_marker's: its triggers */
	events_refresh(l);
	for (size_t i = 0; (f = event_at(l, i)); i++)
		if (!strcmp(f->system, system) && (!name || !strcmp(f->name, name)))
			return f;
	return NULL;
}

/* The systems (sys NULL) or the events of system sys, each once. */
void live_event_names(struct utrace_live *l, const char *sys,
		      void (*fill)(void *arg, const char *name), void *arg)
{
	const struct utrace_event_format *f, *g;

	events_refresh(l);
	for (size_t i = 0; (f = event_at(l, i)); i++) {
		bool seen = false;

		if (sys) {
			if (!strcmp(f->system, sys))
				fill(arg, f->name);
			continue;
		}
		for (size_t k = 0; k < i && !seen; k++)
			seen = (g = event_at(l, k)) && !strcmp(g->system, f->system);
		if (!seen)
			fill(arg, f->system);
	}
}

int live_show_events(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_event_format *f;

	events_refresh(l);
	for (size_t i = 0; (f = event_at(l, i)); i++)
		fprintf(out, "%s:%s\n", f->system, f->name);
	return 0;
}

int live_show_format(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_event_format *f = live_event_find(l, h->sys, h->ev);
	int id = f ? l->ops.event_id(l->ops.arg, f->system, f->name) : -1;
	char *text;

	if (!f || id < 0)
		return -ENOENT;
	if (!(text = utrace_event_format_text(f, id)))
		return -ENOMEM;
	fputs(text, out);
	free(text);
	return 0;
}

int live_show_id(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int id = l->ops.event_id(l->ops.arg, h->sys, h->ev);

	if (id < 0)
		return -ENOENT;
	fprintf(out, "%d\n", id);
	return 0;
}

void live_events_free(struct utrace_live *l)
{
	for (size_t i = 0; i < l->nev_paths; i++) {
		free(l->ev_paths[i]);
		utrace_event_list_free(l->ev_lists[i]);
	}
	free(l->ev_paths);
	free(l->ev_lists);
	utrace_event_format_free(l->print_fmt);
}

/* ---- switches ------------------------------------------------------- */

/* Does event f belong to a word of set_event, as the kernel's
 * __ftrace_set_clr_event_nolock: match (a system or an event name), or
 * sub and event (NULL: any)? */
static bool event_in(const struct utrace_event_format *f, const char *match, const char *sub,
		     const char *event)
{
	if (match && strcmp(match, f->name) && strcmp(match, f->system))
		return false;
	if (sub && strcmp(sub, f->system))
		return false;
	return !event || !strcmp(event, f->name);
}

/* Every event that is in (match, sub, event) switched on or off (set) or
 * only read (set -1); bit 0 of *seen: one is off, bit 1: one is on.  How
 * many there are, or -errno. */
static int events_switch(struct utrace_live *l, const char *match, const char *sub,
			 const char *event, int set, unsigned *seen)
{
	const struct utrace_event_format *f;
	int n = 0, on;

	events_refresh(l);
	for (size_t i = 0; (f = event_at(l, i)); i++) {
		if (!event_in(f, match, sub, event))
			continue;
		if ((on = l->ops.event_enable(l->ops.arg, f->system, f->name, set)) < 0)
			return on;
		if (seen)
			*seen |= 1u << (on ? 1 : 0);
		n++;
	}
	return n;
}

/* events/enable (sys ""), events/SYS/enable, events/SYS/EVENT/enable */
int live_show_enable(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	static const char set_to_char[4] = {'?', '0', '1', 'X'};
	unsigned seen = 0;
	int n = events_switch(l, NULL, h->sys[0] ? h->sys : NULL, h->ev[0] ? h->ev : NULL, -1,
			      &seen);

	if (n < 0)
		return n;
	if (h->ev[0]) /* "*": triggers run it (event_enable_read's SOFT_MODE) */
		fprintf(out, "%d%s\n", seen == 2, live_soft_mark(l, h->sys, h->ev));
	else
		fprintf(out, "%c\n", set_to_char[seen]);
	return 0;
}

long live_write_enable(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	unsigned long long v;
	int ret;

	if (live_number(buf, n, &v) < 0 || (v != 0 && v != 1))
		return -EINVAL;
	ret = events_switch(l, NULL, h->sys[0] ? h->sys : NULL, h->ev[0] ? h->ev : NULL, (int)v,
			    NULL);
	return ret < 0 ? ret : (long)n;
}

int live_show_set_event(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct utrace_event_format *f;

	events_refresh(l);
	for (size_t i = 0; (f = event_at(l, i)); i++)
		if (l->ops.event_enable(l->ops.arg, f->system, f->name, -1) == 1)
			fprintf(out, "%s:%s\n", f->system, f->name);
	return 0;
}

/* `echo X > set_event`: every event off first (ftrace_clear_events). */
int live_open_set_event(struct utrace_live *l, struct live_handle *h, int flags)
{
	int ret = 0;

	if ((flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC))
		ret = events_switch(l, NULL, NULL, NULL, 0, NULL);
	return ret < 0 ? ret : 0;
}

/* One word of set_event, as the kernel's ftrace_set_clr_event. */
static int set_event_word(struct utrace_live *l, char *w)
{
	char *match = w, *sub = NULL, *event = NULL, *colon;
	int set = 1, n;

	if (*w == '!') {
		set = 0;
		match = ++w;
	}
	if ((colon = strchr(w, ':'))) {
		*colon = 0;
		sub = *w && strcmp(w, "*") ? w : NULL;
		event = colon[1] && strcmp(colon + 1, "*") ? colon + 1 : NULL;
		match = NULL;
	}
	n = events_switch(l, match, sub, event, set, NULL);
	return n < 0 ? n : n ? 0 : -EINVAL;
}

long live_write_set_event(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char *s = strndup(buf, n), *save = NULL;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (char *w = strtok_r(s, " \t\n", &save); w && ret >= 0; w = strtok_r(NULL, " \t\n", &save))
		ret = set_event_word(l, w);
	free(s);
	return ret < 0 ? ret : (long)n;
}

const struct utrace_event_format *utrace_live_format(struct utrace_live *l, const char *system,
						     const char *name)
{
	return live_event_find(l, system, name);
}
