/* SPDX-License-Identifier: MIT */
/*
 * modes_jmp.c - leaves traced functions without returning: longjmp out
 * of jmp_deep (3 traced frames down), and siglongjmp out of a SIGUSR1
 * handler that runs inside jmp_deep and calls traced jmp_handler_work
 * itself, then leaves through it.  ROUNDS of each; prints counts and a
 * result.  jmp_deep is called 3 * 2 * ROUNDS times, jmp_handler_work
 * ROUNDS times.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 2000

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile long sink;

__attribute__((noinline)) void jmp_handler_work(int n)
{
	sink += n;
	siglongjmp(sjb, n + 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	jmp_handler_work((int)(sink & 0xff));
}

__attribute__((noinline)) void jmp_deep(int depth, int how)
{
	sink += depth;
	if (depth > 0) {
		jmp_deep(depth - 1, how);
		sink++; /* not a tail call */
		return;
	}
	if (how == 0)
		longjmp(jb, 1);
	raise(SIGUSR1);
}

int main(void)
{
	struct sigaction sa;
	long jumps = 0, sigjumps = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		if (setjmp(jb) == 0)
			jmp_deep(2, 0);
		else
			jumps++;
		if (sigsetjmp(sjb, 1) == 0)
			jmp_deep(2, 1);
		else
			sigjumps++;
	}
	printf("jumps %ld sigjumps %ld sink %ld\n", jumps, sigjumps, sink);
	return 0;
}
