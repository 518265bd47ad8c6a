/* counts_calls.c N [THREADS]: an exact number of traced calls.  main
 * starts THREADS workers (0: main does the work), each calling leaf()
 * N times; tests/hostile/counts.sh knows from that what every tracer
 * must count. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n;

__attribute__((noinline)) long leaf(long x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) void *worker(void *arg)
{
	long v = 0;

	for (long i = 0; i < n; i++)
		v = leaf(v);
	*(long *)arg = v;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t tid[16];
	long v[16] = {0}, sum = 0;

	n = argc > 1 ? atol(argv[1]) : 1000;
	if (threads < 0 || threads > 16)
		return 2;
	if (!threads)
		worker(&v[0]);
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, &v[i]);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < 16; i++)
		sum += v[i];
	printf("%ld\n", sum);
	return 0;
}
