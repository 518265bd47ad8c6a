/* SPDX-License-Identifier: MIT */
/*
 * offcpu.c - off-CPU samples from context switches (offcpu.h).
 *
 * Design: a thread switched out on one CPU is switched in on any other,
 * and each CPU has its ring buffer, drained one after the other: within a
 * drain a switch-in can be read before the switch-out it ends.  So the
 * switches are kept, sorted by time, and only those older than the
 * previous drain's start are paired (the kernel had written every record
 * of that time by then); the rest wait for the next drain.  Per thread,
 * the last switch-out waits in a table by tid for its switch-in.
 *
 * A switch-out happens in the kernel: its sample's ip is a kernel
 * address, and the user stack (the kernel takes it from the registers the
 * thread entered the kernel with) is the code that blocked; the off-CPU
 * sample's ip is that stack's innermost address.  perf's --off-cpu counts
 * only the blocked states; a preempted thread (ready to run) counts here
 * as well, which matters only on a loaded machine.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/sample/offcpu.h"

struct cs_ev {
	uint64_t ts;
	uint32_t pid, tid, cpu;
	bool in;
	uint32_t nr;	 /* user frames, innermost first */
	uint64_t *chain; /* owned */
};

struct pend {
	uint32_t tid; /* 0: free slot */
	bool valid;
	struct cs_ev out;
};

struct utrace_offcpu {
	struct cs_ev *ev; /* waiting to be paired */
	size_t nr, cap;
	struct pend *pend; /* open addressing by tid */
	size_t cap_pend, nr_pend;
	unsigned char *out; /* the last flush's samples */
	size_t len, cap_out;
	uint64_t samples;
};

struct utrace_offcpu *utrace_offcpu_new(void)
{
	return calloc(1, sizeof(struct utrace_offcpu));
}

void utrace_offcpu_free(struct utrace_offcpu *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nr; i++)
		free(o->ev[i].chain);
	for (size_t i = 0; i < o->cap_pend; i++)
		free(o->pend[i].out.chain);
	free(o->ev);
	free(o->pend);
	free(o->out);
	free(o);
}

static bool u64_at(const unsigned char *r, size_t size, size_t *at, uint64_t *v)
{
	if (*at + 8 > size)
		return false;
	memcpy(v, r + *at, 8);
	*at += 8;
	return true;
}

/* A switch-out sample (UTRACE_OFFCPU_CS_TYPE) into e; false if damaged or
 * without a user stack (nothing to name). */
static bool parse_out(const unsigned char *r, size_t size, struct cs_ev *e)
{
	size_t at = sizeof(struct perf_event_header);
	uint64_t ip, ids, cpu, nr, v = 0;

	if (!u64_at(r, size, &at, &ip) || !u64_at(r, size, &at, &ids) ||
	    !u64_at(r, size, &at, &e->ts) || !u64_at(r, size, &at, &cpu) ||
	    !u64_at(r, size, &at, &nr) || nr > (size - at) / 8)
		return false;
	e->pid = (uint32_t)ids;
	e->tid = (uint32_t)(ids >> 32);
	e->cpu = (uint32_t)cpu;
	e->in = false;
	e->chain = malloc((nr ? nr : 1) * sizeof(*e->chain));
	if (!e->chain)
		return false;
	e->nr = 0;
	for (uint64_t i = 0; i < nr; i++) {
		u64_at(r, size, &at, &v);
		if (v < (uint64_t)PERF_CONTEXT_MAX)
			e->chain[e->nr++] = v;
	}
	if (!e->nr)
		free(e->chain);
	return e->nr > 0;
}

/* A switch-in: PERF_RECORD_SWITCH, then sample_id (tid, time, cpu). */
static bool parse_in(const unsigned char *r, size_t size, struct cs_ev *e)
{
	size_t at = sizeof(struct perf_event_header);
	uint64_t ids, cpu;

	if (!u64_at(r, size, &at, &ids) || !u64_at(r, size, &at, &e->ts) ||
	    !u64_at(r, size, &at, &cpu))
		return false;
	*e = (struct cs_ev){e->ts, (uint32_t)ids, (uint32_t)(ids >> 32), (uint32_t)cpu, true,
			    0,	   NULL};
	return true;
}

