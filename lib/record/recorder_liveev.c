/* SPDX-License-Identifier: MIT */
/*
 * recorder_liveev.c - the events of a live recording (utrace record
 * --tracefs): switched on and off, their filters and triggers changed
 * while the programs run (lib/tracefs's events/ files).
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
 * so a process that registers later gets it with its ENABLEs.  The
 * triggers' lists, as the tracefs writes them: recorder_livetrig.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/hist/synth.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_trig.h"

uint8_t *rec_live_ev_state(struct utrace_recorder *r, int id)
{
	uint32_t i = (uint32_t)(id - UTRACE_EV_ID_BASE);

	return id >= UTRACE_EV_ID_BASE && i < UTRACE_EV_STATE_MAX ? &r->ctl->ev_state[i] : NULL;
}

/* The id of sys:name as the tracefs shows it: a kernel event's
 * (recorder_livekev.c) before a user event's of the same name. */
int rec_live_id(const struct utrace_recorder *r, const char *system, const char *name)
{
	int kid = utrace_recorder_live_kid(r, system, name);

	if (kid >= 0)
		return kid;
	return r->o.events ? utrace_event_select_id(r->o.events, system, name) : -ENOENT;
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
	uint8_t *st = rec_live_ev_state(r, id);

	if (obj < c->nr_objs) {
		struct rec_object *o = &c->objs[obj];
		struct rec_live_keys *lk = o->lk ? o->lk : (o->lk = calloc(1, sizeof(*lk)));

		if (lk && UTRACE_GROW(lk->evkeys, lk->cap_evkeys, lk->nr_evkeys + 1) == 0)
			lk->evkeys[lk->nr_evkeys++] = (struct rec_evkey){key, id};
	}
	if (first && st && utrace_event_select_soft(r->o.events, sys, name))
		__atomic_or_fetch(st, UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	return UTRACE_ENABLE_STATEFUL;
}

int utrace_recorder_live_event(struct utrace_recorder *r, const char *system, const char *name,
			       int set)
{
	int id = rec_live_id(r, system, name);
	uint8_t *st = id >= 0 ? rec_live_ev_state(r, id) : NULL;

	if (id < 0)
		return id;
	if (id < UTRACE_EV_ID_BASE)
		return rec_live_kev_enable(r, id, set);
	if (!st)
		return -ENOSPC; /* past the control page's states: cannot be switched */
	if (set == 0)
		__atomic_or_fetch(st, UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	else if (set > 0)
		__atomic_and_fetch(st, (uint8_t)~UTRACE_EVS_OFF, __ATOMIC_RELEASE);
	return !(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UTRACE_EVS_OFF);
}

/* ---- filters ---------------------------------------------------------- */

int rec_live_evs_new(struct utrace_recorder *r)
{
	r->lev = calloc(1, sizeof(*r->lev));
	return r->lev ? 0 : -ENOMEM;
}

void rec_live_ev_free(struct utrace_recorder *r)
{
	while (r->lev && r->lev->live_evs) {
		struct rec_live_ev *e = r->lev->live_evs;

		r->lev->live_evs = e->next;
		for (unsigned i = 0; i < e->nr_trigs; i++) {
			free(e->trigs[i].text);
			utrace_trigger_free(e->trigs[i].t);
		}
		free(e->trigs);
		free(e->filter);
		free(e->prog);
		free(e);
	}
	if (r->lev)
		utrace_event_format_free(r->lev->print_fmt);
	free(r->lev);
	r->lev = NULL;
}

/* e's filter compiled for the event's format f in process c (its
 * FIELD.function's addresses): 0 with *prog (NULL: none), or -errno (it
 * does not fit this layout). */
static int live_compile(struct utrace_recorder *r, struct rec_conn *c, struct rec_live_ev *e,
			const struct utrace_event_format *f, const void **prog, uint32_t *len)
{
	struct rec_func_ctx fx = {r, c};
	struct utrace_error err = {0};
	void *code = NULL;

	*prog = NULL;
	*len = 0;
	if (!e->filter)
		return 0;
	if (!f || utrace_filter_compile_func(f, e->filter, rec_func_range, &fx, &code, len, NULL,
					     &err) < 0)
		return -EINVAL;
	free(e->prog);
	*prog = e->prog = code;
	return 0;
}

void rec_live_event_prog(struct utrace_recorder *r, struct rec_conn *c, const char *path,
			 const char *sys, const char *name, int id, const void **prog,
			 uint32_t *len)
{
	struct rec_live_ev *e = rec_live_ev_of(r, id, NULL, NULL);

	if (e && live_compile(r, c, e, rec_ev_fmt(r, path, sys, name), prog, len) < 0)
		*prog = NULL, *len = 0; /* said when it was written */
}

/* The event keys of object oi of c: its own, or (a forked child sends no
 * EVENTS for what it inherited) those of the same file in another. */
static const struct rec_object *live_keys_of(struct utrace_recorder *r, struct rec_conn *c,
					     uint32_t oi)
{
	const struct rec_object *o = &c->objs[oi];

	/* an object's libcall part (its imports, --libcall: the same path)
	 * has no events: the process would refuse its ENABLE */
	if (o->flags & UTRACE_OBJ_LIBCALL)
		return o;
	for (uint32_t i = 0; !rec_live_nkeys(o) && i < r->nr_conns; i++)
		for (uint32_t k = 0; k < r->conns[i]->nr_objs; k++)
			if (rec_live_nkeys(&r->conns[i]->objs[k]) &&
			    !strcmp(r->conns[i]->objs[k].path, o->path))
				return &r->conns[i]->objs[k];
	return o;
}

/* ---- triggers --------------------------------------------------------- */

/* The command line's triggers of the event (recorder_hist.c and
 * recorder_trig.c send them): hist ones in *nh, the others in *nt. */
void rec_live_spec_counts(struct utrace_recorder *r, const char *sys, const char *name,
			  unsigned *nh, unsigned *nt)
{
	*nh = *nt = 0;
	for (unsigned i = 0; i < utrace_event_select_count(r->o.events); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(r->o.events, i);

		if (!utrace_event_spec_matches(sp->pattern, sys, name))
			continue;
		for (unsigned k = 0; k < sp->nr_triggers; k++)
			(*(strncmp(sp->triggers[k], "hist", 4) ? nt : nh))++;
	}
}

/* Trigger command x of the event to c, its filter compiled for fmt. */
static int live_trig_send(struct rec_conn *c, uint32_t obj, uint32_t key,
			  const struct rec_live_trig *x, const struct utrace_event_format *fmt)
{
	struct utrace_msg_trigger m = {
	    .hdr.type = UTRACE_MSG_TRIGGER,
	    .obj = obj,
	    .key = key,
	    .cmd = rec_trig_cmd(x->t->cmd),
	    .target = x->target,
	    .count_idx = x->count_idx,
	    .reader = x->reader,
	};
	struct utrace_error err = {0};
	void *filter = NULL;
	int ret;

	if (x->t->filter &&
	    utrace_filter_compile(fmt, x->t->filter, &filter, &m.filter_len, &err) < 0)
		return 0; /* does not fit this object's layout: left off */
	ret = rec_conn_send_with(c, &m, sizeof(m), filter, m.filter_len, -1);
	free(filter);
	return ret;
}

/* The tracefs's triggers of an event of format fmt where path has it,
 * before its ENABLE (at most as many as the runtime takes, with the
 * command line's). */
static int live_trigs_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			   uint32_t key, const char *path, const struct utrace_event_format *fmt,
			   const struct rec_live_ev *e)
{
	unsigned nh, nt;
	int ret = 0;

	rec_live_spec_counts(r, fmt ? fmt->system : "", fmt ? fmt->name : "", &nh, &nt);
	for (unsigned i = 0; fmt && i < e->nr_trigs && ret >= 0; i++) {
		const struct rec_live_trig *x = &e->trigs[i];
		struct utrace_error err = {0};
		struct rec_hist *h;

		if (x->t->cmd != UTRACE_TRIG_HIST) {
			if (nt++ < UTRACE_EVENT_TRIGS_MAX)
				ret = live_trig_send(c, obj, key, x, fmt);
			continue;
		}
		h = rec_hist_get(r, REC_HIST_LIVE | x->serial, 0, x->text, x->t, fmt, false, path,
				 &err);
		if (h)
			h->reader = x->reader; /* its disable_hist's state */
		if (h && nh++ < UTRACE_EVENT_HISTS_MAX)
			ret = rec_hist_send_one(r, c, obj, key, h);
	}
	/* the event probes on it (recorder_eprobe.c) */
	return ret < 0 ? ret : rec_eprobe_trigs_send(r, c, obj, key, fmt, &nt);
}

int rec_live_event_trigs(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
			 const char *path, const char *sys, const char *name, int id)
{
	const struct rec_live_ev *e = rec_live_ev_of(r, id, NULL, NULL);

	return e ? live_trigs_send(r, c, obj, key, path, rec_ev_fmt(r, path, sys, name), e) : 0;
}

/* The event's whole configuration for key of object obj (its format fmt
 * where path has it) down c's live channel ch: the command line's
 * triggers and the tracefs's, then the ENABLE with its filter. */
static int live_key_send(struct utrace_recorder *r, struct rec_conn *ch, struct rec_live_ev *e,
			 uint32_t obj, uint32_t key, const char *path,
			 const struct utrace_event_format *fmt, struct utrace_msg_enable *en)
{
	struct utrace_error err = {0};
	const void *prog;
	uint32_t len;
	int ret;

	if (!fmt || live_compile(r, ch, e, fmt, &prog, &len) < 0 ||
	    sizeof(*en) + len > UTRACE_MSG_MAX)
		return 0;
	if ((ret = rec_hist_send(r, ch, obj, key, path, fmt->system, fmt->name, &err)) < 0 ||
	    (ret = rec_trig_send(r, ch, obj, key, path, fmt->system, fmt->name, &err)) < 0 ||
	    (ret = live_trigs_send(r, ch, obj, key, path, fmt, e)) < 0)
		return ret;
	*en = (struct utrace_msg_enable){{(uint32_t)(sizeof(*en) + len), UTRACE_MSG_ENABLE},
					 obj,
					 key,
					 e->id,
					 len,
					 UTRACE_ENABLE_STATEFUL | UTRACE_ENABLE_RECONF,
					 0};
	memcpy(en->filter, prog, len);
	return rec_conn_send(ch, en, en->hdr.size, -1);
}

/* The keys of sys:name in the pseudo-objects (runtime/trace_events.c):
 * synthetic event i is key i of UTRACE_SYNTH_OBJ, in-process probe i key
 * i of UTRACE_INPROC_PROBE_OBJ; each with its configuration to ch. */
static int live_pseudo_send(struct utrace_recorder *r, struct rec_conn *ch,
			    struct rec_live_ev *e, const char *sys, const char *name,
			    struct utrace_msg_enable *en)
{
	int ret = 0;

	for (unsigned i = 0; ret >= 0 && i < r->o.nr_synths && i < UTRACE_SYNTH_MAX; i++)
		if (!strcmp(sys, "synthetic") && !strcmp(r->o.synths[i]->name, name))
			ret = live_key_send(r, ch, e, UTRACE_SYNTH_OBJ, i, UTRACE_EVENT_NOOBJ,
					    r->o.synths[i]->fmt, en);
	for (unsigned i = 0; ret >= 0 && i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++)
		if (!strcmp(utrace_inproc_probe_group(r->o.inproc_probes[i]), sys) &&
		    !strcmp(utrace_inproc_probe_event(r->o.inproc_probes[i]), name))
			ret = live_key_send(r, ch, e, UTRACE_INPROC_PROBE_OBJ, i, UTRACE_EVENT_NOOBJ,
					    utrace_inproc_probe_format(r->o.inproc_probes[i]), en);
	if (ret >= 0 && rec_is_print(sys, name)) /* trace_marker's event: key 0 */
		ret = live_key_send(r, ch, e, UTRACE_PRINT_OBJ, 0, UTRACE_EVENT_NOOBJ,
				    rec_ev_fmt(r, UTRACE_EVENT_NOOBJ, sys, name), en);
	return ret;
}

/* The event's new configuration to one process: an ENABLE per object
 * that has it, then a LIVE_DONE, waited for. */
static int live_ev_send(struct utrace_recorder *r, struct rec_conn *c, struct rec_live_ev *e,
			const char *sys, const char *name, struct utrace_msg_enable *en)
{
	struct rec_conn ch = *c;
	int ret = 0;

	ch.fd = c->live_fd;
	for (uint32_t oi = 0; oi < c->nr_objs && ret >= 0; oi++) {
		const struct rec_object *o = live_keys_of(r, c, oi);
		const char *path = c->objs[oi].path;

		for (uint32_t i = 0; i < rec_live_nkeys(o) && ret >= 0; i++)
			if (o->lk->evkeys[i].id == e->id)
				ret = live_key_send(r, &ch, e, oi, o->lk->evkeys[i].key, path,
						    rec_ev_fmt(r, path, sys, name), en);
	}
	if (ret >= 0)
		ret = live_pseudo_send(r, &ch, e, sys, name, en);
	return rec_live_done(c, &ch, ret);
}

/* The new configuration of event id to every process with a channel;
 * one that went away meanwhile (its exit not read yet: its channel is
 * still open here) fails no write, as the kernel has no such process. */
int rec_live_ev_push(struct utrace_recorder *r, struct rec_live_ev *e, const char *sys,
		     const char *name, struct utrace_error *err)
{
	struct utrace_msg_enable *en;
	int failed = 0, ret;

	if (e->id < UTRACE_EV_ID_BASE) /* a kernel event's: run here */
		return rec_live_kev_push(r, e, err);
	if (!(en = malloc(UTRACE_MSG_MAX)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 &&
		    (ret = live_ev_send(r, c, e, sys, name, en)) < 0 && !rec_live_gone(ret) &&
		    !failed)
			failed = ret;
	}
	free(en);
	for (unsigned i = 0; !strcmp(sys, "synthetic") && i < r->o.nr_synths; i++)
		if (!strcmp(r->o.synths[i]->name, name)) /* fired by kernel events too */
			rec_live_ksynth_hists(r, i, e);
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return 0;
}

int utrace_recorder_live_eprobes(struct utrace_recorder *r, const char *system, const char *name,
				 struct utrace_error *err)
{
	int id = rec_live_id(r, system, name), ret;
	struct rec_live_ev *e;

	if ((ret = rec_kep_bind_all(r, system, name, err)) < 0)
		return ret;
	if (id < UTRACE_EV_ID_BASE) /* a kernel event: no process has it */
		return 0;
	if (!(e = rec_live_ev_of(r, id, system, name)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return rec_live_ev_push(r, e, system, name, err);
}

int utrace_recorder_live_filter(struct utrace_recorder *r, const char *system, const char *name,
				const char *filter, struct utrace_error *err)
{
	int id = rec_live_id(r, system, name);
	struct rec_live_ev *e = id >= 0 ? rec_live_ev_of(r, id, system, name) : NULL;
	char *text = filter && *filter ? strdup(filter) : NULL;

	if (!e || (filter && *filter && !text)) {
		free(text);
		return utrace_error_set(err, id < 0 ? id : -ENOMEM, "%s:%s: cannot be filtered",
					system, name);
	}
	free(e->filter);
	e->filter = text;
	return rec_live_ev_push(r, e, system, name, err);
}
