/* SPDX-License-Identifier: MIT */
/*
 * longjmp.c - non-local exits through traced frames.
 *
 *  1. setjmp in main, longjmp from 6 traced frames down; then more calls
 *     (after_longjmp) which must nest directly under main().
 *  2. setjmp inside a traced function (catcher), longjmp back into it from
 *     5 frames below; catcher then calls after_in_catcher() and returns
 *     normally (its own return must still work), three times in a row.
 *  3. sigsetjmp(.., 1) in main, siglongjmp out of a SIGUSR1 handler that
 *     was raised 4 traced frames deep; the signal mask is restored; then
 *     after_siglongjmp().
 *
 * Expectation: every entry in the graph has a matching exit (the frames
 * skipped by the jump are closed), and the calls after each jump are at
 * the depth of the function that called setjmp.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "progs.h"

static jmp_buf main_jb, catch_jb;
static sigjmp_buf sig_jb;
static volatile int depth_reached;

TRACED void jump_down(jmp_buf *jb, int n, int val)
{
	if (n < 0)
		return;
	depth_reached++;
	if (n == 0)
		longjmp(*jb, val);
	jump_down(jb, n - 1, val);
	BARRIER();
}

TRACED int after_longjmp(int x)
{
	BARRIER();
	return x + 10;
}

TRACED int after_in_catcher(int x)
{
	BARRIER();
	return x * 2;
}

TRACED int after_siglongjmp(int x)
{
	BARRIER();
	return x - 1;
}

TRACED int catcher(int round)
{
	volatile int r = 0;
	int v = setjmp(catch_jb);

	if (v == 0) {
		jump_down(&catch_jb, 4, 100 + round);
		return -1; /* not reached */
	}
	r = after_in_catcher(v);
	BARRIER();
	return r;
}

TRACED void on_usr1(int sig)
{
	(void)sig;
	siglongjmp(sig_jb, 7);
}

TRACED void raise_down(int n)
{
	if (n == 0)
		raise(SIGUSR1);
	else
		raise_down(n - 1);
	BARRIER();
}

int main(void)
{
	volatile int v;
	struct sigaction sa;
	sigset_t cur;

	/* 1 */
	v = setjmp(main_jb);
	if (v == 0) {
		jump_down(&main_jb, 5, 42);
		printf("not reached\n");
		return 1;
	}
	printf("longjmp returned %d after %d frames\n", v, depth_reached);
	printf("after_longjmp = %d\n", after_longjmp(v));

	/* 2 */
	for (int round = 0; round < 3; round++)
		printf("catcher(%d) = %d\n", round, catcher(round));

	/* 3 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	v = sigsetjmp(sig_jb, 1);
	if (v == 0) {
		raise_down(3);
		printf("not reached\n");
		return 1;
	}
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("siglongjmp returned %d, SIGUSR1 blocked: %s\n", v,
	       sigismember(&cur, SIGUSR1) ? "yes" : "no");
	printf("after_siglongjmp = %d\n", after_siglongjmp(v));
	return 0;
}
