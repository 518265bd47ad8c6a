/* SPDX-License-Identifier: MIT */
/*
 * kburn.c - CPU time in known shares, for tests/kernel/samples.sh: each
 * round runs burn10, burn30 and burn60, whose loops take 1, 3 and 6 times
 * N iterations of the same work, so they burn 10%, 30% and 60% of the
 * program's CPU time.  Prints 1 (the work's result, so it is not elided).
 */
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
#define BURN(name, k)                                                                              \
	__attribute__((noinline)) void name(unsigned long n)                                       \
	{                                                                                          \
		unsigned long s = sink;                                                            \
		for (unsigned long i = 0; i < k * n; i++)                                          \
			s += i * 3 + (s >> 7);                                                     \
		sink = s;                                                                          \
	}
BURN(burn10, 1) BURN(burn30, 3) BURN(burn60, 6) int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 1000000;
	for (int r = 0; r < 20; r++) {
		burn10(n);
		burn30(n);
		burn60(n);
	}
	printf("%lu\n", sink & 1);
	return 0;
}
