/* SPDX-License-Identifier: MIT */
/*
 * filter_bench.c - what an event filter costs per event: the time of
 * utrace_filter_run() (common/filter_prog.h), compiled with the runtime's
 * flags, on records of a hand-made event.
 *
 *   make build/libutrace-tool.a
 *   cc -std=gnu11 -O2 -I. -Iinclude -mgeneral-regs-only \
 *       bench/filter_bench.c build/libutrace-tool.a -o build/filter_bench
 *   build/filter_bench [iterations]
 *
 * Prints one line per case: "<ns>.<cc> ns/eval  <expr> (<what>)".
 * No floating point, so that it builds with -mgeneral-regs-only like
 * libutrace.so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/filter_prog.h"
#include "lib/events/event_filter.h"

/* common fields @0..8, int count @8, char comm[16] @12,
 * __data_loc char[] word @28, dynamic data from 32 */
#define REC_SIZE 32
static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "count", "count", 8, 4, true, false, UTRACE_EF_INT},
    {"char", "comm[16]", "comm", 12, 16, true, false, UTRACE_EF_CHARS},
    {"__data_loc char[]", "word", "word", 28, 4, false, false, UTRACE_EF_STRING},
};
static const struct utrace_event_format fmt = {
    .system = "bench",
    .name = "sample",
    .rec_size = REC_SIZE,
    .nr_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
    .print_fmt = "\"count=%d\", REC->count",
};

struct rec {
	uint8_t b[REC_SIZE + 64];
	uint32_t len;
};

static void make_rec(struct rec *r, int32_t count, const char *comm, const char *word)
{
	uint32_t n = (uint32_t)strlen(word) + 1, loc = n << 16 | REC_SIZE;

	memset(r->b, 0, sizeof(r->b));
	memcpy(r->b + 8, &count, 4);
	strncpy((char *)r->b + 12, comm, 16);
	memcpy(r->b + 28, &loc, 4);
	memcpy(r->b + REC_SIZE, word, n);
	r->len = REC_SIZE + n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs expr on the 4 records in turn; prints hundredths of ns/eval. */
static int bench(const char *expr, const struct rec *recs, const char *what, uint64_t iters)
{
	struct utrace_error err = {0};
	uint64_t t0, t1, i, kept = 0, best = UINT64_MAX, per;
	uint32_t plen;
	void *prog;
	int round;

	if (utrace_filter_compile(&fmt, expr, &prog, &plen, &err) < 0 || !prog) {
		fprintf(stderr, "filter_bench: %s: %s\n", expr, err.msg);
		return -1;
	}
	for (round = 0; round < 5; round++) {
		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			const struct rec *r = &recs[i & 3];

			/* Reload everything each time, as the runtime would. */
			__asm__ volatile("" : : "r"(r) : "memory");
			kept += (uint64_t)utrace_filter_run(prog, plen, r->b, r->len);
		}
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	per = best * 100 / iters;
	printf("%3llu.%02llu ns/eval  %-40s (%s; kept %llu%%)\n", (unsigned long long)(per / 100),
	       (unsigned long long)(per % 100), expr, what,
	       (unsigned long long)(kept * 100 / (iters * 5)));
	free(prog);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000u;
	struct rec mixed[4], keep[4], drop1[4];
	int i, ret = 0;

	if (!iters)
		iters = 1;
	make_rec(&mixed[0], 7, "bash", "foobar");  /* kept */
	make_rec(&mixed[1], 3, "bash", "foobar");  /* count fails */
	make_rec(&mixed[2], 9, "zsh", "barfoo");   /* word fails */
	make_rec(&mixed[3], 12, "python3", "foo"); /* kept */
	for (i = 0; i < 4; i++) {
		keep[i] = mixed[0];
		drop1[i] = mixed[1];
	}
	ret |= bench("count > 5 && word ~ \"foo*\"", mixed, "mixed records", iters);
	ret |= bench("count > 5 && word ~ \"foo*\"", keep, "both tests, kept", iters);
	ret |= bench("count > 5 && word ~ \"foo*\"", drop1, "first test drops", iters);
	ret |= bench("count > 5", mixed, "one integer test", iters);
	ret |= bench("comm == \"bash\" || comm == \"zsh\"", mixed, "char[16] ==", iters);
	ret |= bench("word ~ \"*o?b*r\"", mixed, "full glob", iters);
	return ret ? 1 : 0;
}
