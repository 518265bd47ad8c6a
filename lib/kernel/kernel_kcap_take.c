/* SPDX-License-Identifier: MIT */
/*
 * kernel_kcap_take.c - the reader's side of the captures (kernel_kcap.h):
 * the records of the BPF ring kept until the tracefs record of the same
 * hit is read, and handed over as regions of memory.
 *
 * Records are copied out of the ring as it is consumed (at each take)
 * into a queue per thread (a hash table of threads, KCAP_BUCKETS chains):
 * the tracefs record of a hit and its capture are written at the same
 * hit, so a thread's captures of one tag come in its records' order, and
 * a take looks at its thread's few only, however busy the machine.  A
 * capture whose record never comes (a process the recording leaves out,
 * a page the kernel dropped) is dropped at its thread's next match of the
 * same tag, or by the sweep that runs every SWEEP_TAKES takes and when
 * WAITING_BYTES wait: records are taken in time order, so one ORPHAN_NS
 * older than the last record taken has had its chance (not older than
 * the newest capture: the records may be read seconds after their hits
 * on a busy machine).  What cannot be kept for want of room is counted
 * (utrace_kcap_lost).
 *
 * A record takes the capture nearest its time of those of its thread
 * and tag whose fields held its values: most often the first waiting,
 * but a hit whose record is left out (one of the runtime's own system
 * calls, which the reader of the recording drops: OWN) has a capture
 * all the same, the fields of two hits often hold the same addresses
 * (one buffer, opened again), and a capture of the thread's name alone
 * has no field to tell it from the next.  The two times are not the
 * same: the tracefs record is written a moment before or after the BPF
 * program runs (whose run a capture brackets: its first and last
 * times, microseconds apart when it reads an argv), and its time may be
 * converted from the TSC; so the usual lag of a tag's records after
 * their captures is learnt from the takes (within a microsecond),
 * LAG_STEP at most a take (a median: a hit whose capture is missing has
 * none near, and the nearest says nothing of the lag), and allowed for;
 * a capture more than MATCH_NS from a record's time after that is
 * another hit's (the record's own is missing: it has none, and takes
 * none of the thread's next hits').
 *
 * A record that runs two probes of its event (two bt probes on one
 * tracepoint) is taken twice: the second take, of the same thread, tag
 * and time, gets the capture the first took, not the thread's next one.
 */
#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kernel_kcap_internal.h"

#define WAITING_BYTES (64u << 20) /* captures kept at most */
#define SWEEP_TAKES 4096u	  /* takes between two sweeps */
#define ORPHAN_NS 200000000ull	  /* 200 ms: a record's capture is not older */
#define MATCH_NS 5000		  /* 5 us: nor farther from its time, the lag allowed for */
#define LAG_STEP 100		  /* ns: the lag learnt a take at most */

struct kc_cap {
	uint64_t ns, end; /* the program's run */
	int tag;
	uint8_t *data;
};

struct kc_thread {
	struct kc_thread *next;
	int tid;
	unsigned first, n, cap;
	struct kc_cap *v; /* [first, n): oldest first, data NULL once taken */
};

static struct kc_thread **slot(struct utrace_kcap *k, int tid)
{
	struct kc_thread **t = &k->bucket[(unsigned)tid % KCAP_BUCKETS];

	while (*t && (*t)->tid != tid)
		t = &(*t)->next;
	return t;
}

/* The captures older than ns - ORPHAN_NS of every thread dropped, and the
 * threads left with none let go. */
static void sweep(struct utrace_kcap *k, uint64_t ns)
{
	for (unsigned b = 0; b < KCAP_BUCKETS; b++) {
		struct kc_thread **t = &k->bucket[b];

		while (*t) {
			struct kc_thread *th = *t;

			for (; th->first < th->n; th->first++) {
				struct kc_cap *c = &th->v[th->first];

				if (c->data && c->ns + ORPHAN_NS >= ns)
					break;
				if (c->data)
					k->waiting -= k->at[c->tag].size;
				free(c->data);
			}
			if (th->first < th->n) {
				t = &th->next;
				continue;
			}
			*t = th->next;
			free(th->v);
			free(th);
		}
	}
}

