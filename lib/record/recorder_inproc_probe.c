/* SPDX-License-Identifier: MIT */
/*
 * recorder_inproc_probe.c - the recorder's side of the in-process probes
 * (common/proto.h INPROC_PROBE_AREA and INPROC_PROBE; their events' ENABLEs are
 * recorder_msg.c's, after CONFIG): for each object a process registers,
 * once it names its probe area, every probe whose symbol the object
 * defines, located, relocated and compiled by lib/probes for that object
 * and that area.  A probe added while running (recorder_live.c) goes
 * through the same install path (rec_inproc_probe_install) with the slot the
 * runtime gave it, and a removed probe is skipped by both.  Removal while
 * the programs run: a bit of the shared control page (common/proto.h
 * ipp_off) that every process's runtime acts on.
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

static void rec_inproc_probe_notice(struct utrace_recorder *r, struct rec_conn *c,
			      const struct utrace_inproc_probe *p, const char *why)
{
	char text[512];

	snprintf(text, sizeof(text), "probe %s:%s: %s; it stays off",
		 utrace_inproc_probe_group(p), utrace_inproc_probe_event(p), why);
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, c->pid, text);
}

/* Probe i in object o, at slot *slot of the area: its INPROC_PROBE into m. */
static int rec_inproc_probe_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			  const struct utrace_msg_inproc_probe_area *am, unsigned i, uint32_t *slot,
			  const uint64_t *others, size_t nothers, struct utrace_msg_inproc_probe *m)
{
	const struct utrace_inproc_probe *p = r->o.inproc_probes[i];
	const struct rec_object *o = &c->objs[obj];
	struct utrace_inproc_probe_loc loc;
	struct utrace_error e = {0};
	uint32_t len;
	void *prog;
	int ret;

	ret = utrace_inproc_probe_locate(p, o->path, o->vaddrs, o->nr_sites, am->addr + *slot - o->bias,
				   others, nothers, &loc, &e);
	if (ret <= 0) {
		if (ret < 0)
			rec_inproc_probe_notice(r, c, p, e.msg);
		return 0;
	}
	if (loc.site != UINT32_MAX && (o->flags & UTRACE_OBJ_FPATCH)) {
		rec_inproc_probe_notice(r, c, p, "on the entry of a function patched for tracing (an "
					   "object without call sites): not supported");
		return 0;
	}
	if (!am->size || *slot + UTRACE_INPROC_PROBE_SLOT > am->size) { /* every probe has a slot */
		rec_inproc_probe_notice(r, c, p, "no room for its slot near the object");
		return 0;
	}
	if (utrace_inproc_probe_compile_in(p, o->path, o->bias, &prog, &len, &e) < 0) {
		rec_inproc_probe_notice(r, c, p, e.msg);
		return 0;
	}
	if (sizeof(*m) + UTRACE_INPROC_PROBE_XOL + len > UTRACE_MSG_MAX) {
		free(prog);
		rec_inproc_probe_notice(r, c, p, "its fetch-args are too large");
		return 0;
	}
	memset(m, 0, sizeof(*m) + UTRACE_INPROC_PROBE_XOL);
	m->hdr.type = UTRACE_MSG_INPROC_PROBE;
	m->hdr.size = (uint32_t)(sizeof(*m) + UTRACE_INPROC_PROBE_XOL + len);
	m->obj = obj;
	m->key = i;
	m->how = loc.site != UINT32_MAX ? UTRACE_IPPH_SITE : loc.jmp ? UTRACE_IPPH_JMP : UTRACE_IPPH_INT3;
	m->is_return = loc.kind == UTRACE_IPP_RETURN;
	m->addr = o->bias + loc.vaddr;
	m->func = o->bias + loc.func;
	m->call_to = loc.call_to ? o->bias + loc.call_to : 0;
	m->site = loc.site;
	m->slot = *slot;
	m->insn_len = loc.insn_len;
	m->xol_len = loc.xol_len;
	m->prog_len = len;
	memcpy(m->data, loc.xol, loc.xol_len);
	memcpy(m->data + UTRACE_INPROC_PROBE_XOL, prog, len);
	free(prog);
	*slot += UTRACE_INPROC_PROBE_SLOT;
	return rec_conn_send(c, m, m->hdr.size, -1);
}

/*
 * The one install path of the in-process probes, at registration
 * (rec_inproc_probe_area: every probe) and for a probe added while running
 * (recorder_live.c: that one): where the object's probes that are on land
 * first (a jmp must cover none of them), then a INPROC_PROBE for each probe of
 * [from, to) that is on, at the slots from *slot on.  A removed probe
 * (ipp_off) is neither installed nor in the way.
 */
