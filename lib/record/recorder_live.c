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
 * patched.  A process that does not answer within LIVE_WAIT_MS (recorder_conn.c), or whose
 * channel fails, has its channel closed; it keeps its sites as they were.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/scm.h"
#include "lib/elf/symtab.h"
#include "lib/events/ftrace_filter.h"
#include "lib/record/recorder_internal.h"


static int live_one(struct utrace_recorder *r, struct rec_conn *c)
{
	struct utrace_msg_tracer t = {{sizeof(t), UTRACE_MSG_TRACER}, r->o.tracer, 0,
				      r->o.max_depth, (uint32_t)(r->o.thresh_ns / 1000)};
	struct utrace_msg_live_done d = {{sizeof(d), UTRACE_MSG_LIVE_DONE}, 0, 0};
	struct rec_conn ch = *c;
	int ret;

	/* the SELECTs go down the live channel, not the registration socket */
	ch.fd = c->live_fd;
	if (r->o.filter && utrace_func_filter_count(r->o.filter, UTRACE_GRAPH))
		t.flags = UTRACE_CFG_GRAPH_FUNCS;
	ret = rec_conn_send(&ch, &t, sizeof(t), -1);
	for (uint32_t i = 0; ret >= 0 && i < c->nr_objs; i++)
		if (c->objs[i].nr_sites && c->objs[i].received == c->objs[i].nr_sites)
			ret = rec_conn_select(r, &ch, i);
	if (ret >= 0)
		ret = rec_conn_send(&ch, &d, sizeof(d), -1);
	if (ret >= 0)
		ret = rec_live_wait(c->live_fd);
	if (ret < 0)
		rec_live_close(c);
	return ret;
}

int utrace_recorder_live_set(struct utrace_recorder *r, enum utrace_tracer tracer,
			     const struct utrace_func_filter *filter, uint32_t max_depth,
			     struct utrace_error *err)
{
	size_t nexpr = filter ? utrace_func_filter_total(filter) + 1 : 1;
	uint32_t *hits = realloc(r->filter_hits, nexpr * sizeof(uint32_t));
	int failed = 0, ret;

	if (!hits)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	memset(hits, 0, nexpr * sizeof(uint32_t));
	r->filter_hits = hits;
	r->o.tracer = tracer;
	r->o.filter = filter;
	r->o.max_depth = max_depth;
	for (uint32_t i = 0; i < r->nr_conns; i++) {
		struct rec_conn *c = r->conns[i];

		if (c->open && c->live_fd >= 0 && (ret = live_one(r, c)) < 0 && !failed)
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
	for (uint32_t i = 0; i < r->nr_bufs; i++)
		if (!r->bufs[i]->done && rec_drain(r, r->bufs[i], false, err) < 0)
			return err->code;
	return r->w ? utrace_dat_writer_flush(r->w, err) : 0;
}

/* Each object once (a forked child holds its parent's), by path. */
static bool live_seen(struct utrace_recorder *r, uint32_t ci, uint32_t oi)
{
	const char *path = r->conns[ci]->objs[oi].path;

	for (uint32_t i = 0; i <= ci; i++)
		for (uint32_t k = 0; k < (i == ci ? oi : r->conns[i]->nr_objs); k++)
			if (!strcmp(r->conns[i]->objs[k].path, path))
				return true;
	return false;
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

void utrace_recorder_live_objects(struct utrace_recorder *r, void (*cb)(void *arg, const char *path),
				  void *arg)
{
	for (uint32_t ci = 0; ci < r->nr_conns; ci++)
		for (uint32_t oi = 0; oi < r->conns[ci]->nr_objs; oi++)
			cb(arg, r->conns[ci]->objs[oi].path);
}

int utrace_recorder_live_marker(struct utrace_recorder *r, const char *text, size_t len,
				struct utrace_error *err)
{
	struct utrace_msg m = {0, UTRACE_MSG_MARKER};
	int ret;

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
			       : 0;
	}
	return utrace_error_set(err, -ESRCH, "no traced process to write the marker");
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
