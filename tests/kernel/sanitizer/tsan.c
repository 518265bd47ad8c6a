/* SPDX-License-Identifier: MIT */
/*
 * tsan.c - a planted data race for tests/kernel/sanitizer.sh: a thread
 * (in bump) and main (in poke) write the same int with no lock.  TSan
 * reports it and the program exits 66, as it does by default.
 */
#include <pthread.h>
#include <unistd.h>

int counter;

__attribute__((noinline)) void *bump(void *arg)
{
	counter++;
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
	usleep(20000);
	poke();
	pthread_join(t, NULL);
	return 0;
}
