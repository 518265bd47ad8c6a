/* SPDX-License-Identifier: MIT */
/*
 * session_dynev_names.c - the names of the live tracefs's dynamic events
 * (lib/session/session_dynev.c): each one defined, its event id, what an
 * append is checked against and its points, so that a second definition
 * of a name is refused before anything is sent, as the kernel refuses it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_select.h"
#include "lib/session/session_dynev.h"
#include "lib/session/session_dynev_internal.h"
#include "lib/probes/uprobe.h"
#include "lib/session/session_live_internal.h"

int session_dynev_event_id(struct session_live *rl, const char *system, const char *name)
{
	struct utrace_error err = {0};

	if (!rl->events && utrace_event_select_new(NULL, 0, &rl->own, &err) >= 0)
		rl->events = rl->own;
	return rl->events ? utrace_event_select_id(rl->events, system, name) : -ENOMEM;
}

struct dyn_name *dyn_find(struct session_dynev *d, const char *sys, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->names[i].sys, sys) && !strcmp(d->names[i].name, name))
			return &d->names[i];
	return NULL;
}

void dyn_name_free(struct dyn_name *n)
{
	free(n->format);
	free(n->point);
	for (unsigned i = 0; i < n->nk; i++)
		free(n->lines[i]);
	free(n->lines);
	free(n->keys);
}

/* Point key of n, listed as line (a copy kept). */
int dyn_point_keep(struct dyn_name *n, int key, const char *line)
{
	unsigned cap = n->cap_k;
	char *copy = strdup(line);

	if (!copy || UTRACE_GROW(n->lines, cap, n->nk + 1) < 0 ||
	    UTRACE_GROW(n->keys, n->cap_k, n->nk + 1) < 0) {
		free(copy);
		return -ENOMEM;
	}
	n->keys[n->nk] = key;
	n->lines[n->nk++] = copy;
	return 0;
}

int dyn_keep(struct session_dynev *d, const char *sys, const char *name, int id, bool synth,
		    bool live)
{
	struct dyn_name *n;

	if (UTRACE_GROW(d->names, d->cap, d->n + 1) < 0)
		return -ENOMEM;
	n = &d->names[d->n++];
	snprintf(n->sys, sizeof(n->sys), "%s", sys);
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->id = id;
	n->synth = synth;
	n->live = live;
	n->format = n->point = NULL;
	n->keys = NULL;
	n->lines = NULL;
	n->nk = n->cap_k = 0;
	n->fmt = NULL;
	return 0;
}

/* The kernel's trace_probe_register_event_call refusal, caret at 0. */
int session_dynev_exists(struct utrace_error *err)
{
	int ret = utrace_error_set(err, -EEXIST, "%s",
				   utrace_uprobe_error_text(UTRACE_UPROBE_ERR_EVENT_EXIST));

	err->column = 1;
	return ret;
}

bool session_dynev_known(struct session_live *rl, const char *system, const char *name)
{
	return dyn_find(rl->dyn, system, name) != NULL;
}

int session_dynev_keep(struct session_live *rl, const char *system, const char *name, int id)
{
	return dyn_keep(rl->dyn, system, name, id, false, true);
}
