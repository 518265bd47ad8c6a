/* SPDX-License-Identifier: MIT */
/*
 * recorder_livevar.c - what the live tracefs set for each event
 * (struct rec_live_ev, recorder_internal.h), where an event is (its
 * objects' keys, its format there), and the variables its hist triggers
 * define.  Below both recorder_liveev.c, which sets them, and
 * recorder_hist.c, whose $name lookup finds a variable of a trigger the
 * tracefs added (the one of -R's first, by the kernel's rules there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_formats.h"
#include "lib/hist/hist.h"
#include "lib/hist/synth.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_live.h"

/* Event id's settings; a new one (create: sys:name) if it has none. */
struct rec_live_ev *rec_live_ev_of(struct utrace_recorder *r, int id, const char *sys,
				      const char *name)
{
	struct rec_live_ev *e;

	for (e = r->lev->live_evs; e; e = e->next)
		if (e->id == id)
			return e;
	if (!sys || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->id = id;
	snprintf(e->sys, sizeof(e->sys), "%s", sys);
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->next = r->lev->live_evs;
	r->lev->live_evs = e;
	return e;
}

/* trace_marker's event (ftrace:print), the kernel's format (lib/events/
 * ftrace_formats.c): its triggers run in the process the marker is
 * written to (runtime/trace_events.c rt_marker_write). */
static const struct utrace_event_format *rec_print_fmt(struct utrace_recorder *r)
{
	const struct utrace_ftrace_format *ff = utrace_ftrace_format_find("print");
	struct utrace_error err = {0};

	if (!r->lev->print_fmt && ff)
		utrace_event_format_parse("ftrace", ff->text, &r->lev->print_fmt, &err);
	return r->lev->print_fmt;
}

bool rec_is_print(const char *sys, const char *name)
{
	return !strcmp(sys, "ftrace") && !strcmp(name, "print");
}

/* The format of sys:name where path (an object, or UTRACE_EVENT_NOOBJ
 * for the pseudo-objects' events) has it: an object's, a synthetic
 * event's (one defined while running too), an in-process probe's,
 * trace_marker's. */
const struct utrace_event_format *rec_ev_fmt(struct utrace_recorder *r, const char *path,
					     const char *sys, const char *name)
{
	const struct utrace_event_format *f =
	    utrace_event_select_format(r->o.events, path, sys, name);

	for (unsigned i = 0; !f && !strcmp(path, UTRACE_EVENT_NOOBJ) && i < r->o.nr_synths; i++)
		if (!strcmp(sys, "synthetic") && !strcmp(r->o.synths[i]->name, name))
			f = r->o.synths[i]->fmt;
	for (unsigned i = 0; !f && !strcmp(path, UTRACE_EVENT_NOOBJ) && i < r->o.nr_inproc_probes; i++)
		if (!strcmp(utrace_inproc_probe_group(r->o.inproc_probes[i]), sys) &&
		    !strcmp(utrace_inproc_probe_event(r->o.inproc_probes[i]), name))
			f = utrace_inproc_probe_format(r->o.inproc_probes[i]);
	if (!f && !strcmp(path, UTRACE_EVENT_NOOBJ) && rec_is_print(sys, name))
		f = rec_print_fmt(r);
	return f;
}

unsigned rec_live_reader_of(const struct utrace_recorder *r, unsigned spec)
{
	for (const struct rec_live_ev *e = r->lev ? r->lev->live_evs : NULL; e; e = e->next)
		for (unsigned i = 0; i < e->nr_trigs; i++)
			if ((REC_HIST_LIVE | e->trigs[i].serial) == spec)
				return e->trigs[i].reader;
	return 0;
}

unsigned rec_live_vars(struct utrace_recorder *r, unsigned reader, const char *var,
		       const char *sys, const char *ev,
		       void (*cb)(void *arg, const char *sys, const char *ev, const char *text,
				  const struct utrace_trigger *t, unsigned spec, unsigned v),
		       void *arg)
{
	unsigned n = 0;

	for (const struct rec_live_ev *e = r->lev->live_evs; e; e = e->next) {
		if (sys[0] && (strcmp(e->sys, sys) || strcmp(e->name, ev)))
			continue;
		for (unsigned i = 0; i < e->nr_trigs; i++) {
			/* a reader's variables are its own, as the kernel's
			 * of a trace_array */
			const struct utrace_hist_spec *h =
			    e->trigs[i].reader == reader ? e->trigs[i].t->hist : NULL;

			for (unsigned v = 0; h && v < h->nr_vars; v++)
				if (!strcmp(h->vars[v].name, var)) {
					cb(arg, e->sys, e->name, e->trigs[i].text, e->trigs[i].t,
					   REC_HIST_LIVE | e->trigs[i].serial, v);
					n++;
				}
		}
	}
	return n;
}

uint32_t rec_live_nkeys(const struct rec_object *o)
{
	return o->lk ? o->lk->nr_evkeys : 0;
}

void rec_live_keys_free(struct rec_object *o)
{
	if (o->lk)
		free(o->lk->evkeys);
	free(o->lk);
	o->lk = NULL;
}

/* An object path of a traced process whose keys hold event id, else
 * UTRACE_EVENT_NOOBJ (a synthetic event, an in-process probe). */
const char *rec_ev_path(struct utrace_recorder *r, int id)
{
	for (uint32_t c = 0; c < r->nr_conns; c++)
		for (uint32_t oi = 0; oi < r->conns[c]->nr_objs; oi++) {
			const struct rec_object *o = &r->conns[c]->objs[oi];

			for (uint32_t k = 0; k < rec_live_nkeys(o); k++)
				if (o->lk->evkeys[k].id == id)
					return o->path;
		}
	return UTRACE_EVENT_NOOBJ;
}

const struct utrace_event_format *rec_live_fmt(struct utrace_recorder *r, const char *path,
					       const char *sys, const char *name,
					       const char **where)
{
	const struct utrace_event_format *f = rec_ev_fmt(r, path, sys, name);
	int id;

	*where = path;
	if (!f)
		f = rec_ev_fmt(r, (*where = UTRACE_EVENT_NOOBJ), sys, name);
	if (!f && (id = utrace_event_select_id(r->o.events, sys, name)) >= 0)
		f = rec_ev_fmt(r, (*where = rec_ev_path(r, id)), sys, name);
	return f;
}