int utrace_offcpu_feed(struct utrace_offcpu *o, const void *records, size_t len)
{
	const unsigned char *p = records;
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		struct cs_ev e;
		bool ok = false;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len)
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			ok = parse_out(p + off, h.size, &e);
		else if (h.type == PERF_RECORD_SWITCH && !(h.misc & PERF_RECORD_MISC_SWITCH_OUT))
			ok = parse_in(p + off, h.size, &e);
		off += h.size;
		if (!ok)
			continue;
		if (UTRACE_GROW(o->ev, o->cap, o->nr + 1) < 0) {
			free(e.chain);
			return -ENOMEM;
		}
		o->ev[o->nr++] = e;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct cs_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (int)x->in - (int)y->in; /* a switch-out before a switch-in */
}

static struct pend *pend_slot(struct utrace_offcpu *o, uint32_t tid)
{
	size_t s;

	if ((o->nr_pend + 1) * 2 > o->cap_pend) {
		size_t cap = o->cap_pend ? o->cap_pend * 2 : 256;
		struct pend *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < o->cap_pend; i++) {
			if (!o->pend[i].tid)
				continue;
			for (s = o->pend[i].tid & (cap - 1); v[s].tid; s = (s + 1) & (cap - 1))
				;
			v[s] = o->pend[i];
		}
		free(o->pend);
		o->pend = v;
		o->cap_pend = cap;
	}
	for (s = tid & (o->cap_pend - 1); o->pend[s].tid && o->pend[s].tid != tid;
	     s = (s + 1) & (o->cap_pend - 1))
		;
	if (!o->pend[s].tid) {
		o->pend[s].tid = tid;
		o->nr_pend++;
	}
	return &o->pend[s];
}

/* Appends the off-CPU sample of out, switched in at in_ts. */
static int emit(struct utrace_offcpu *o, const struct cs_ev *out, uint64_t in_ts)
{
	uint64_t w[7] = {out->chain[0],	   (uint64_t)out->pid | (uint64_t)out->tid << 32,
			 out->ts,	   out->cpu,
			 in_ts - out->ts,  1 + (uint64_t)out->nr,
			 PERF_CONTEXT_USER};
	size_t size = sizeof(struct perf_event_header) + sizeof(w) + out->nr * 8;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)size};

	if (size > UINT16_MAX)
		return 0; /* a record cannot be that long: the kernel caps chains lower */
	if (UTRACE_GROW(o->out, o->cap_out, o->len + size) < 0)
		return -ENOMEM;
	memcpy(o->out + o->len, &h, sizeof(h));
	memcpy(o->out + o->len + sizeof(h), w, sizeof(w));
	memcpy(o->out + o->len + sizeof(h) + sizeof(w), out->chain, out->nr * 8);
	o->len += size;
	o->samples++;
	return 0;
}

/* One switch, in time order: a switch-out waits, a switch-in ends it. */
static int pair(struct utrace_offcpu *o, struct cs_ev *e)
{
	struct pend *p = pend_slot(o, e->tid);
	int ret = 0;

	if (!p) {
		free(e->chain);
		return -ENOMEM;
	}
	if (!e->in) {
		free(p->out.chain);
		p->out = *e;
		p->valid = true;
		return 0;
	}
	if (p->valid)
		ret = emit(o, &p->out, e->ts);
	free(p->out.chain);
	p->out.chain = NULL;
	p->valid = false;
	return ret;
}

int utrace_offcpu_flush(struct utrace_offcpu *o, uint64_t upto, const void **records, size_t *len)
{
	size_t i;
	int ret = 0;

	o->len = 0;
	qsort(o->ev, o->nr, sizeof(*o->ev), by_time);
	for (i = 0; i < o->nr && o->ev[i].ts < upto; i++)
		if (ret == 0)
			ret = pair(o, &o->ev[i]);
		else
			free(o->ev[i].chain);
	memmove(o->ev, o->ev + i, (o->nr - i) * sizeof(*o->ev));
	o->nr -= i;
	*records = o->out;
	*len = o->len;
	return ret;
}

uint64_t utrace_offcpu_samples(const struct utrace_offcpu *o)
{
	return o->samples;
}
