/* SPDX-License-Identifier: MIT */
/*
 * rename.c - threads that rename themselves, for tests/diff/rename.sh:
 * main calls step() as "rename", renames itself "main-renamed" and calls
 * step() again; a thread calls step(), renames itself "worker-new" and
 * calls step() again.  The kernel's saved_cmdlines, and so trace-cmd and
 * ps, show a thread by its last name.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) void step(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	step(10);
	pthread_setname_np(pthread_self(), "worker-new");
	step(20);
	return NULL;
}

int main(void)
{
	pthread_t t;

	step(1);
	pthread_setname_np(pthread_self(), "main-renamed");
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	step(2);
	printf("%d\n", sink);
	return 0;
}
