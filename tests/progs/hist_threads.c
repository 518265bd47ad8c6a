// SPDX-License-Identifier: MIT
//
// hist_threads.c - 8 threads fire one tracepoint at once into one hist
// table: each fires id k (0..7) ROUNDS times with bytes = k + 1, after a
// barrier so that they all run together.  Every key must then count
// exactly 8 * ROUNDS hits and a bytes sum of 8 * ROUNDS * (k + 1), however
// the hits of the threads were added (common/hist_map.h: each thread's own
// stripe, or the locked shared sums).  Prints nothing that depends on
// tracing.
#include <pthread.h>
#include <stdio.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "hist_events.h"

#define THREADS 8
#ifndef ROUNDS
#define ROUNDS 20000
#endif

static pthread_barrier_t start;

TRACED void fire_all(void)
{
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < 8; k++) {
			trace_hist_req(k, (unsigned long)k + 1, "mt");
			BARRIER();
		}
}

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	fire_all();
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];

	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, thread_main, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("fired %d events\n", THREADS * ROUNDS * 8);
	return 0;
}
