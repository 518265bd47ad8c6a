/* SPDX-License-Identifier: MIT */
/*
 * leak.c - a planted leak for tests/kernel/sanitizer.sh
 * (-fsanitize=leak, or address): make() allocates 40 bytes whose only
 * pointer drop() forgets; scrub() then writes over the stack below main
 * so that no stale copy of the pointer keeps LeakSanitizer, which scans
 * the stacks conservatively, from reporting it at exit.
 */
#include <stdlib.h>

void *volatile keep;

__attribute__((noinline)) void *make(void)
{
	return malloc(40);
}

__attribute__((noinline)) void drop(void)
{
	keep = make();
	keep = NULL;
}

__attribute__((noinline)) void scrub(void)
{
	volatile char buf[4096];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}

int main(void)
{
	drop();
	scrub();
	return 0;
}
