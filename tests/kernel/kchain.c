/* SPDX-License-Identifier: MIT */
/*
 * kchain.c - call chains of known shares for tests/kernel/samples_graph.sh:
 * every function spins in spin(); main calls a (which calls c) for 50% of
 * the CPU time, b (c for 10%, d for 25%) and e for 15%, so c has two
 * callers and b two callees.  Every two branches or entries that could be
 * ordered either way are 10 points apart, more than sampling noise moves
 * them at a thousand samples, so the trees' shape is fixed.  Built -O0 -fno-omit-frame-pointer: every function
 * keeps its frame and no call becomes a jump.
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void c(unsigned long n)
{
	spin(n);
}

__attribute__((noinline)) void d(unsigned long n)
{
	spin(n);
}

__attribute__((noinline)) void e(unsigned long n)
{
	spin(n);
}

__attribute__((noinline)) void a(unsigned long n)
{
	c(50 * n);
}

__attribute__((noinline)) void b(unsigned long n)
{
	c(10 * n);
	d(25 * n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;

	for (int i = 0; i < 10; i++) {
		a(n);
		b(n);
		e(15 * n);
	}
	return 0;
}
