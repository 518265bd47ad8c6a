/* SPDX-License-Identifier: MIT */
/*
 * killed_crash.c - dies of the signal its argument names after some
 * traced calls: "segv" (a NULL read), "abort".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int load(volatile int *p)
{
	return *p;
}

int main(int argc, char **argv)
{
	volatile int *nowhere = NULL;

	puts("before");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "abort"))
		abort();
	return load(nowhere);
}
