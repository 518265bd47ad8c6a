/* SPDX-License-Identifier: MIT */
/*
 * kspin2.c - two threads, each spinning in spin() under a function of its
 * own (work1, work2), for tests/kernel/samples_fgraph.sh: their sampled
 * chains must stay apart (start_thread;work1;spin and
 * start_thread;work2;spin) under function_graph.  Built -O0
 * -fno-omit-frame-pointer, so every function keeps its frame.
 */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long n = 300000000;

__attribute__((noinline)) void spin(unsigned long k)
{
	for (unsigned long i = 0; i < k; i++)
		sink += i;
}

__attribute__((noinline)) void *work1(void *arg)
{
	(void)arg;
	spin(n);
	return NULL;
}

__attribute__((noinline)) void *work2(void *arg)
{
	(void)arg;
	spin(n);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1)
		n = strtoul(argv[1], NULL, 0);
	if (pthread_create(&a, NULL, work1, NULL) || pthread_create(&b, NULL, work2, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
