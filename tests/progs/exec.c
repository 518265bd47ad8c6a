/* SPDX-License-Identifier: MIT */
/*
 * exec.c - execs itself (/proc/self/exe) with the argument "phase2" from
 * inside traced frames (phase1 -> do_exec -> execv).
 *
 * Documented expectation: the new image is traced too.  The report shows
 * phase1() and do_exec() left open (the old image never returns) and then
 * the second image's main() -> phase2() graph under the same pid.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

TRACED int phase1_leaf(int x)
{
	BARRIER();
	return x * 3;
}

TRACED int phase2_leaf(int x)
{
	BARRIER();
	return x * 5;
}

TRACED int phase2(int x)
{
	int r = phase2_leaf(x) + phase2_leaf(x + 1);

	BARRIER();
	return r;
}

TRACED void do_exec(const char *argv0)
{
	char *args[] = {(char *)argv0, "phase2", NULL};

	fflush(stdout);
	execv("/proc/self/exe", args);
	perror("execv");
	BARRIER();
}

TRACED int phase1(const char *argv0)
{
	printf("phase1: %d\n", phase1_leaf(opaque(7)));
	do_exec(argv0);
	BARRIER();
	return 1; /* only if exec failed */
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "phase2")) {
		printf("phase2: %d\n", phase2(opaque(4)));
		return 0;
	}
	return phase1(argv[0]);
}
