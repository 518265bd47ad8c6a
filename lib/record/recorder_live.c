/* SPDX-License-Identifier: MIT */
/*
 * recorder_live.c - changes made while the traced programs run (utrace
 * record --tracefs): the recorder's end of each process's live channel
 * (common/proto.h, runtime/live.c).
 *
 * A change of tracer or function filter is made in r->o first, so that a
 * process registering later gets it in its CONFIG and SELECTs; then every
 * process with a channel gets the TRACER, the SELECTs of all its objects
 * (recorder_msg.c computes them as at registration) and a LIVE_DONE, and
 * is waited for: when the write to current_tracer returns, the sites are
 * patched.  A process that does not answer within REC_LIVE_WAIT_MS, or whose
 * channel fails, has its channel closed; it keeps its sites as they were.
 *
 * A probe added while running (dynamic_events) gets the next key and its
 * own event id; its format goes into the file at once, its event starts
 * off (the control page's ev_state, the runtime's ENABLE is STATEFUL),
 * and each process is sent its ENABLE, then, per object that defines the
 * symbol, a slot asked for (INPROC_PROBE_SLOT) and the INPROC_PROBE made for it by
 * the install path of registration (recorder_inproc_probe.c
 * rec_inproc_probe_install), and a last INPROC_PROBE that installs them.  Processes that start later get it as the probes of the command
 * line.  Its removal is utrace_recorder_inproc_probe_remove's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/uio.h>

#include "lib/base/grow.h"
#include "lib/elf/symtab.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/synth.h"
#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_inproc_probe.h"
#include "lib/record/recorder_libcall.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_symtab.h"


static int live_one(struct utrace_recorder *r, struct rec_conn *c)
{
	struct utrace_msg_tracer t = {{sizeof(t), UTRACE_MSG_TRACER}, r->o.tracer, 0,
				      r->o.max_depth, (uint32_t)(r->o.thresh_ns / 1000)};
	struct rec_conn ch = *c;
	int ret;

	/* the SELECTs go down the live channel, not the registration socket */
	ch.fd = c->live_fd;
	if (r->o.filter && utrace_func_filter_count(r->o.filter, UTRACE_GRAPH))
		t.flags = UTRACE_CFG_GRAPH_FUNCS;
	if (r->o.funcgraph_retval)
		t.flags |= UTRACE_CFG_GRAPH_RETVAL;
	ret = rec_conn_send(&ch, &t, sizeof(t), -1);
	for (uint32_t i = 0; ret >= 0 && i < c->nr_objs; i++)
		if (c->objs[i].nr_sites && c->objs[i].received == c->objs[i].nr_sites)
			ret = rec_conn_select(r, &ch, i);
	return rec_live_done(c, &ch, ret);
}

int utrace_recorder_live_set(struct utrace_recorder *r, enum utrace_tracer tracer,
			     const struct utrace_func_filter *filter, uint32_t max_depth,
			     struct utrace_error *err)
{
	size_t nexpr = filter ? utrace_func_filter_total(filter) + 1 : 1;
	int failed = 0, ret;

	if (UTRACE_GROW(r->filter_hits, r->cap_filter_hits, nexpr) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memset(r->filter_hits, 0, nexpr * sizeof(uint32_t));
	r->o.tracer = tracer;
	if (tracer > r->tracer_max)
		r->tracer_max = tracer;
	r->o.filter = filter;
	r->o.max_depth = max_depth;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_one(r, c)) < 0 &&
		    !rec_live_gone(ret) && !failed) /* gone meanwhile: not an error */
			failed = ret;
	}
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return 0;
}

int utrace_recorder_live_stack(struct utrace_recorder *r, bool on,
			       const struct utrace_func_filter *filter, struct utrace_error *err)
{
	int failed = 0, ret;

	if (r->stack_on == on && (!on || r->stack_filter == filter)) {
		r->stack_filter = filter; /* off: for when it is turned on */
		return 0;
	}
	r->stack_on = on;
	r->stack_filter = filter;
	/* before the SELECTs: the runtimes read it as they apply them */
	__atomic_store_n(&r->ctl->stack.enabled, on ? 1u : 0u, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_one(r, c)) < 0 &&
		    !rec_live_gone(ret) && !failed)
			failed = ret;
	}
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return 0;
}

