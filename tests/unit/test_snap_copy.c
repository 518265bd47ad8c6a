/* SPDX-License-Identifier: MIT */
/*
 * test_snap_copy.c - the recorder's copy of a sub-buffer its producer may
 * be rewriting (rec_subbuf_copy, lib/record/recorder_drain.c), which the
 * snapshots and overwrite mode rely on: a slot that holds another index
 * is nothing; one the producer rewrites meanwhile is torn (-1), never a
 * copy that mixes two of its lives.  A producer thread rewrites a ring
 * of four sub-buffers as runtime/ring_buffer.c does (seq, release fence,
 * header and records, commit), every record word of sub-buffer i being
 * i; the copies must each hold one i throughout.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

#define NR 4u
#define WORDS 1024u

static struct rec_buffer buf;
static uint8_t *mem;
static volatile int stop;
static uint64_t produced; /* sub-buffers written (head) */

static struct utrace_subbuf *slot(uint64_t idx)
{
	return (struct utrace_subbuf *)(mem + UTRACE_RB_META_SIZE +
					(idx % NR) * UTRACE_SUBBUF_SIZE);
}

static void write_subbuf(uint64_t idx)
{
	struct utrace_subbuf *sb = slot(idx);
	uint32_t *w = (uint32_t *)(sb + 1);

	__atomic_store_n(&sb->seq, (uint32_t)idx, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sb->time_stamp = idx;
	sb->commit = 0;
	for (uint32_t i = 0; i < WORDS; i++) {
		__atomic_store_n(&w[i], (uint32_t)idx, __ATOMIC_RELAXED);
		if (i % 64 == 63) /* commit grows as records are written */
			__atomic_store_n(&sb->commit, (i + 1) * 4, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&produced, idx + 1, __ATOMIC_RELEASE);
}

static void *producer(void *arg)
{
	(void)arg;
	for (uint64_t idx = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); idx++)
		write_subbuf(idx);
	return NULL;
}

static void test_static(void)
{
	struct utrace_subbuf hdr;
	static uint8_t out[UTRACE_SUBBUF_SIZE];

	write_subbuf(0);
	write_subbuf(1);
	check(rec_subbuf_copy(&buf, 1, &hdr, out) == (int)(WORDS * 4) && hdr.time_stamp == 1 &&
		  hdr.commit == WORDS * 4,
	      "a still sub-buffer: copied whole, its commit in the header");
	check(rec_subbuf_copy(&buf, 5, &hdr, out) == 0,
	      "a slot that holds another index (1, not 5): nothing");
}

static void test_racing(void)
{
	static uint8_t out[UTRACE_SUBBUF_SIZE];
	uint64_t good = 0, torn = 0, bad = 0;
	pthread_t th;

	stop = 0;
	if (pthread_create(&th, NULL, producer, NULL)) {
		check(0, "pthread_create");
		return;
	}
	for (int k = 0; k < 200000; k++) {
		uint64_t head = __atomic_load_n(&produced, __ATOMIC_ACQUIRE);
		struct utrace_subbuf hdr;
		int n;

		/* the oldest one still in the ring: the likeliest to be torn */
		n = rec_subbuf_copy(&buf, head >= NR - 1 ? head - NR + 1 : 0, &hdr, out);
		if (n < 0) {
			torn++;
			continue;
		}
		good += n > 0;
		for (int i = 0; i < n / 4; i++)
			if (((uint32_t *)out)[i] != (uint32_t)hdr.time_stamp ||
			    hdr.seq != (uint32_t)hdr.time_stamp) {
				bad++;
				break;
			}
	}
	stop = 1;
	pthread_join(th, NULL);
	check(bad == 0,
	      "no copy mixes two lives of its sub-buffer (%llu good, %llu torn, %llu bad)",
	      (unsigned long long)good, (unsigned long long)torn, (unsigned long long)bad);
	check(good > 0, "copies were made while the producer ran (%llu)", (unsigned long long)good);
}

int main(void)
{
	mem = aligned_alloc(64, UTRACE_RB_META_SIZE + NR * UTRACE_SUBBUF_SIZE);
	if (!mem)
		return 2;
	memset(mem, 0xff, UTRACE_RB_META_SIZE + NR * UTRACE_SUBBUF_SIZE);
	buf.meta = (struct utrace_rb_meta *)mem;
	buf.meta->nr_subbufs = NR;
	buf.subbuf_size = UTRACE_SUBBUF_SIZE;
	test_static();
	test_racing();
	free(mem);
	return check_done();
}
