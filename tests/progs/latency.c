/* SPDX-License-Identifier: MIT */
/*
 * latency.c - calls of known durations for `utrace latency`
 * (tests/e2e/run.sh): nap() sleeps 2 ms five times, quick() returns at
 * once QUICK times, so that their histogram has counts in buckets far
 * apart whatever the machine's noise: quick's under the 1024 us edge of
 * the microsecond buckets, nap's past it (2 ms, not 1: a 1 ms sleep that
 * took 1.01 ms would be in "512 - 1024 us").  Also
 * writes on stdout and stderr and exits with 3, which utrace latency must
 * pass on unchanged.
 */
#include <stdio.h>
#include <time.h>

#include "progs.h"

#define NAPS 5
#define QUICK 20

TRACED void nap(void)
{
	struct timespec ts = {0, 2000000};

	/* at least 2 ms, even if a signal interrupts it */
	while (nanosleep(&ts, &ts))
		;
	BARRIER();
}

TRACED int quick(int x)
{
	BARRIER();
	return x + 1;
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < NAPS; i++)
		nap();
	for (int i = 0; i < QUICK; i++)
		sum = quick(sum);
	printf("latency: %d naps, %d quick calls\n", NAPS, sum);
	fprintf(stderr, "latency: done\n");
	return 3;
}
