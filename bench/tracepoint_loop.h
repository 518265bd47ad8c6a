/* SPDX-License-Identifier: MIT */
/*
 * tracepoint_loop.h - the timed loop shared by bench/tracepoint_*.c.
 *
 * The including file defines TP_HIT(i), the tracepoint call of one
 * iteration, and TP_NAME, what it measures.  main() runs TP_HIT(i) for
 * i = 0 .. N-1 (N = argv[1], default 10,000,000) after a short untimed
 * warm-up of N/100 iterations (the first record's buffer creation,
 * LTTng's lazy set-up), and times only the main loop with clock_gettime,
 * so process start-up and the tracers' start-up are not counted.  It
 * prints one line:
 *
 *   NAME n=N ns=TOTAL ns/event=X.XXX cpu_ns/event=Y.YYY
 *
 * ns/event is wall-clock time (CLOCK_MONOTONIC) per iteration; cpu_ns/event
 * is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, user + system: page
 * faults count, time spent waiting for the CPU while another process runs
 * does not), the steadier figure on a loaded machine.
 *
 * The `asm volatile` in every iteration keeps the compiler from deleting
 * or vectorising the loop when TP_HIT is empty (the baseline); it emits no
 * instruction.
 */
#ifndef BENCH_TRACEPOINT_LOOP_H
#define BENCH_TRACEPOINT_LOOP_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long tp_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void __attribute__((noinline)) tp_loop(int n)
{
	for (int i = 0; i < n; i++) {
		__asm__ volatile("");
		TP_HIT(i);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000L;
	long long t0, t1, c0, c1;

	if (n <= 0 || n > 2000000000L) {
		fprintf(stderr, "usage: %s [N]\n", argv[0]);
		return 2;
	}
	tp_loop((int)(n / 100)); /* warm-up, not timed */
	c0 = tp_now_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = tp_now_ns(CLOCK_MONOTONIC);
	tp_loop((int)n);
	t1 = tp_now_ns(CLOCK_MONOTONIC);
	c1 = tp_now_ns(CLOCK_THREAD_CPUTIME_ID);
	printf("%s n=%ld ns=%lld ns/event=%.3f cpu_ns/event=%.3f\n", TP_NAME, n, t1 - t0,
	       (double)(t1 - t0) / (double)n, (double)(c1 - c0) / (double)n);
	return 0;
}

#endif /* BENCH_TRACEPOINT_LOOP_H */
