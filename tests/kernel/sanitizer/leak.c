/* SPDX-License-Identifier: MIT */
/*
 * leak.c - a planted leak for tests/kernel/sanitizer.sh
 * (-fsanitize=leak, or address): make() allocates 40 bytes whose only
 * pointer main drops; LeakSanitizer reports it at exit.
 */
#include <stdlib.h>

void *volatile keep;

__attribute__((noinline)) void *make(void)
{
	return malloc(40);
}

int main(void)
{
	keep = make();
	keep = NULL;
	return 0;
}
