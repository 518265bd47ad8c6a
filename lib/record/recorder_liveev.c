/* SPDX-License-Identifier: MIT */
/*
 * recorder_liveev.c - the events of a live recording (utrace record
 * --tracefs): switched on and off, their filters and triggers changed
 * while the programs run (lib/live's events/ files).
 *
 * Every event of every object is enabled at registration with STATEFUL
 * (rec_live_event_flags): whether a hit writes its record is its ev_state
 * byte on the control page, which a switch flips for every process at
 * once, as the triggers' enable_event does; its format is saved then, so
 * an event switched on later decodes.  A new filter (or trigger) is sent
 * down each process's live channel as at registration - the HISTs and
 * TRIGGERs, the ENABLE of its key in each object that has the event, a
 * LIVE_DONE - and the process swaps the key's configuration
 * (runtime/trace_events.c rt_events_live).  What was set is kept here,
 * so a process that registers later gets it with its ENABLEs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_select.h"
#include "lib/record/recorder_internal.h"

/* One event of an object: its key there and the recording's id. */
struct rec_evkey {
	uint32_t key;
	int id;
};

static uint8_t *live_ev_state(struct utrace_recorder *r, int id)
{
	uint32_t i = (uint32_t)(id - UTRACE_EV_ID_BASE);

	return id >= UTRACE_EV_ID_BASE && i < UTRACE_EV_STATE_MAX ? &r->ctl->ev_state[i] : NULL;
}

/*
 * A live recording enables every event of every object (their jump sites
 * patched) with STATEFUL: whether a hit writes its record is its ev_state
 * byte, which events/.../enable flips for every process at once, as the
 * triggers' enable_event does.  An event the command line does not
 * record starts off, once for the recording (a process that comes later
 * must not undo a write to enable).
 */
