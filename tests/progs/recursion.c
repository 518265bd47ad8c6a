/* SPDX-License-Identifier: MIT */
/*
 * recursion.c - recursion 100000 deep (argv[1] overrides).  Runs in a
 * thread with a 256 MiB stack so it is valid untraced at -O0 with any
 * compiler; the tracer's return stack must cope with the depth: entries =
 * exits = depth + 1, nothing lost, no crash.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

TRACED long recurse(long n)
{
	long r;

	if (n == 0)
		return 0;
	r = recurse(n - 1) + 1;
	BARRIER(); /* no tail-recursion accumulator at -O2 */
	return r;
}

static void *run(void *arg)
{
	long n = (long)arg;

	return (void *)recurse(n);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	pthread_attr_t attr;
	pthread_t t;
	void *res;

	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, 256ul << 20) ||
	    pthread_create(&t, &attr, run, (void *)n)) {
		fprintf(stderr, "recursion: cannot create the thread\n");
		return 1;
	}
	pthread_join(t, &res);
	printf("recurse(%ld) = %ld\n", n, (long)res);
	return 0;
}
