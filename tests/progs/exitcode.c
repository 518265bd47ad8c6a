/* SPDX-License-Identifier: MIT */
/*
 * exitcode.c - exits with status 3 by calling exit() from two traced
 * frames down (main -> run -> finish -> exit), after writing to stdout and
 * stderr.  utrace record must exit with 3 too, and the trace must hold
 * run() and finish() even though they never return.
 */
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

TRACED int compute(int x)
{
	BARRIER();
	return x * x;
}

TRACED void finish(int status)
{
	fprintf(stderr, "exitcode: exiting with status %d\n", status);
	exit(status);
}

TRACED void run(void)
{
	printf("exitcode: compute(9) = %d\n", compute(opaque(9)));
	finish(3);
	BARRIER();
}

int main(void)
{
	run();
	return 0;
}
