/* SPDX-License-Identifier: MIT */
/*
 * tsan.c - a planted data race for tests/kernel/sanitizer.sh: a thread
 * (in bump) and main (in poke) write the same int with no lock.  TSan
 * reports it and the program exits 66, as it does by default.  main
 * waits for bump's write on a relaxed atomic flag, which orders the two
 * writes (the report is always in poke) without synchronising them for
 * TSan (a relaxed load makes no happens-before).
 */
#include <pthread.h>
#include <sched.h>

int counter;
int done;

__attribute__((noinline)) void *bump(void *arg)
{
	counter++;
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	return arg;
}

__attribute__((noinline)) void poke(void)
{
	counter = 7;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, bump, NULL);
	while (!__atomic_load_n(&done, __ATOMIC_RELAXED))
		sched_yield(); /* not a sleep: TSan would say "as if synchronized via sleep" */
	poke();
	pthread_join(t, NULL);
	return 0;
}
