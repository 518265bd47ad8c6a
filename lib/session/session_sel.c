/* SPDX-License-Identifier: MIT */
/*
 * session_sel.c - what the readers of the live tracefs (session_inst.c,
 * session_inst_trig.c) look up and switch: a selection's entry of an
 * event, an event of the processes, whether an instance has an event or
 * tracing on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/session/session_dynev.h"
#include "lib/session/session_live_internal.h"

struct session_sel_ev *session_sel_ev_find(struct session_sel *s, const char *sys,
					   const char *name)
{
	for (size_t i = 0; i < s->nevs; i++)
		if (!strcmp(s->evs[i].sys, sys) && !strcmp(s->evs[i].name, name))
			return &s->evs[i];
	return NULL;
}

/* The event's entry in s, made if it has none (NULL: out of memory). */
struct session_sel_ev *session_sel_ev_get(struct session_sel *s, const char *sys, const char *name)
{
	struct session_live *rl = s->rl;
	struct session_sel_ev *e = session_sel_ev_find(s, sys, name);
	int id;

	if (e)
		return e;
	live_lock(rl);
	/* a kernel event's id before a program's of that name, as the
	 * records have it */
	if ((id = utrace_recorder_live_kid(rl->r, sys, name)) < 0)
		id = session_dynev_event_id(rl, sys, name);
	pthread_mutex_unlock(&rl->lock);
	if (id < 0 || UTRACE_GROW_ZERO(s->evs, s->cap_evs, s->nevs + 1) < 0)
		return NULL;
	e = &s->evs[s->nevs];
	if (!(e->sys = strdup(sys)) || !(e->name = strdup(name))) {
		free(e->sys);
		return NULL;
	}
	e->id = id;
	s->nevs++;
	return e;
}

int session_rec_event(struct session_live *rl, const char *sys, const char *name, int set)
{
	int ret;

	live_lock(rl);
	if (set >= 0)
		session_live_catch_up(rl);
	ret = utrace_recorder_live_event(rl->r, sys, name, set);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/* Whether an instance other than but has the event on. */
bool session_insts_have_event(struct session_live *rl, const struct session_sel *but,
			      const char *sys, const char *name)
{
	for (size_t i = 0; i < rl->ninsts; i++) {
		struct session_sel_ev *e = session_sel_ev_find(rl->insts[i], sys, name);

		if (rl->insts[i] != but && e && session_wins_open(&e->w))
			return true;
	}
	return false;
}

struct session_sel *session_reader_sel(struct session_live *rl, unsigned reader)
{
	for (size_t i = 0; reader && i < rl->ninsts; i++)
		if (rl->insts[i]->reader == reader)
			return rl->insts[i];
	return NULL;
}

bool session_insts_on(struct session_live *rl, const struct session_sel *but)
{
	for (size_t i = 0; i < rl->ninsts; i++)
		if (rl->insts[i] != but && session_wins_open(&rl->insts[i]->on))
			return true;
	return false;
}