int utrace_recorder_live_graph_retval(struct utrace_recorder *r, bool on, struct utrace_error *err)
{
	int failed = 0, ret;

	if (r->o.funcgraph_retval == on)
		return 0;
	r->o.funcgraph_retval = on;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_one(r, c)) < 0 &&
		    !rec_live_gone(ret) && !failed)
			failed = ret;
	}
	if (failed)
		return utrace_error_set(err, failed, "a traced process did not take the change: %s",
					strerror(-failed));
	return 0;
}

uint32_t utrace_recorder_tracing_on(struct utrace_recorder *r, int set)
{
	if (set >= 0)
		__atomic_store_n(&r->ctl->tracing_on, set ? 1u : 0u, __ATOMIC_RELEASE);
	return __atomic_load_n(&r->ctl->tracing_on, __ATOMIC_ACQUIRE);
}

int utrace_recorder_sync(struct utrace_recorder *r, struct utrace_error *err)
{
	/* every sub-buffer finished, then what the threads committed of the
	 * ones they write: a read holds every record committed before it */
	for (uint32_t i = 0; i < r->nr_bufs; i++)
		if (!r->bufs[i]->done && (rec_drain(r, r->bufs[i], false, err) < 0 ||
					  rec_drain_partial(r, r->bufs[i], err) < 0))
			return err->code;
	return r->w ? utrace_dat_writer_flush(r->w, err) : 0;
}

/* Each object once (a forked child holds its parent's), by path; the
 * library calls of an object (its libcall part, the same path) apart. */
static bool live_seen(struct utrace_recorder *r, uint32_t ci, uint32_t oi)
{
	const struct rec_object *o = &r->conns[ci]->objs[oi];

	for (uint32_t i = 0; i <= ci; i++)
		for (uint32_t k = 0; k < (i == ci ? oi : r->conns[i]->nr_objs); k++) {
			const struct rec_object *p = &r->conns[i]->objs[k];

			if (!strcmp(p->path, o->path) &&
			    (p->flags & UTRACE_OBJ_LIBCALL) == (o->flags & UTRACE_OBJ_LIBCALL))
				return true;
		}
	return false;
}

/* The library calls of a libcall part o, by their imports' names (those
 * the runtime may hook). */
static void live_libcalls(struct rec_object *o, utrace_recorder_func_cb cb, void *arg)
{
	for (uint32_t i = 0; i < o->nr_sites; i++) {
		const char *raw = NULL, *name = rec_libcall_name(o->syms, o->vaddrs[i], &raw);

		if (name && !rec_libcall_refused(raw))
			cb(arg, name, raw, o->path, false);
	}
}

void utrace_recorder_live_functions(struct utrace_recorder *r, utrace_recorder_func_cb cb,
				    void *arg)
{
	for (uint32_t ci = 0; ci < r->nr_conns; ci++) {
		struct rec_conn *c = r->conns[ci];

		for (uint32_t oi = 0; oi < c->nr_objs; oi++) {
			struct rec_object *o = &c->objs[oi];

			if (!o->nr_sites || o->received != o->nr_sites || live_seen(r, ci, oi))
				continue;
			if (!o->syms)
				o->syms = rec_symtab_get(r, o->path);
			if (o->flags & UTRACE_OBJ_LIBCALL) {
				live_libcalls(o, cb, arg);
				continue;
			}
			for (uint32_t i = 0; o->syms && o->syms->tab && i < o->nr_sites; i++) {
				const struct utrace_sym *s;
				uint64_t off;

				if (o->vaddrs[i] &&
				    (s = utrace_symtab_lookup(o->syms->tab, o->vaddrs[i], &off)))
					cb(arg, s->name, s->raw, o->path,
					   (o->flags & UTRACE_OBJ_MAIN) != 0);
			}
		}
	}
}

