/* SPDX-License-Identifier: MIT */
/*
 * fib.c - recursive fib(N) (N = argv[1], default 6): a deterministic,
 * single-threaded graph compared against tests/e2e/golden/fib.txt.
 * fib(6) makes 25 calls, 13 of them leaves.
 */
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

TRACED int fib(int n)
{
	int r;

	if (n < 2)
		return n;
	r = fib(n - 1);
	r += fib(n - 2);
	BARRIER(); /* no tail-recursion accumulator at -O2 */
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 6;

	printf("fib(%d) = %d\n", n, fib(n));
	return 0;
}