int rec_inproc_probe_install(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
		       const struct utrace_msg_inproc_probe_area *am, unsigned from, unsigned to,
		       uint32_t *slot, struct utrace_msg_inproc_probe *m)
{
	const struct rec_object *o = &c->objs[obj];
	uint64_t *at = calloc(r->o.nr_inproc_probes + 1, sizeof(*at));
	size_t nat = 0;
	int ret = 0;

	if (!at)
		return -ENOMEM;
	for (unsigned i = 0; i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++) {
		struct utrace_inproc_probe_loc loc;
		struct utrace_error e;

		if (!utrace_ctl_inproc_probe_off(r->ctl, i) &&
		    utrace_inproc_probe_locate(r->o.inproc_probes[i], o->path, o->vaddrs, o->nr_sites, 0, NULL,
					 0, &loc, &e) > 0)
			at[nat++] = loc.vaddr;
	}
	for (unsigned i = from; i < to && i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX && ret >= 0;
	     i++)
		if (!utrace_ctl_inproc_probe_off(r->ctl, i))
			ret = rec_inproc_probe_one(r, c, obj, am, i, slot, at, nat, m);
	free(at);
	return ret;
}

/* Whether probes p and q can be within a jmp's reach of each other:
 * a symbol probe stays inside its function, so two on different
 * symbols cannot; a PATH:OFFSET one may be anywhere. */
static bool rec_ipp_near(const struct utrace_inproc_probe *p, const struct utrace_inproc_probe *q)
{
	uint64_t off;
	const char *ps = utrace_inproc_probe_symbol(p, &off), *qs = utrace_inproc_probe_symbol(q, &off);

	return utrace_inproc_probe_path(p, &off) || utrace_inproc_probe_path(q, &off) || !ps || !qs ||
	       !strcmp(ps, qs);
}

int rec_inproc_probe_in_jmp(struct utrace_recorder *r, const struct rec_object *o,
			    const struct utrace_inproc_probe *p, uint64_t a, struct utrace_error *err)
{
	for (unsigned i = 0; i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++) {
		const struct utrace_inproc_probe *q = r->o.inproc_probes[i];
		struct utrace_inproc_probe_loc loc;
		struct utrace_error e = {0};

		/* q's jmp as it could be, none of the others in its way: its
		 * bytes [vaddr, vaddr + insn_len) are the jmp's, or may be */
		if (utrace_ctl_inproc_probe_off(r->ctl, i) || !rec_ipp_near(p, q) ||
		    utrace_inproc_probe_locate(q, o->path, o->vaddrs, o->nr_sites, 0, NULL, 0, &loc,
					       &e) <= 0 ||
		    !loc.jmp || a <= loc.vaddr || a >= loc.vaddr + loc.insn_len)
			continue;
		return utrace_error_set(err, -EILSEQ,
					"the probe point is inside the %u bytes probe %s/%s may replace "
					"with a jmp",
					loc.insn_len, utrace_inproc_probe_group(q),
					utrace_inproc_probe_event(q));
	}
	return 0;
}

/* The INPROC_PROBE that ends a batch (of object obj, or UTRACE_INPROC_PROBE_OBJ). */
int rec_inproc_probe_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_inproc_probe *m)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = UTRACE_MSG_INPROC_PROBE;
	m->hdr.size = sizeof(*m);
	m->obj = obj;
	m->key = UTRACE_ENABLE_DONE;
	return rec_conn_send(c, m, sizeof(*m), -1);
}

int rec_inproc_probe_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		    struct utrace_error *err)
{
	const struct utrace_msg_inproc_probe_area *am = buf;
	struct utrace_msg_inproc_probe *m;
	uint32_t slot = 0;
	int ret;

	(void)err;
	if (n < sizeof(*am) || am->obj >= c->nr_objs)
		return -EPROTO;
	if (!(m = malloc(UTRACE_MSG_MAX)))
		return -ENOMEM;
	ret = rec_inproc_probe_install(r, c, am->obj, am, 0, UTRACE_INPROC_PROBE_MAX, &slot, m);
	if (ret >= 0)
		ret = rec_inproc_probe_done(c, am->obj, m);
	free(m);
	return ret;
}

