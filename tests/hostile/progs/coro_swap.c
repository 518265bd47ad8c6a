/* SPDX-License-Identifier: MIT */
/*
 * coro_swap.c - 4 makecontext coroutines, each switched to 2000 times by
 * swapcontext from a scheduler, every switch made from inside traced
 * functions (so each coroutine's frames stay open while the others run).
 * Each coroutine's entry function returns to uc_link at the end.  Known
 * counts (NCO coroutines, ROUNDS switches each): co_step, co_leaf and
 * co_yield are called NCO * ROUNDS times, co_main NCO times, sched_resume
 * NCO * (ROUNDS + 1) times.  With an argument, it first waits until that
 * file exists (tracing attached or changed meanwhile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define NCO 4
#define ROUNDS 2000
#define STACK (64 * 1024)

static ucontext_t sched_ctx, co_ctx[NCO];
static unsigned long sum[NCO];
static int done[NCO];

__attribute__((noinline)) unsigned long co_leaf(int id, int r)
{
	return (unsigned long)(id + 1) * 2654435761u ^ (unsigned long)r;
}

__attribute__((noinline)) void co_yield(int id)
{
	if (swapcontext(&co_ctx[id], &sched_ctx) != 0)
		abort();
}

__attribute__((noinline)) void co_step(int id, int r)
{
	sum[id] += co_leaf(id, r) % 1000;
	co_yield(id);
	sum[id] += (unsigned long)r;
}

__attribute__((noinline)) void co_main(int id)
{
	for (int r = 0; r < ROUNDS; r++)
		co_step(id, r);
	done[id] = 1;
}

__attribute__((noinline)) void sched_resume(int id)
{
	if (swapcontext(&sched_ctx, &co_ctx[id]) != 0)
		abort();
}

int main(int argc, char **argv)
{
	char *stacks = malloc((size_t)NCO * STACK);
	unsigned long total = 0;

	if (!stacks)
		return 2;
	while (argc > 1 && access(argv[1], F_OK) != 0)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	for (int i = 0; i < NCO; i++) {
		if (getcontext(&co_ctx[i]) != 0)
			return 3;
		co_ctx[i].uc_stack.ss_sp = stacks + (size_t)i * STACK;
		co_ctx[i].uc_stack.ss_size = STACK;
		co_ctx[i].uc_link = &sched_ctx;
		makecontext(&co_ctx[i], (void (*)(void))co_main, 1, i);
	}
	for (int r = 0; r <= ROUNDS; r++)
		for (int i = 0; i < NCO; i++)
			if (!done[i])
				sched_resume(i);
	for (int i = 0; i < NCO; i++)
		total += sum[i] * (unsigned long)(i + 1);
	printf("result: %lu\n", total);
	free(stacks);
	return 0;
}