uint32_t rec_live_event_flags(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			      uint32_t key, const char *sys, const char *name, int id, bool first)
{
	uint8_t *st = live_ev_state(r, id);

	if (obj < c->nr_objs) {
		struct rec_object *o = &c->objs[obj];
		struct rec_evkey *k = realloc(o->evkeys, (o->nr_evkeys + 1) * sizeof(*k));

		if (k) {
			o->evkeys = k;
			k[o->nr_evkeys++] = (struct rec_evkey){key, id};
		}
	}
	if (first && st && utrace_event_select_soft(r->o.events, sys, name))
		__atomic_or_fetch(st, UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	return UTRACE_ENABLE_STATEFUL;
}

int utrace_recorder_live_event(struct utrace_recorder *r, const char *system, const char *name,
			       int set)
{
	int id = r->o.events ? utrace_event_select_id(r->o.events, system, name) : -ENOENT;
	uint8_t *st = id >= 0 ? live_ev_state(r, id) : NULL;

	if (id < 0)
		return id;
	if (!st)
		return -ENOSPC; /* past the control page's states: cannot be switched */
	if (set == 0)
		__atomic_or_fetch(st, UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	else if (set > 0)
		__atomic_and_fetch(st, (uint8_t)~UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	return !(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UTRACE_EVS_OFF);
}

/* ---- filters ---------------------------------------------------------- */

/* What the tracefs set for one event of the recording. */
struct rec_live_ev {
	int id;
	char *filter; /* NULL: none */
	void *prog;   /* the last one compiled (for one object's format) */
	struct rec_live_ev *next;
};

static struct rec_live_ev *live_ev(struct utrace_recorder *r, int id, bool create)
{
	struct rec_live_ev *e;

	for (e = r->live_evs; e; e = e->next)
		if (e->id == id)
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->id = id;
	e->next = r->live_evs;
	r->live_evs = e;
	return e;
}

void rec_live_ev_free(struct utrace_recorder *r)
{
	while (r->live_evs) {
		struct rec_live_ev *e = r->live_evs;

		r->live_evs = e->next;
		free(e->filter);
		free(e->prog);
		free(e);
	}
}

/* e's filter compiled for the event of the object at path: 0 with *prog
 * (NULL: none), or -errno (it does not fit this object's layout). */
static int live_compile(struct utrace_recorder *r, struct rec_live_ev *e, const char *path,
			const char *sys, const char *name, const void **prog, uint32_t *len)
{
	const struct utrace_event_format *f = utrace_event_select_format(r->o.events, path, sys, name);
	struct utrace_error err = {0};
	void *code = NULL;

	*prog = NULL;
	*len = 0;
	if (!e->filter)
		return 0;
	if (!f || utrace_filter_compile(f, e->filter, &code, len, &err) < 0)
		return -EINVAL;
	free(e->prog);
	*prog = e->prog = code;
	return 0;
}

void rec_live_event_prog(struct utrace_recorder *r, const char *path, const char *sys,
			 const char *name, int id, const void **prog, uint32_t *len)
{
	struct rec_live_ev *e = live_ev(r, id, false);

	if (e && live_compile(r, e, path, sys, name, prog, len) < 0)
		*prog = NULL, *len = 0; /* said when it was written */
}

/* The event keys of object oi of c: its own, or (a forked child sends no
 * EVENTS for what it inherited) those of the same file in another. */
static const struct rec_object *live_keys_of(struct utrace_recorder *r, struct rec_conn *c,
					     uint32_t oi)
{
	const struct rec_object *o = &c->objs[oi];

	for (uint32_t i = 0; !o->nr_evkeys && i < r->nr_conns; i++)
		for (uint32_t k = 0; k < r->conns[i]->nr_objs; k++)
			if (r->conns[i]->objs[k].nr_evkeys &&
			    !strcmp(r->conns[i]->objs[k].path, o->path))
				return &r->conns[i]->objs[k];
	return o;
}

/* The event's new configuration to one process: an ENABLE per object
 * that has it, then a LIVE_DONE, waited for. */
static int live_ev_send(struct utrace_recorder *r, struct rec_conn *c, struct rec_live_ev *e,
			const char *sys, const char *name, struct utrace_msg_enable *en)
{
	struct utrace_msg_live_done d = {{sizeof(d), UTRACE_MSG_LIVE_DONE}, 0, 0};
	struct rec_conn ch = *c;
	int ret = 0;

	ch.fd = c->live_fd;
	for (uint32_t oi = 0; oi < c->nr_objs && ret >= 0; oi++) {
		const struct rec_object *o = live_keys_of(r, c, oi);

		for (uint32_t i = 0; i < o->nr_evkeys && ret >= 0; i++) {
			const void *prog;
			uint32_t len;

			if (o->evkeys[i].id != e->id ||
			    live_compile(r, e, c->objs[oi].path, sys, name, &prog, &len) < 0 ||
			    sizeof(*en) + len > UTRACE_MSG_MAX)
				continue;
			*en = (struct utrace_msg_enable){{(uint32_t)(sizeof(*en) + len), UTRACE_MSG_ENABLE},
							 oi, o->evkeys[i].key, e->id, len,
							 UTRACE_ENABLE_STATEFUL, 0};
			memcpy(en->filter, prog, len);
			ret = rec_conn_send(&ch, en, en->hdr.size, -1);
		}
	}
	if (ret >= 0)
		ret = rec_conn_send(&ch, &d, sizeof(d), -1);
	if (ret >= 0)
		ret = rec_live_wait(c->live_fd);
	if (ret < 0)
		rec_live_close(c);
	return ret;
}

/* The new configuration of event id to every process with a channel. */
static int live_ev_push(struct utrace_recorder *r, struct rec_live_ev *e, const char *sys,
			const char *name, struct utrace_error *err)
{
	struct utrace_msg_enable *en = malloc(UTRACE_MSG_MAX);
	int failed = 0, ret;

	if (!en)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_ev_send(r, c, e, sys, name, en)) < 0 &&
		    !failed)
			failed = ret;
	}
	free(en);
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return 0;
}

int utrace_recorder_live_filter(struct utrace_recorder *r, const char *system, const char *name,
				const char *filter, struct utrace_error *err)
{
	int id = r->o.events ? utrace_event_select_id(r->o.events, system, name) : -ENOENT;
	struct rec_live_ev *e = id >= 0 ? live_ev(r, id, true) : NULL;
	char *text = filter && *filter ? strdup(filter) : NULL;

	if (!e || (filter && *filter && !text)) {
		free(text);
		return utrace_error_set(err, id < 0 ? id : -ENOMEM, "%s:%s: cannot be filtered",
					system, name);
	}
	free(e->filter);
	e->filter = text;
	return live_ev_push(r, e, system, name, err);
}