void utrace_recorder_live_symbols(struct utrace_recorder *r, utrace_recorder_sym_cb cb, void *arg)
{
	for (uint32_t ci = 0; ci < r->nr_conns; ci++) {
		struct rec_conn *c = r->conns[ci];

		for (uint32_t oi = 0; oi < c->nr_objs; oi++) {
			struct rec_object *o = &c->objs[oi];
			const struct utrace_sym *s;

			if ((o->flags & UTRACE_OBJ_LIBCALL) || live_seen(r, ci, oi))
				continue;
			if (!o->syms)
				o->syms = rec_symtab_get(r, o->path);
			for (size_t i = 0;
			     o->syms && o->syms->tab && (s = utrace_symtab_get(o->syms->tab, i));
			     i++)
				cb(arg, o->bias + s->vaddr, s->size, s->type, s->raw, o->path,
				   (o->flags & UTRACE_OBJ_MAIN) != 0);
		}
	}
}

void utrace_recorder_live_objects(struct utrace_recorder *r, void (*cb)(void *arg, const char *path),
				  void *arg)
{
	for (uint32_t ci = 0; ci < r->nr_conns; ci++)
		for (uint32_t oi = 0; oi < r->conns[ci]->nr_objs; oi++)
			cb(arg, r->conns[ci]->objs[oi].path);
}

int utrace_recorder_live_marker(struct utrace_recorder *r, unsigned reader, int32_t pid,
				const char *text, size_t len, struct utrace_error *err)
{
	struct utrace_msg_marker m = {{0, UTRACE_MSG_MARKER}, reader, 0};
	int ret;

	/* the kernel's timeline: the writer's record, its triggers with the
	 * kernel events' (recorder_kmarker.c) */
	if (rec_kmerge_print_id(r) >= 0)
		return rec_kmerge_marker(r, reader, pid, text, len, err);

	if (len > UTRACE_MSG_MAX - sizeof(m))
		len = UTRACE_MSG_MAX - sizeof(m);
	/* the first process that has a channel: the command itself */
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i], ch = *c;

		if (!c->open || c->live_fd < 0)
			continue;
		ch.fd = c->live_fd;
		ret = rec_conn_send_with(&ch, &m, sizeof(m), text, len, -1);
		if (ret >= 0)
			ret = rec_live_wait(c->live_fd);
		if (ret == -ETIMEDOUT || ret == -EPROTO)
			rec_live_close(c);
		return ret < 0 ? utrace_error_set(err, ret, "the marker was not written: %s",
						  strerror(-ret))
			       : (int)len;
	}
	return utrace_error_set(err, -ESRCH, "no traced process to write the marker");
}

/* ---- probes added while the programs run (dynamic_events) ------------ */

/* A free slot of object obj's probe area (*slot UINT32_MAX: none). */
static int live_slot_ask(struct rec_conn *ch, uint32_t obj, uint64_t *area, uint32_t *slot)
{
	struct utrace_msg_inproc_probe_slot s = {{sizeof(s), UTRACE_MSG_INPROC_PROBE_SLOT}, obj, 0, 0};
	int ret = rec_conn_send(ch, &s, sizeof(s), -1);

	if (ret < 0 || (ret = rec_live_answer(ch->fd, &s, sizeof(s), UTRACE_MSG_INPROC_PROBE_SLOT)) < 0)
		return ret;
	if (s.obj != obj)
		return -EPROTO;
	*area = s.addr;
	*slot = s.slot;
	return 0;
}

/* Probe key's INPROC_PROBE for object oi of c, if the object defines its
 * symbol: a slot asked for, then the install path of registration
 * (recorder_inproc_probe.c) for that one probe. */
static int live_inproc_probe_object(struct utrace_recorder *r, struct rec_conn *ch, unsigned key,
			      uint32_t oi, struct utrace_msg_inproc_probe *m)
{
	const struct rec_object *o = &ch->objs[oi];
	struct utrace_msg_inproc_probe_area am = {{sizeof(am), UTRACE_MSG_INPROC_PROBE_AREA}, oi,
					    UTRACE_INPROC_PROBE_AREA, 0};
	struct utrace_inproc_probe_loc loc;
	struct utrace_error e;
	uint32_t slot;
	int ret;

	if ((o->flags & UTRACE_OBJ_LIBCALL) || o->received != o->nr_sites ||
	    utrace_inproc_probe_locate(r->o.inproc_probes[key], o->path, o->vaddrs, o->nr_sites, 0, NULL, 0,
				 &loc, &e) <= 0)
		return 0; /* not there (an error is said by rec_inproc_probe_install below) */
	if ((ret = live_slot_ask(ch, oi, &am.addr, &slot)) < 0)
		return ret;
	if (slot == UINT32_MAX)
		am.size = 0; /* rec_inproc_probe_install says "no room" */
	return rec_inproc_probe_install(r, ch, oi, &am, key, key + 1, &slot, m);
}

