/* SPDX-License-Identifier: MIT */
/*
 * test_offcpu.c - the pairing of context switches into off-CPU samples
 * (lib/sample/offcpu.c), on records written by hand as the kernel writes
 * them: switch-out samples (UTRACE_OFFCPU_CS_TYPE, with the context
 * marker of the user stack) and switch-in PERF_RECORD_SWITCHes with their
 * sample_id.  A switch-in read before its switch-out (another CPU's
 * buffer drained first) still pairs; a switch not yet older than the
 * previous drain waits; a thread switched out at its end makes nothing.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "lib/sample/offcpu.h"
#include "tests/unit/check.h"

struct buf {
	unsigned char b[1024];
	size_t n;
};

static void put(struct buf *k, const void *p, size_t n)
{
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

static void out(struct buf *k, uint32_t tid, uint64_t ts, uint64_t user_ip)
{
	/* ip (a kernel one), pid|tid, time, cpu, nr, [context, ip] */
	uint64_t w[7] = {
	    0xffffffff81000000ull, 7 | (uint64_t)tid << 32, ts, 1, 2, PERF_CONTEXT_USER, user_ip};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, sizeof(h) + sizeof(w)};

	put(k, &h, sizeof(h));
	put(k, w, sizeof(w));
}

static void in(struct buf *k, uint32_t tid, uint64_t ts)
{
	uint64_t w[3] = {7 | (uint64_t)tid << 32, ts, 0}; /* sample_id: tid, time, cpu */
	struct perf_event_header h = {PERF_RECORD_SWITCH, 0, sizeof(h) + sizeof(w)};

	put(k, &h, sizeof(h));
	put(k, w, sizeof(w));
}

/* The n-th sample of records: its tid, time, period and innermost user ip. */
static int sample(const unsigned char *r, size_t len, unsigned n, uint64_t v[4])
{
	size_t off = 0;

	for (unsigned i = 0; off + sizeof(struct perf_event_header) <= len; i++) {
		struct perf_event_header h;
		uint64_t w[8];

		memcpy(&h, r + off, sizeof(h));
		if (i == n && h.size >= sizeof(h) + sizeof(w)) {
			memcpy(w, r + off + sizeof(h), sizeof(w));
			v[0] = w[1] >> 32;
			v[1] = w[2];
			v[2] = w[4];
			v[3] = w[7]; /* after nr and the context marker */
			return h.type == PERF_RECORD_SAMPLE && w[0] == w[7] && w[5] == 2;
		}
		off += h.size;
	}
	return 0;
}

int main(void)
{
	struct utrace_offcpu *o = utrace_offcpu_new();
	struct buf cpu0 = {{0}, 0}, cpu1 = {{0}, 0}, late = {{0}, 0};
	const void *r;
	size_t len;
	uint64_t v[4] = {0};
	int got;

	check_begin("offcpu");
	out(&cpu1, 10, 1000, 0x401000); /* thread 10 out at 1000 on CPU 1 */
	in(&cpu0, 10, 4000);		/* ... in at 4000 on CPU 0 */
	out(&cpu0, 11, 2000, 0x402000); /* thread 11 out at 2000 */
	in(&cpu0, 11, 9000);		/* ... in at 9000: after the drain */
	out(&cpu1, 12, 3000, 0x403000); /* thread 12 out, never back */
	check(utrace_offcpu_feed(o, cpu0.b, cpu0.n) == 0 &&
		  utrace_offcpu_feed(o, cpu1.b, cpu1.n) == 0,
	      "offcpu: the records are read, CPU 0's first");
	check(utrace_offcpu_flush(o, 5000, &r, &len) == 0 && len > 0, "offcpu: a flush to 5000");
	got = sample(r, len, 0, v);
	check(got && v[0] == 10 && v[1] == 1000 && v[2] == 3000 && v[3] == 0x401000,
	      "offcpu: thread 10 was out 3000 ns, from 1000, under its user ip (tid %llu, "
	      "at %llu, %llu ns)",
	      (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
	check(!sample(r, len, 1, v), "offcpu: thread 11 waits, its switch-in is past 5000");
	in(&late, 13, 9500); /* a thread never seen out: nothing */
	utrace_offcpu_feed(o, late.b, late.n);
	check(utrace_offcpu_flush(o, UINT64_MAX, &r, &len) == 0 && sample(r, len, 0, v) &&
		  v[0] == 11 && v[2] == 7000 && !sample(r, len, 1, v),
	      "offcpu: at the end thread 11's 7000 ns; 12 never back, 13 never out: nothing");
	check(utrace_offcpu_samples(o) == 2, "offcpu: 2 samples in all");
	utrace_offcpu_free(o);
	return check_end();
}