int kcap_on_record(void *arg, void *data, size_t size)
{
	struct utrace_kcap *k = arg;
	struct kc_thread **t, *th;
	struct kc_cap c;
	uint32_t tag;
	int tid;

	if (size < KCAP_HDR)
		return 0;
	memcpy(&tag, (uint8_t *)data + 16, 4);
	if (tag >= k->nat || size < k->at[tag].size)
		return 0;
	tid = (int)*(uint32_t *)data;
	memcpy(&c.ns, (uint8_t *)data + 8, 8);
	memcpy(&c.end, (uint8_t *)data + 24, 8);
	c.tag = (int)tag;
	if (k->waiting + k->at[tag].size > WAITING_BYTES)
		sweep(k, k->last_ns);
	t = slot(k, tid);
	if (!*t && (*t = calloc(1, sizeof(**t))))
		(*t)->tid = tid;
	th = *t;
	if (k->waiting + k->at[tag].size > WAITING_BYTES || !th ||
	    !(c.data = malloc(k->at[tag].size))) {
		k->dropped++;
		return 0;
	}
	if (th->n == th->cap && th->first) { /* the taken ones at the front let go */
		memmove(th->v, th->v + th->first, (th->n - th->first) * sizeof(*th->v));
		th->n -= th->first;
		th->first = 0;
	}
	if (th->n == th->cap) {
		unsigned cap = th->cap ? 2 * th->cap : 4;
		struct kc_cap *v = realloc(th->v, cap * sizeof(*v));

		if (!v) {
			free(c.data);
			k->dropped++;
			return 0;
		}
		th->v = v;
		th->cap = cap;
	}
	memcpy(c.data, data, k->at[tag].size);
	th->v[th->n++] = c;
	k->waiting += k->at[tag].size;
	return 0;
}

/* Whether capture d's fields held vals. */
static bool same(const struct kc_attach *a, const uint8_t *d, const uint64_t *vals, unsigned n)
{
	uint32_t o = KCAP_HDR;

	for (unsigned i = 0; i < a->n; i++) {
		uint64_t v;

		memcpy(&v, d + o, 8);
		if (i < n && v != vals[i])
			return false;
		o += kcap_block_size(a->kind[i]);
	}
	return true;
}

static unsigned add(struct utrace_kcap_region *out, unsigned r, unsigned max, uint64_t addr,
		    const uint8_t *bytes, size_t len)
{
	if (r < max)
		out[r] = (struct utrace_kcap_region){addr, bytes, len};
	return r + (r < max);
}

/* The string at ptr, read into the string read at sb. */
static unsigned str_region(uint64_t ptr, const uint8_t *sb, struct utrace_kcap_region *out,
			   unsigned r, unsigned max)
{
	int64_t ret;

	memcpy(&ret, sb, 8);
	if (ret <= 0 || ret > (int64_t)UTRACE_KCAP_STRLEN)
		return r; /* not read: as a failed probe_read_user_str */
	return add(out, r, max, ptr, sb + 8, (size_t)ret - 1);
}

/* The array at ptr (its pointers at d+o+8, their strings after), up to
 * and with its NULL one. */
static unsigned strv_regions(uint64_t ptr, const uint8_t *d, uint32_t o,
			     struct utrace_kcap_region *out, unsigned r, unsigned max)
{
	uint64_t el[UTRACE_KCAP_STRV_MAX];
	unsigned m = 0;

	memcpy(el, d + o + 8, sizeof(el));
	while (m < UTRACE_KCAP_STRV_MAX && el[m])
		m++;
	r = add(out, r, max, ptr, d + o + 8, 8 * (m + (m < UTRACE_KCAP_STRV_MAX)));
	for (unsigned j = 0; j < m; j++)
		r = str_region(el[j], d + KCAP_STRV_STR(o, j), out, r, max);
	return r;
}

static unsigned regions(const struct kc_attach *a, const uint8_t *d, struct utrace_kcap_region *out,
			unsigned max)
{
	uint32_t o = KCAP_HDR;
	unsigned r = 0;

	for (unsigned i = 0; i < a->n; i++) {
		uint64_t ptr;

		memcpy(&ptr, d + o, 8);
		r = a->kind[i] == UTRACE_KCAP_STR ? str_region(ptr, d + o + 8, out, r, max)
						  : strv_regions(ptr, d, o, out, r, max);
		o += kcap_block_size(a->kind[i]);
	}
	return r;
}

/* How far the record at ns is after the run of capture c's program, its
 * tag's usual lag allowed for (<0: before; 0: in it). */
static int64_t after(const struct utrace_kcap *k, const struct kc_cap *c, uint64_t ns)
{
	int64_t t = (int64_t)ns - k->at[c->tag].lag;

	if (t < (int64_t)c->ns)
		return t - (int64_t)c->ns;
	return t > (int64_t)c->end ? t - (int64_t)c->end : 0;
}

static uint64_t apart(const struct utrace_kcap *k, const struct kc_cap *c, uint64_t ns)
{
	int64_t d = after(k, c, ns);

	return d < 0 ? -(uint64_t)d : (uint64_t)d;
}

