/* SPDX-License-Identifier: MIT */
/*
 * coro_ctx.c - the other uses of ucontext: a getcontext/setcontext round
 * trip that leaves traced frames behind (as longjmp does), a coroutine
 * abandoned inside traced frames and never resumed, its stack then given
 * to a new coroutine by makecontext, and coroutines whose function
 * returns to uc_link.  Known counts: ctx_jump 99 (each left by
 * setcontext), ctx_body 100, ctx_work 3 * WORK + 1, ctx_run 3,
 * ctx_abandon 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK (64 * 1024)
#define WORK 300

static ucontext_t main_ctx, again, co;
static volatile int n;
static unsigned long acc;

__attribute__((noinline)) void ctx_body(int i)
{
	acc = acc * 33 + (unsigned long)i;
}

__attribute__((noinline)) void ctx_jump(void)
{
	setcontext(&again); /* back into main's frame: this one is left */
}

__attribute__((noinline)) unsigned long ctx_work(unsigned long x)
{
	return x * 2654435761u % 65521u;
}

/* Yields from inside its frames and is never resumed. */
__attribute__((noinline)) void ctx_abandon(void)
{
	acc += ctx_work(acc);
	swapcontext(&co, &main_ctx);
	abort(); /* never resumed */
}

/* A coroutine's function: returns to uc_link (main). */
__attribute__((noinline)) void ctx_run(int k)
{
	for (int i = 0; i < WORK; i++)
		acc += ctx_work(acc + (unsigned long)(k * WORK + i));
}

static void make(ucontext_t *c, char *stack, void (*fn)(void), int argc, int arg)
{
	if (getcontext(c) != 0)
		exit(3);
	c->uc_stack.ss_sp = stack;
	c->uc_stack.ss_size = STACK;
	c->uc_link = &main_ctx;
	if (argc)
		makecontext(c, fn, 1, arg);
	else
		makecontext(c, fn, 0);
}

int main(void)
{
	char *s1 = malloc(STACK), *s2 = malloc(STACK);

	if (!s1 || !s2)
		return 2;
	getcontext(&again);
	ctx_body(n);
	if (++n < 100)
		ctx_jump();

	make(&co, s1, ctx_abandon, 0, 0);
	swapcontext(&main_ctx, &co); /* ctx_abandon yields, never resumed */
	for (int k = 0; k < 3; k++) {
		make(&co, k == 1 ? s2 : s1, (void (*)(void))ctx_run, 1, k);
		swapcontext(&main_ctx, &co); /* ctx_run returns to uc_link */
	}
	printf("result: %lu %d\n", acc, n);
	return 0;
}
