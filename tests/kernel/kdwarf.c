/* SPDX-License-Identifier: MIT */
/*
 * kdwarf.c - a known call chain main -> a -> b -> c, c burning the CPU,
 * for tests/kernel/samples_dwarf.sh.  Built -O2 -fomit-frame-pointer: no
 * function keeps a frame pointer, so only DWARF unwinding (the CFI of
 * .eh_frame) finds c's callers.  Each caller does some work after its call
 * so that no call becomes a jump (a tail call would drop the caller from
 * the stack for any unwinder).
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void c(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void b(unsigned long n)
{
	c(n);
	sink++;
}

__attribute__((noinline)) void a(unsigned long n)
{
	b(n);
	sink++;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000;

	for (int i = 0; i < 4; i++)
		a(n);
	return 0;
}
