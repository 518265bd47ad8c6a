/* SPDX-License-Identifier: MIT */
/*
 * recorder_inproc_probe.c - the recorder's side of the in-process probes
 * (common/proto.h KPROBE_AREA and KPROBE; their events' ENABLEs are
 * recorder_msg.c's, after CONFIG): for each object a process registers,
 * once it names its probe area, every probe whose symbol the object
 * defines, located, relocated and compiled by lib/probes for that object
 * and that area.  A probe added while running (recorder_live.c) goes
 * through the same install path (rec_kprobe_install) with the slot the
 * runtime gave it, and a removed probe is skipped by both.  Removal while
 * the programs run: a bit of the shared control page (common/proto.h
 * kp_off) that every process's runtime acts on.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_inproc_probe.h"

static void rec_kprobe_notice(struct utrace_recorder *r, struct rec_conn *c,
			      const struct utrace_kprobe *p, const char *why)
{
	char text[512];

	snprintf(text, sizeof(text), "probe %s:%s: %s; it stays off",
		 utrace_kprobe_group(p), utrace_kprobe_event(p), why);
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, c->pid, text);
}

/* Probe i in object o, at slot *slot of the area: its KPROBE into m. */
static int rec_kprobe_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			  const struct utrace_msg_kprobe_area *am, unsigned i, uint32_t *slot,
			  const uint64_t *others, size_t nothers, struct utrace_msg_kprobe *m)
{
	const struct utrace_kprobe *p = r->o.kprobes[i];
	const struct rec_object *o = &c->objs[obj];
	struct utrace_kprobe_loc loc;
	struct utrace_error e = {0};
	uint32_t len;
	void *prog;
	int ret;

	ret = utrace_kprobe_locate(p, o->path, o->vaddrs, o->nr_sites, am->addr + *slot - o->bias,
				   others, nothers, &loc, &e);
	if (ret <= 0) {
		if (ret < 0)
			rec_kprobe_notice(r, c, p, e.msg);
		return 0;
	}
	if (loc.site != UINT32_MAX && (o->flags & UTRACE_OBJ_FPATCH)) {
		rec_kprobe_notice(r, c, p, "on the entry of a function patched for tracing (an "
					   "object without call sites): not supported");
		return 0;
	}
	if (!am->size || *slot + UTRACE_KPROBE_SLOT > am->size) { /* every probe has a slot */
		rec_kprobe_notice(r, c, p, "no room for its slot near the object");
		return 0;
	}
	if (utrace_kprobe_compile_in(p, o->path, o->bias, &prog, &len, &e) < 0) {
		rec_kprobe_notice(r, c, p, e.msg);
		return 0;
	}
	if (sizeof(*m) + UTRACE_KPROBE_XOL + len > UTRACE_MSG_MAX) {
		free(prog);
		rec_kprobe_notice(r, c, p, "its fetch-args are too large");
		return 0;
	}
	memset(m, 0, sizeof(*m) + UTRACE_KPROBE_XOL);
	m->hdr.type = UTRACE_MSG_KPROBE;
	m->hdr.size = (uint32_t)(sizeof(*m) + UTRACE_KPROBE_XOL + len);
	m->obj = obj;
	m->key = i;
	m->how = loc.site != UINT32_MAX ? UTRACE_KPH_SITE : loc.jmp ? UTRACE_KPH_JMP : UTRACE_KPH_INT3;
	m->is_return = loc.kind == UTRACE_KP_RETURN;
	m->addr = o->bias + loc.vaddr;
	m->func = o->bias + loc.func;
	m->call_to = loc.call_to ? o->bias + loc.call_to : 0;
	m->site = loc.site;
	m->slot = *slot;
	m->insn_len = loc.insn_len;
	m->xol_len = loc.xol_len;
	m->prog_len = len;
	memcpy(m->data, loc.xol, loc.xol_len);
	memcpy(m->data + UTRACE_KPROBE_XOL, prog, len);
	free(prog);
	*slot += UTRACE_KPROBE_SLOT;
	return rec_conn_send(c, m, m->hdr.size, -1);
}

/*
 * The one install path of the in-process probes, at registration
 * (rec_kprobe_area: every probe) and for a probe added while running
 * (recorder_live.c: that one): where the object's probes that are on land
 * first (a jmp must cover none of them), then a KPROBE for each probe of
 * [from, to) that is on, at the slots from *slot on.  A removed probe
 * (kp_off) is neither installed nor in the way.
 */
int rec_kprobe_install(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
		       const struct utrace_msg_kprobe_area *am, unsigned from, unsigned to,
		       uint32_t *slot, struct utrace_msg_kprobe *m)
{
	const struct rec_object *o = &c->objs[obj];
	uint64_t *at = calloc(r->o.nr_kprobes + 1, sizeof(*at));
	size_t nat = 0;
	int ret = 0;

	if (!at)
		return -ENOMEM;
	for (unsigned i = 0; i < r->o.nr_kprobes && i < UTRACE_KPROBE_MAX; i++) {
		struct utrace_kprobe_loc loc;
		struct utrace_error e;

		if (!utrace_ctl_kprobe_off(r->ctl, i) &&
		    utrace_kprobe_locate(r->o.kprobes[i], o->path, o->vaddrs, o->nr_sites, 0, NULL,
					 0, &loc, &e) > 0)
			at[nat++] = loc.vaddr;
	}
	for (unsigned i = from; i < to && i < r->o.nr_kprobes && i < UTRACE_KPROBE_MAX && ret >= 0;
	     i++)
		if (!utrace_ctl_kprobe_off(r->ctl, i))
			ret = rec_kprobe_one(r, c, obj, am, i, slot, at, nat, m);
	free(at);
	return ret;
}

