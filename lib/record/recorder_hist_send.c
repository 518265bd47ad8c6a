/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist_send.c - an event's hist triggers sent to a traced
 * process before its ENABLE: each trigger's program (compiled once per
 * event format, recorder_hist.c) with its table's memfd, after the tables
 * its program RESOLVEs in; and one trigger the live tracefs added.
 */

#include "common/hist_prog.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"

/* The tables h's program RESOLVEs in, each before the HIST that needs
 * it (the runtime keeps the first of an id). */
static int hist_send_tables(struct utrace_recorder *r, struct rec_conn *c,
			    const struct rec_hist *h)
{
	const struct utrace_hist_hdr *p = h->prog;
	const struct utrace_hist_insn *in = utrace_hist_insns(p);

	for (uint32_t i = 0; i < p->nr_insns; i++) {
		struct utrace_msg_table m = {.hdr.type = UTRACE_MSG_TABLE, .hdr.size = sizeof(m)};
		const struct rec_hist *o;
		int ret;

		if (in[i].op != UTRACE_HOP_RESOLVE)
			continue;
		for (o = r->hist->hists; o && (o->owner || o->tid != in[i].off); o = o->next)
			;
		if (!o)
			continue; /* RESOLVE fails there: the hit is skipped */
		m.table = o->tid;
		m.map_size = o->map_size;
		ret = rec_conn_send(c, &m, sizeof(m), o->fd);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		     const struct rec_hist *h)
{
	struct utrace_msg_hist m = {
	    .hdr.type = UTRACE_MSG_HIST,
	    .obj = obj,
	    .key = key,
	    .prog_len = h->prog_len,
	    .table = h->tid,
	    .map_size = h->map_size,
	    .reader = h->reader,
	};
	int ret = hist_send_tables(r, c, h);

	return ret < 0 ? ret : rec_conn_send_with(c, &m, sizeof(m), h->prog, h->prog_len, h->fd);
}

int rec_hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;
	const struct utrace_event_format *fmt = utrace_event_select_format(s, path, system, name);
	unsigned sent = 0;

	for (unsigned i = 0; fmt && i < utrace_event_select_count(s); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

		if (!utrace_event_spec_matches(sp->pattern, system, name))
			continue;
		for (unsigned k = 0; k < sp->nr_triggers; k++) {
			struct rec_hist *h;
			struct utrace_error e;
			int ret;

			if (sent == UTRACE_EVENT_HISTS_MAX)
				return 0;
			h = rec_hist_get(r, i, k, sp->triggers[k], utrace_trigger_parsed(sp, k),
					 fmt, false, path, &e);
			if (!h && !e.code)
				continue;
			if (!h) {
				if (r->o.notice)
					r->o.notice(r->o.notice_arg, c->pid, e.msg);
				continue;
			}
			ret = hist_send(r, c, obj, key, h);
			if (ret < 0)
				return utrace_error_set(err, ret, "sending a hist trigger failed");
			sent++;
		}
	}
	return 0;
}

/* ---- the live tracefs's triggers (recorder_liveev.c) --------------- */

int rec_hist_send_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		      const struct rec_hist *h)
{
	return hist_send(r, c, obj, key, h);
}
