/* SPDX-License-Identifier: MIT */
/*
 * coro_threads.c - 4 threads, each running 3 makecontext coroutines of its
 * own at the same time as the others (their stacks registered and looked
 * up concurrently), 400 switches each from inside traced functions, and
 * one coroutine made by main that each thread in turn resumes once (a
 * coroutine that moves between threads).  Known counts: th_step and
 * th_yield NTH * NCO * ROUNDS + NTH, th_run NTH * NCO + 1, th_resume
 * NTH * NCO * (ROUNDS + 1) + NTH.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NTH 4
#define NCO 3
#define ROUNDS 400
#define STACK (64 * 1024)

struct sched {
	ucontext_t main, co[NCO];
	int done[NCO];
	ucontext_t *back; /* where the running coroutine yields to */
	unsigned long sum;
};

static ucontext_t wander;		  /* main's coroutine, resumed by each thread */
static ucontext_t *wander_back;
static unsigned long wander_sum;
static pthread_mutex_t wander_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct sched *self;

__attribute__((noinline)) void th_yield(ucontext_t *from, ucontext_t *to)
{
	if (swapcontext(from, to) != 0)
		abort();
}

__attribute__((noinline)) void th_step(unsigned long *sum, int i, ucontext_t *from, ucontext_t **to)
{
	*sum = *sum * 31 + (unsigned long)i;
	th_yield(from, *to);
}

__attribute__((noinline)) void th_run(int k)
{
	if (k < 0) { /* main's wanderer: one step per thread */
		for (int i = 0; i < NTH; i++)
			th_step(&wander_sum, i, &wander, &wander_back);
		return;
	}
	for (int r = 0; r < ROUNDS; r++)
		th_step(&self->sum, k * 1000 + r, &self->co[k], &self->back);
	self->done[k] = 1;
}

__attribute__((noinline)) void th_resume(ucontext_t *from, ucontext_t *co)
{
	if (swapcontext(from, co) != 0)
		abort();
}

static void make(ucontext_t *c, ucontext_t *link, int k)
{
	char *stack = malloc(STACK);

	if (!stack || getcontext(c) != 0)
		abort();
	c->uc_stack.ss_sp = stack;
	c->uc_stack.ss_size = STACK;
	c->uc_link = link;
	makecontext(c, (void (*)(void))th_run, 1, k);
}

static void *worker(void *arg)
{
	struct sched s = {.sum = (unsigned long)(uintptr_t)arg};
	ucontext_t here;

	self = &s;
	s.back = &s.main;
	for (int k = 0; k < NCO; k++)
		make(&s.co[k], &s.main, k);
	for (int r = 0; r <= ROUNDS; r++)
		for (int k = 0; k < NCO; k++)
			if (!s.done[k])
				th_resume(&s.main, &s.co[k]);
	pthread_mutex_lock(&wander_lock);
	wander_back = &here;
	th_resume(&here, &wander);
	pthread_mutex_unlock(&wander_lock);
	return (void *)(uintptr_t)s.sum;
}

int main(void)
{
	pthread_t th[NTH];
	unsigned long total = 0;
	ucontext_t end;

	make(&wander, &end, -1);
	for (int i = 0; i < NTH; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1)))
			return 2;
	for (int i = 0; i < NTH; i++) {
		void *r;

		pthread_join(th[i], &r);
		total = total * 7 + (unsigned long)(uintptr_t)r;
	}
	wander_back = &end;
	th_resume(&end, &wander); /* th_run(-1) returns to uc_link: end */
	printf("result: %lu %lu\n", total, wander_sum);
	return 0;
}