/* The probe into one process: its event, its locations, installed. */
static int live_inproc_probe_conn(struct utrace_recorder *r, struct rec_conn *c, unsigned key,
			    struct utrace_msg_inproc_probe *m)
{
	struct rec_conn ch = *c;
	int ret;

	ch.fd = c->live_fd; /* everything goes down the live channel */
	ret = rec_inproc_probe_live_enable(r, &ch, key, (struct utrace_msg_enable *)m);
	for (uint32_t oi = 0; ret >= 0 && oi < c->nr_objs; oi++)
		ret = live_inproc_probe_object(r, &ch, key, oi, m);
	if (ret >= 0)
		ret = rec_inproc_probe_done(&ch, UTRACE_INPROC_PROBE_OBJ, m);
	if (ret >= 0)
		ret = rec_live_wait(c->live_fd);
	if (ret == -ETIMEDOUT || ret == -EPROTO || ret == -EPIPE || ret == -ECONNRESET)
		rec_live_close(c);
	return ret;
}

/* A process that did not take an event added while running: said,
 * unless it went away meanwhile (it exited or exec'ed: nothing to say);
 * the event is the recording's all the same. */
static void live_not_taken(struct utrace_recorder *r, struct rec_conn *c, const char *what,
			   int ret)
{
	char text[160];

	if (rec_live_gone(ret))
		return;
	snprintf(text, sizeof(text), "the %s added to the tracefs is not in this process: %s",
		 what, strerror(-ret));
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, c->pid, text);
}

int utrace_recorder_inproc_probe_check(struct utrace_recorder *r, const struct utrace_inproc_probe *p,
				 struct utrace_error *err)
{
	struct utrace_inproc_probe_loc loc;
	struct utrace_error e;
	int ret;

	for (uint32_t i = 0; i < r->nr_conns; i++) {
		const struct rec_conn *c = r->conns[i];

		for (uint32_t oi = 0; c->open && oi < c->nr_objs; oi++) {
			const struct rec_object *o = &c->objs[oi];

			if ((o->flags & UTRACE_OBJ_LIBCALL) || o->received != o->nr_sites)
				continue;
			memset(&e, 0, sizeof(e));
			ret = utrace_inproc_probe_locate(p, o->path, o->vaddrs, o->nr_sites, 0, NULL, 0,
							 &loc, &e);
			if (ret > 0)
				ret = rec_inproc_probe_in_jmp(r, o, p, loc.vaddr, &e);
			if (ret == -EILSEQ) {
				*err = e;
				return -EILSEQ;
			}
		}
	}
	return 0;
}

int utrace_recorder_inproc_probe_add(struct utrace_recorder *r, struct utrace_inproc_probe *p, int id,
			       const char *format, struct utrace_error *err)
{
	uint8_t *st = id >= UTRACE_EV_ID_BASE && id < UTRACE_EV_ID_BASE + UTRACE_EV_STATE_MAX
			  ? &r->ctl->ev_state[id - UTRACE_EV_ID_BASE]
			  : NULL;
	struct utrace_dat_event_format ef = {.id = (uint32_t)id};
	const char *sys = utrace_inproc_probe_group(p);
	struct iovec iov[3] = {{&ef, sizeof(ef)},
			       {(void *)sys, strlen(sys) + 1},
			       {(void *)format, format ? strlen(format) + 1 : 0}};
	struct utrace_msg_inproc_probe *m;
	int key = -1, ret = 0;

	if (!st)
		ret = utrace_error_set(err, -ENOSPC, "no event id left for the probe");
	else if ((!format || (ret = utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err)) >= 0) &&
		 (key = rec_inproc_probe_key_new(r, p, id)) < 0)
		ret = utrace_error_set(err, key, "%s",
				       key == -ENOSPC ? "too many probes" : "out of memory");
	if (ret < 0) {
		utrace_inproc_probe_free(p);
		return ret;
	}
	/* off until its enable file says 1, as the kernel's new event (an
	 * appended point: as its event is) */
	if (format)
		__atomic_fetch_or(st, UTRACE_EVS_OFF, __ATOMIC_ACQ_REL);
	if (!(m = malloc(UTRACE_MSG_MAX)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_inproc_probe_conn(r, c, key, m)) < 0)
			live_not_taken(r, c, "probe", ret);
	}
	free(m);
	return key;
}