/* Capture i of th let go. */
static void drop(struct utrace_kcap *k, struct kc_thread *th, unsigned i)
{
	free(th->v[i].data);
	th->v[i].data = NULL;
	k->waiting -= k->at[th->v[i].tag].size;
}

/* Thread th's capture of tag whose fields held vals nearest the record's
 * time ns made k->cur (NULL before) if it is near enough, the captures
 * of tag before it (and it, if it is long before ns) dropped; whether
 * there was one. */
static bool take_from(struct utrace_kcap *k, struct kc_thread *th, int tag, uint64_t ns,
		      const uint64_t *vals, unsigned n)
{
	unsigned m = th->n;
	int64_t d;
	bool near;

	for (unsigned i = th->first; i < th->n; i++) {
		const struct kc_cap *c = &th->v[i];

		if (!c->data || c->tag != tag || !same(&k->at[tag], c->data, vals, n))
			continue;
		if (m < th->n && apart(k, c, ns) >= apart(k, &th->v[m], ns))
			break; /* (in time order: the later ones are farther still) */
		m = i;
	}
	if (m == th->n)
		return false;
	d = after(k, &th->v[m], ns);
	near = apart(k, &th->v[m], ns) <= MATCH_NS;
	k->at[tag].lag += d > LAG_STEP ? LAG_STEP : d < -LAG_STEP ? -LAG_STEP : d;
	for (unsigned i = th->first; i < m; i++)
		if (th->v[i].data && th->v[i].tag == tag) /* its record never came */
			drop(k, th, i);
	if (!near && d > 0) /* nor did this one's: the record's own was lost */
		drop(k, th, m);
	if (!near) {
		while (th->first < th->n && !th->v[th->first].data)
			th->first++;
		return false;
	}
	k->cur = th->v[m].data;
	th->v[m].data = NULL;
	if (k->at[tag].comm_at) /* (the kernel's is NUL-ended: so is ours) */
		k->cur[k->at[tag].comm_at + UTRACE_KCAP_COMMLEN - 1] = 0;
	k->waiting -= k->at[tag].size;
	while (th->first < th->n && !th->v[th->first].data)
		th->first++;
	return true;
}

unsigned utrace_kcap_take(struct utrace_kcap *k, int tid, int tag, uint64_t ns,
			  const uint64_t *vals, unsigned n, struct utrace_kcap_region *out,
			  unsigned max)
{
	struct kc_thread *th;

	if (!k || tag < 0 || (unsigned)tag >= k->nat)
		return 0;
	if (tid == k->cur_tid && tag == k->cur_tag && ns == k->cur_ns) /* the same hit again */
		return k->cur ? regions(&k->at[tag], k->cur, out, max) : 0;
	free(k->cur);
	k->cur = NULL;
	k->cur_tid = tid;
	k->cur_tag = tag;
	k->cur_ns = ns;
	if (k->rb)
		ring_buffer__consume(k->rb);
	k->last_ns = ns;
	if (++k->takes % SWEEP_TAKES == 0)
		sweep(k, ns);
	th = *slot(k, tid);
	if (!th || !take_from(k, th, tag, ns, vals, n))
		return 0;
	return regions(&k->at[tag], k->cur, out, max);
}

const char *utrace_kcap_comm(const struct utrace_kcap *k)
{
	uint32_t at = k && k->cur ? k->at[k->cur_tag].comm_at : 0;

	return at ? (const char *)k->cur + at : NULL;
}

void kcap_threads_free(struct utrace_kcap *k)
{
	sweep(k, UINT64_MAX);
	free(k->cur);
	k->cur = NULL;
}

int utrace_kcap_regions_load(const struct utrace_kcap_region *rg, unsigned n, uint64_t addr,
			     unsigned size, uint64_t *out)
{
	unsigned filled = 0; /* bit k: byte k found */

	*out = 0;
	for (unsigned i = 0; i < n && size <= 8; i++) {
		/* (the byte one past a region is its string's NUL: it reads 0) */
		if (addr + size <= rg[i].addr || addr > rg[i].addr + rg[i].len)
			continue;
		for (unsigned k = 0; k < size; k++) {
			uint64_t a = addr + k;

			if (a < rg[i].addr || a > rg[i].addr + rg[i].len || filled >> k & 1)
				continue;
			if (a < rg[i].addr + rg[i].len)
				*out |= (uint64_t)rg[i].bytes[a - rg[i].addr] << (8 * k);
			filled |= 1u << k;
		}
	}
	return filled ? 0 : -1;
}