int utrace_recorder_inproc_probe_remove(struct utrace_recorder *r, const char *group, const char *event,
				  struct utrace_error *err)
{
	for (unsigned i = 0; i < r->o.nr_inproc_probes && i < UTRACE_INPROC_PROBE_MAX; i++) {
		const struct utrace_inproc_probe *p = r->o.inproc_probes[i];

		if (strcmp(utrace_inproc_probe_event(p), event) != 0 ||
		    (group && strcmp(utrace_inproc_probe_group(p), group) != 0))
			continue;
		if (!utrace_ctl_inproc_probe_set_off(r->ctl, i))
			continue; /* off already: another of that name may be on */
		/* every process's helper sleeps on ipp_gen (a shared futex) */
		syscall(SYS_futex, &r->ctl->ipp_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
		return 0;
	}
	return utrace_error_set(err, -ENOENT, "no in-process probe %s%s%s in this recording",
				group ? group : "", group ? "/" : "", event);
}

int utrace_recorder_inproc_probe_remove_key(struct utrace_recorder *r, int key)
{
	if (key < 0 || (unsigned)key >= r->o.nr_inproc_probes || key >= UTRACE_INPROC_PROBE_MAX ||
	    !utrace_ctl_inproc_probe_set_off(r->ctl, (unsigned)key))
		return -ENOENT;
	syscall(SYS_futex, &r->ctl->ipp_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	return 0;
}

/* o.inproc_probes and the probes added while running (the recorder's:
 * o.inproc_probes points at own once one is); by key, the event id of one
 * added while running, 0 for the others */
struct rec_inproc_probes {
	struct utrace_inproc_probe **own;
	int32_t *live_id;
};

int rec_inproc_probe_new(struct utrace_recorder *r)
{
	r->ipp = calloc(1, sizeof(*r->ipp));
	return r->ipp ? 0 : -ENOMEM;
}

/* The key the probe gets: o.inproc_probes copied into the recorder's own
 * array the first time, p appended. */
int rec_inproc_probe_key_new(struct utrace_recorder *r, struct utrace_inproc_probe *p, int id)
{
	unsigned n = r->o.nr_inproc_probes;

	if (n >= UTRACE_INPROC_PROBE_MAX)
		return -ENOSPC;
	if (!r->ipp->own) {
		if (!(r->ipp->own = calloc(UTRACE_INPROC_PROBE_MAX, sizeof(*r->ipp->own))) ||
		    !(r->ipp->live_id = calloc(UTRACE_INPROC_PROBE_MAX, sizeof(*r->ipp->live_id)))) {
			free(r->ipp->own);
			r->ipp->own = NULL;
			return -ENOMEM;
		}
		if (n)
			memcpy(r->ipp->own, r->o.inproc_probes, n * sizeof(*r->ipp->own));
		r->o.inproc_probes = r->ipp->own;
	}
	r->ipp->own[n] = p;
	r->ipp->live_id[n] = id;
	r->o.nr_inproc_probes = n + 1;
	return (int)n;
}

int rec_inproc_probe_live_id(const struct utrace_recorder *r, unsigned i)
{
	return r->ipp->live_id ? r->ipp->live_id[i] : 0;
}

bool rec_inproc_probe_any_live(const struct utrace_recorder *r)
{
	return r->ipp->live_id != NULL;
}

void rec_inproc_probe_free(struct utrace_recorder *r)
{
	if (!r->ipp)
		return;
	/* the probes added while running are the recorder's */
	for (unsigned i = 0; r->ipp->own && i < r->o.nr_inproc_probes; i++)
		if (r->ipp->live_id[i])
			utrace_inproc_probe_free(r->ipp->own[i]);
	free(r->ipp->own);
	free(r->ipp->live_id);
	free(r->ipp);
	r->ipp = NULL;
}

int rec_inproc_probe_live_enable(struct utrace_recorder *r, struct rec_conn *c, unsigned i,
			   struct utrace_msg_enable *en)
{
	int ret;

	if (i >= UTRACE_INPROC_PROBE_MAX || !rec_inproc_probe_live_id(r, i))
		return 0;
	memset(en, 0, sizeof(*en));
	en->hdr.type = UTRACE_MSG_ENABLE;
	en->hdr.size = sizeof(*en);
	en->obj = UTRACE_INPROC_PROBE_OBJ;
	en->key = i;
	en->id = rec_inproc_probe_live_id(r, i);
	en->flags = UTRACE_ENABLE_STATEFUL; /* on and off by ev_state */
	ret = rec_conn_send(c, en, sizeof(*en), -1);
	return ret < 0 ? ret : 1;
}