/* An event's switch on the control page: on 1 clears its OFF bit, 0 sets
 * it, -1 reads; whether it is on now.  The runtime reads it at every hit
 * (acquire, runtime/trace_events.c). */
static int ev_switch(uint8_t *st, int on)
{
	if (on > 0)
		__atomic_fetch_and(st, (uint8_t)~UTRACE_EVS_OFF, __ATOMIC_ACQ_REL);
	else if (on == 0)
		__atomic_fetch_or(st, UTRACE_EVS_OFF, __ATOMIC_ACQ_REL);
	return !(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UTRACE_EVS_OFF);
}

int utrace_recorder_inproc_probe_enable(struct utrace_recorder *r, const char *group, const char *event,
				  int on)
{
	for (unsigned i = r->o.nr_inproc_probes; i-- > 0;) {
		const struct utrace_inproc_probe *p = r->o.inproc_probes[i];
		int id = rec_inproc_probe_live_id(r, i);

		if (strcmp(utrace_inproc_probe_group(p), group) || strcmp(utrace_inproc_probe_event(p), event))
			continue;
		if (!id)
			return -ENOENT; /* from the command line */
		if (utrace_ctl_inproc_probe_off(r->ctl, i))
			continue; /* removed: another point of the event may be on */
		return ev_switch(&r->ctl->ev_state[id - UTRACE_EV_ID_BASE], on);
	}
	return -ENOENT;
}

void rec_live_free_synths(struct utrace_recorder *r);

/* o.synths when one is defined while running: those from
 * synth_first_live on are the recorder's (a removed one's name is "") */
struct rec_live {
	struct utrace_synth **synth_own;
	unsigned synth_first_live;
};

int rec_live_new(struct utrace_recorder *r)
{
	r->live = calloc(1, sizeof(*r->live));
	return r->live ? 0 : -ENOMEM;
}

void rec_live_free(struct utrace_recorder *r)
{
	if (!r->live)
		return;
	rec_live_free_synths(r);
	free(r->live);
	r->live = NULL;
}

void rec_live_free_synths(struct utrace_recorder *r)
{
	if (!r->live->synth_own)
		return;
	for (unsigned i = r->live->synth_first_live; i < r->o.nr_synths; i++)
		utrace_synth_free(r->live->synth_own[i]);
	free(r->live->synth_own);
	r->live->synth_own = NULL;
}

/* ---- synthetic events defined while the programs run ------------------ */

