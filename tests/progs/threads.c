/* SPDX-License-Identifier: MIT */
/*
 * threads.c - four pthreads, each running its own functions (worker ->
 * work<i> -> leaf), joined by main, which prints the sum.  The tracer must
 * give every thread its own stream: each work<i> appears under its own tid,
 * nested under that thread's worker(), with balanced braces per task.
 */
#include <pthread.h>
#include <stdio.h>

#include "progs.h"

#define NTHREADS 4
#define ROUNDS 200

TRACED long leaf(long x)
{
	BARRIER();
	return x * x + 1;
}

TRACED long work0(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i);
	BARRIER();
	return s;
}

TRACED long work1(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i + 1);
	BARRIER();
	return s;
}

TRACED long work2(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i + 2);
	BARRIER();
	return s;
}

TRACED long work3(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i + 3);
	BARRIER();
	return s;
}

static long (*const works[NTHREADS])(long) = {work0, work1, work2, work3};
static long results[NTHREADS];

TRACED void *worker(void *arg)
{
	long id = (long)arg;

	results[id] = works[id](ROUNDS);
	BARRIER();
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long sum = 0;

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++) {
		printf("thread %d: %ld\n", i, results[i]);
		sum += results[i];
	}
	printf("sum: %ld\n", sum);
	return 0;
}
