/* SPDX-License-Identifier: MIT */
/*
 * recorder_quiesce.c - an attached process's other threads stopped while
 * its runtime rewrites code they may be in the middle of (common/proto.h
 * QUIESCE and RESUME, runtime/attach.c; the ptrace work is
 * lib/attach/quiesce.c).  The threads are let go at RESUME, or when the
 * process's connection ends, whichever comes first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/attach/attach.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_quiesce.h"

/* A connection's QUIESCE: its addresses so far, the threads it stopped. */
struct rec_quiesce {
	uint64_t *addrs;
	size_t n, cap;
	struct utrace_attach_stopped *stopped;
};

/* status, and with -EBUSY the address a thread's stack points into (the
 * runtime leaves that one out and asks again) */
static int quiesce_answer(struct rec_conn *c, int status, uint64_t refused)
{
	/* the message and room for one addr[] (a struct with a flexible
	 * array member may not be another struct's field) */
	union {
		struct utrace_msg_quiesce q;
		uint8_t b[sizeof(struct utrace_msg_quiesce) + sizeof(uint64_t)];
	} a;

	memset(&a, 0, sizeof(a));
	a.q.hdr.size = sizeof(a.q);
	a.q.hdr.type = UTRACE_MSG_QUIESCE;
	a.q.status = status;
	if (refused) {
		memcpy(a.b + sizeof(a.q), &refused, sizeof(refused));
		a.q.hdr.size += sizeof(refused);
		a.q.count = 1;
	}
	return rec_conn_send(c, &a, a.q.hdr.size, -1);
}

/* Addresses until the last message, then the threads stopped and the
 * answer: a failure (a thread that cannot be moved out) is the runtime's
 * to handle (it leaves that batch out), not the recording's. */
int rec_quiesce(struct rec_conn *c, const void *buf, size_t n)
{
	const struct utrace_msg_quiesce *q = buf;
	struct utrace_error err = {0};
	struct rec_quiesce *s;
	uint64_t refused;
	int ret;

	if (n < sizeof(*q) || q->count > (n - sizeof(*q)) / sizeof(uint64_t))
		return -EPROTO;
	if (!c->q && !(c->q = calloc(1, sizeof(*c->q))))
		return -ENOMEM;
	s = c->q;
	if (s->stopped)
		return -EPROTO;
	if (UTRACE_GROW(s->addrs, s->cap, s->n + q->count + 1) < 0)
		return -ENOMEM;
	memcpy(s->addrs + s->n, q->addr, q->count * sizeof(*s->addrs));
	s->n += q->count;
	if (q->flags & UTRACE_QUIESCE_MORE)
		return 0;
	ret = utrace_attach_quiesce(c->pid, q->tid, s->addrs, s->n, &refused, &s->stopped, &err);
	free(s->addrs);
	s->addrs = NULL;
	s->n = 0;
	s->cap = 0;
	return quiesce_answer(c, ret < 0 ? ret : 0, ret < 0 ? refused : 0);
}

int rec_resume(struct rec_conn *c)
{
	if (!c->q)
		return 0;
	utrace_attach_resume(c->q->stopped);
	c->q->stopped = NULL;
	return 0;
}

void rec_quiesce_end(struct rec_conn *c)
{
	rec_resume(c);
	if (c->q)
		free(c->q->addrs);
	free(c->q);
	c->q = NULL;
}
