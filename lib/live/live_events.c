/* SPDX-License-Identifier: MIT */
/*
 * live_events.c - the static tracepoints of the traced processes, as
 * tracefs shows events: available_events ("system:event" a line),
 * events/SYSTEM/EVENT/{format,id}.
 *
 * The events are those the objects of the traced processes define in
 * their __utrace_events section (lib/events/event_format.h), read once per
 * object file as objects register (ops->objects names them); an event
 * defined by several objects is shown once.  Its id is the one the
 * recording gives it (ops->event_id), so format and id say what the
 * trace's common_type will be.  The caller holds l->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/live/live_int.h"

static void events_add(void *arg, const char *path)
{
	struct utrace_live *l = arg;
	struct utrace_event_list *list;
	struct utrace_error err = {0};
	char **paths;
	struct utrace_event_list **lists;

	for (size_t i = 0; i < l->nev_paths; i++)
		if (!strcmp(l->ev_paths[i], path))
			return;
	paths = realloc(l->ev_paths, (l->nev_paths + 1) * sizeof(*paths));
	if (paths)
		l->ev_paths = paths;
	lists = realloc(l->ev_lists, (l->nev_paths + 1) * sizeof(*lists));
	if (lists)
		l->ev_lists = lists;
	if (!paths || !lists || !(paths[l->nev_paths] = strdup(path)))
		return;
	/* a file that cannot be read defines nothing we can show */
	if (utrace_event_list_load(path, &list, &err) < 0)
		list = NULL;
	lists[l->nev_paths++] = list;
}

/* Reads the event sections of the objects registered since last time. */
static void events_refresh(struct utrace_live *l)
{
	if (l->ops.objects)
		l->ops.objects(l->ops.arg, events_add, l);
}

/* Event i of every list in order, each system:name once, then the
 * dynamic events (live_dynev.c); NULL past the end. */
static const struct utrace_event_format *event_at(struct utrace_live *l, size_t i)
{
	for (size_t p = 0; p < l->nev_paths; p++)
		for (unsigned k = 0; l->ev_lists[p] && k < utrace_event_list_count(l->ev_lists[p]);
		     k++) {
			const struct utrace_event_format *f = utrace_event_list_get(l->ev_lists[p], k);
			bool dup = false;

			for (size_t q = 0; q < p && !dup; q++)
				dup = l->ev_lists[q] &&
				      utrace_event_list_find(l->ev_lists[q], f->system, f->name);
			if (!dup && !i--)
				return f;
		}
	return live_dynev_format(l, i); /* then the dynamic events */
}

const struct utrace_event_format *live_event_find(struct utrace_live *l, const char *system,
						  const char *name)
{
	const struct utrace_event_format *f;

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
}
