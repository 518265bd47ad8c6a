/* SPDX-License-Identifier: MIT */
/*
 * modes_close.c - closes every descriptor above 2, as daemons and
 * sandboxes do (close_range(3, ~0U, 0), then closefrom(3) again after a
 * thread has started), while traced functions run before and after, in
 * the main thread and in new threads; then writes its output on fd 1.
 * Counts: cl_work is called 2 * ROUNDS + THREADS * ROUNDS times.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 1000
#define THREADS 4

static volatile long zero;

__attribute__((noinline)) long cl_work(long v)
{
	return (v + zero) * 2654435761u % 10007;
}

static void *thread(void *arg)
{
	long s = (long)arg;

	for (int i = 0; i < ROUNDS; i++)
		s = (s + cl_work(i)) & 0xffff;
	return (void *)s;
}

int main(void)
{
	pthread_t t[THREADS];
	long s = 0;

	for (int i = 0; i < ROUNDS; i++)
		s = (s + cl_work(i)) & 0xffff;
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
		perror("close_range");
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread, (void *)(long)i);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	closefrom(3);
#else
	syscall(SYS_close_range, 3u, ~0u, 0u);
#endif
	for (int i = 0; i < ROUNDS; i++)
		s = (s + cl_work(i * 3)) & 0xffff;
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		s = (s + (long)r) & 0xffff;
	}
	printf("result %ld\n", s);
	fflush(stdout);
	return (int)(s % 100);
}
