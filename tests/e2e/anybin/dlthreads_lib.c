/* SPDX-License-Identifier: MIT */
/*
 * dlthreads_lib.c - the library dlthreads.c dlopen()s while its threads
 * run, built without utrace cflags: a 4-byte function (int3 entry) and
 * longer ones (jmp entries, written once no thread is in their way).
 * Its constructor starts a thread that calls dl_mix DL_BUSY times, so
 * that a thread runs inside the library while utrace patches it; dl_done
 * waits for it and returns what it computed.
 */
#include <pthread.h>

#define DL_BUSY 500000

static pthread_t busy;
static long busy_sum;

__attribute__((noinline)) int dl_add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) int dl_mix(int a)
{
	int s = a;

	for (int i = 0; i < (a & 7); i++)
		s = s * 31 + i;
	return s & 0xffff;
}

__attribute__((noinline)) int dl_work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += dl_add(i, dl_mix(i));
	return s;
}

static void *dl_busy(void *arg)
{
	long s = 0;

	(void)arg;
	for (int i = 0; i < DL_BUSY; i++)
		s += dl_mix(i);
	busy_sum = s;
	return NULL;
}

long dl_done(void)
{
	pthread_join(busy, NULL);
	return busy_sum;
}

__attribute__((constructor)) static void dl_start(void)
{
	pthread_create(&busy, NULL, dl_busy, NULL);
}
