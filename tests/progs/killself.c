/* SPDX-License-Identifier: MIT */
/*
 * killself.c - dies by a signal after some traced calls, from inside
 * traced frames (main -> doomed -> die):
 *
 *   killself segv   a real NULL store (SIGSEGV)
 *   killself abrt   abort() (SIGABRT)
 *   killself kill   raise(SIGKILL): nothing in the process can react
 *
 * The exit must stay a death by that signal (utrace record exits with
 * 128 + signo, like a shell), and the trace file must still be readable
 * and hold the functions called before the signal (before_death, doomed,
 * die).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

TRACED int before_death(int x)
{
	BARRIER();
	return x + 5;
}

TRACED void die(const char *how)
{
	fflush(stdout);
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)opaque(0) = 1;
	else if (!strcmp(how, "kill"))
		raise(SIGKILL);
	else
		abort();
	BARRIER();
}

TRACED void doomed(const char *how)
{
	die(how);
	BARRIER();
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";

	for (int i = 0; i < 3; i++)
		printf("killself: before_death(%d) = %d\n", i, before_death(opaque(i)));
	printf("killself: dying by %s\n", how);
	doomed(how);
	printf("killself: survived?\n");
	return 0;
}
