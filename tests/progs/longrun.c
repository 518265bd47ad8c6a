/* SPDX-License-Identifier: MIT */
/*
 * longrun.c - many calls with a recognisable beginning and end, for the
 * buffer tests: first_func(), then filler() argv[1] times (default
 * 200000), then slow() (sleeps 5 ms), then the_end().
 *
 *   --overwrite -b 64   keeps the_end, loses first_func
 *   --thresh 1000       keeps slow (and main), drops filler
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "progs.h"

TRACED long first_func(long x)
{
	BARRIER();
	return x + 1;
}

TRACED long filler(long x)
{
	BARRIER();
	return x & 7;
}

TRACED void slow(void)
{
	struct timespec ts = {0, 5 * 1000 * 1000};

	nanosleep(&ts, NULL);
	BARRIER();
}

TRACED long the_end(long x)
{
	BARRIER();
	return x * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long s = first_func(opaque(1));

	for (long i = 0; i < n; i++)
		s += filler(i);
	slow();
	printf("longrun: %ld\n", the_end(s));
	return 0;
}
