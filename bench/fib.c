/* SPDX-License-Identifier: MIT */
/*
 * fib.c - the call-overhead micro benchmark: naive recursive Fibonacci.
 *
 *   fib [N]        (default 30)
 *
 * fib(N) makes exactly 2*fib(N+1)-1 calls to fib() (plus one to main):
 * 2,692,537 for N = 30.  bench/run.sh computes that figure itself and
 * checks it against the number of calls utrace recorded.
 *
 * The function body does almost nothing, so the cost of a traced call is
 * the cost of the tracing hooks.  The empty asm statements keep both
 * recursive calls out of tail position: at -O2 gcc otherwise turns
 * "fib(n-1) + fib(n-2)" into one call plus a loop (tail recursion with an
 * accumulator), and the call count would no longer be 2*fib(N+1)-1.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned long fib(unsigned n)
{
	unsigned long a, b;

	if (n < 2)
		return n;
	a = fib(n - 1);
	__asm__ volatile("" : "+r"(a));
	b = fib(n - 2);
	__asm__ volatile("" : "+r"(b));
	return a + b;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 30;

	printf("fib(%u) = %lu\n", n, fib(n));
	return 0;
}