/* The KPROBE that ends a batch (of object obj, or UTRACE_KPROBE_OBJ). */
int rec_kprobe_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_kprobe *m)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = UTRACE_MSG_KPROBE;
	m->hdr.size = sizeof(*m);
	m->obj = obj;
	m->key = UTRACE_ENABLE_DONE;
	return rec_conn_send(c, m, sizeof(*m), -1);
}

int rec_kprobe_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		    struct utrace_error *err)
{
	const struct utrace_msg_kprobe_area *am = buf;
	struct utrace_msg_kprobe *m;
	uint32_t slot = 0;
	int ret;

	(void)err;
	if (n < sizeof(*am) || am->obj >= c->nr_objs)
		return -EPROTO;
	if (!(m = malloc(UTRACE_MSG_MAX)))
		return -ENOMEM;
	ret = rec_kprobe_install(r, c, am->obj, am, 0, UTRACE_KPROBE_MAX, &slot, m);
	if (ret >= 0)
		ret = rec_kprobe_done(c, am->obj, m);
	free(m);
	return ret;
}

int utrace_recorder_kprobe_remove(struct utrace_recorder *r, const char *group, const char *event,
				  struct utrace_error *err)
{
	for (unsigned i = 0; i < r->o.nr_kprobes && i < UTRACE_KPROBE_MAX; i++) {
		const struct utrace_kprobe *p = r->o.kprobes[i];

		if (strcmp(utrace_kprobe_event(p), event) != 0 ||
		    (group && strcmp(utrace_kprobe_group(p), group) != 0))
			continue;
		if (!utrace_ctl_kprobe_set_off(r->ctl, i))
			continue; /* off already: another of that name may be on */
		/* every process's helper sleeps on kp_gen (a shared futex) */
		syscall(SYS_futex, &r->ctl->kp_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
		return 0;
	}
	return utrace_error_set(err, -ENOENT, "no in-process probe %s%s%s in this recording",
				group ? group : "", group ? "/" : "", event);
}

/* o.kprobes and the probes added while running (the recorder's:
 * o.kprobes points at own once one is); by key, the event id of one
 * added while running, 0 for the others */
struct rec_kprobes {
	struct utrace_kprobe **own;
	int32_t *live_id;
};

int rec_kprobe_new(struct utrace_recorder *r)
{
	r->kp = calloc(1, sizeof(*r->kp));
	return r->kp ? 0 : -ENOMEM;
}

/* The key the probe gets: o.kprobes copied into the recorder's own
 * array the first time, p appended. */
int rec_kprobe_key_new(struct utrace_recorder *r, struct utrace_kprobe *p, int id)
{
	unsigned n = r->o.nr_kprobes;

	if (n >= UTRACE_KPROBE_MAX)
		return -ENOSPC;
	if (!r->kp->own) {
		if (!(r->kp->own = calloc(UTRACE_KPROBE_MAX, sizeof(*r->kp->own))) ||
		    !(r->kp->live_id = calloc(UTRACE_KPROBE_MAX, sizeof(*r->kp->live_id)))) {
			free(r->kp->own);
			r->kp->own = NULL;
			return -ENOMEM;
		}
		if (n)
			memcpy(r->kp->own, r->o.kprobes, n * sizeof(*r->kp->own));
		r->o.kprobes = r->kp->own;
	}
	r->kp->own[n] = p;
	r->kp->live_id[n] = id;
	r->o.nr_kprobes = n + 1;
	return (int)n;
}

int rec_kprobe_live_id(const struct utrace_recorder *r, unsigned i)
{
	return r->kp->live_id ? r->kp->live_id[i] : 0;
}

bool rec_kprobe_any_live(const struct utrace_recorder *r)
{
	return r->kp->live_id != NULL;
}

void rec_kprobe_free(struct utrace_recorder *r)
{
	if (!r->kp)
		return;
	/* the probes added while running are the recorder's */
	for (unsigned i = 0; r->kp->own && i < r->o.nr_kprobes; i++)
		if (r->kp->live_id[i])
			utrace_kprobe_free(r->kp->own[i]);
	free(r->kp->own);
	free(r->kp->live_id);
	free(r->kp);
	r->kp = NULL;
}

int rec_kprobe_live_enable(struct utrace_recorder *r, struct rec_conn *c, unsigned i,
			   struct utrace_msg_enable *en)
{
	int ret;

	if (i >= UTRACE_KPROBE_MAX || !rec_kprobe_live_id(r, i))
		return 0;
	memset(en, 0, sizeof(*en));
	en->hdr.type = UTRACE_MSG_ENABLE;
	en->hdr.size = sizeof(*en);
	en->obj = UTRACE_KPROBE_OBJ;
	en->key = i;
	en->id = rec_kprobe_live_id(r, i);
	en->flags = UTRACE_ENABLE_STATEFUL; /* on and off by ev_state */
	ret = rec_conn_send(c, en, sizeof(*en), -1);
	return ret < 0 ? ret : 1;
}