int utrace_recorder_synth_add(struct utrace_recorder *r, struct utrace_synth *s, int id,
			      const char *format, struct utrace_error *err)
{
	struct utrace_dat_event_format ef = {.id = (uint32_t)id};
	struct iovec iov[3] = {{&ef, sizeof(ef)},
			       {(void *)"synthetic", sizeof("synthetic")},
			       {(void *)format, strlen(format) + 1}};
	struct utrace_msg_enable en = {{sizeof(en), UTRACE_MSG_ENABLE}, UTRACE_SYNTH_OBJ, 0, id, 0,
				       UTRACE_ENABLE_STATEFUL, 0};
	unsigned n = r->o.nr_synths;
	int ret;

	if (n >= UTRACE_SYNTH_MAX || id < UTRACE_EV_ID_BASE ||
	    id >= UTRACE_EV_ID_BASE + UTRACE_EV_STATE_MAX) {
		utrace_synth_free(s);
		return utrace_error_set(err, -ENOSPC, "too many synthetic events");
	}
	if (!r->live->synth_own) {
		if (!(r->live->synth_own = calloc(UTRACE_SYNTH_MAX, sizeof(*r->live->synth_own)))) {
			utrace_synth_free(s);
			return utrace_error_set(err, -ENOMEM, "out of memory");
		}
		if (n)
			memcpy(r->live->synth_own, r->o.synths, n * sizeof(*r->live->synth_own));
		r->live->synth_first_live = n;
		r->o.synths = r->live->synth_own;
	}
	if (utrace_dat_write(r->w, UTRACE_DAT_EVENT_FORMAT, iov, 3, err) < 0) {
		utrace_synth_free(s);
		return err->code;
	}
	/* off until its enable file says 1, as the kernel's */
	__atomic_fetch_or(&r->ctl->ev_state[id - UTRACE_EV_ID_BASE], UTRACE_EVS_OFF,
			  __ATOMIC_ACQ_REL);
	r->live->synth_own[n] = s;
	r->o.nr_synths = n + 1; /* an EMIT's id: n, for the triggers compiled from now on */
	if (rec_live_ksynth_add(r, n, err) < 0 && r->o.notice) /* kernel events cannot fire it */
		r->o.notice(r->o.notice_arg, 0, err->msg);
	en.key = n;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i], ch = *c;

		if (!c->open || c->live_fd < 0)
			continue;
		ch.fd = c->live_fd;
		ret = rec_conn_send(&ch, &en, sizeof(en), -1);
		if (ret >= 0)
			ret = rec_live_wait(c->live_fd);
		if (ret == -ETIMEDOUT || ret == -EPROTO)
			rec_live_close(c);
		if (ret < 0)
			live_not_taken(r, c, "synthetic event", ret);
	}
	return (int)n;
}

/* The synthetic event named so, defined while running: its index. */
static int live_synth_find(struct utrace_recorder *r, const char *name)
{
	const struct rec_live *l = r->live;

	for (unsigned i = l->synth_own ? l->synth_first_live : r->o.nr_synths; i < r->o.nr_synths;
	     i++)
		if (l->synth_own[i]->name[0] && !strcmp(l->synth_own[i]->name, name))
			return (int)i;
	return -ENOENT;
}

int utrace_recorder_synth_enable(struct utrace_recorder *r, const char *name, int id, int on)
{
	int i = live_synth_find(r, name);

	if (i < 0 || id < UTRACE_EV_ID_BASE || id >= UTRACE_EV_ID_BASE + UTRACE_EV_STATE_MAX)
		return -ENOENT;
	if (on >= 0)
		rec_live_ksynth_enable(r, (unsigned)i, on);
	return ev_switch(&r->ctl->ev_state[id - UTRACE_EV_ID_BASE], on);
}

int utrace_recorder_synth_remove(struct utrace_recorder *r, const char *name, int id)
{
	int i = live_synth_find(r, name);

	if (i < 0)
		return i;
	utrace_recorder_synth_enable(r, name, id, 0);
	/* its index stays an EMIT's id (triggers compiled with it may still
	 * fire: recorded no more); its name goes, for a new one to take */
	r->live->synth_own[i]->name[0] = 0;
	return 0;
}

int utrace_recorder_live_thresh(struct utrace_recorder *r, uint64_t usecs, struct utrace_error *err)
{
	uint64_t old = r->o.thresh_ns;
	int ret;

	if (usecs > UINT32_MAX)
		return utrace_error_set(err, -EINVAL, "tracing_thresh: %llu us is too long",
					(unsigned long long)usecs);
	r->o.thresh_ns = usecs * 1000;
	ret = utrace_recorder_live_set(r, r->o.tracer, r->o.filter, r->o.max_depth, err);
	if (ret < 0)
		r->o.thresh_ns = old;
	return ret;
}

unsigned utrace_recorder_live_buffers(struct utrace_recorder *r)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < r->nr_bufs; i++)
		n += !r->bufs[i]->done;
	return n;
}
