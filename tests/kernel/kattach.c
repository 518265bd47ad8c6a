/* SPDX-License-Identifier: MIT */
/*
 * kattach.c - a multi-threaded computation for tests/kernel/attach.sh:
 * NTHREADS threads (argv[1], default 4) each run ROUNDS (argv[2]) rounds
 * of small function calls, sleeping a moment now and then so that
 * attaching finds threads both in system calls and computing; the sums
 * printed at the end do not depend on timing, so a run that was attached
 * to and detached from many times prints what an untraced run prints.
 * Writes "ready" to stderr once every thread runs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int nrounds = 2000;
static pthread_barrier_t start;

__attribute__((noinline)) static unsigned long mix(unsigned long x, unsigned long k)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ul + k;
	return x ^ (x >> 27);
}

__attribute__((noinline)) static unsigned long step(unsigned long x, int i)
{
	for (int j = 0; j < 50; j++)
		x = mix(x, (unsigned long)(i + j));
	return x;
}

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)(uintptr_t)arg + 1;
	struct timespec nap = {0, 200000};

	pthread_barrier_wait(&start);
	for (int i = 0; i < nrounds; i++) {
		x = step(x, i);
		if (i % 16 == 0)
			nanosleep(&nap, NULL);
	}
	return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[64];
	unsigned long total = 0;

	if (argc > 2)
		nrounds = atoi(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	pthread_barrier_wait(&start);
	fprintf(stderr, "ready\n");
	for (int i = 0; i < n; i++) {
		void *r;

		pthread_join(th[i], &r);
		printf("thread %d: %016lx\n", i, (unsigned long)(uintptr_t)r);
		total ^= (unsigned long)(uintptr_t)r;
	}
	printf("total: %016lx\n", total);
	return 0;
}
