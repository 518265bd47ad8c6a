/* SPDX-License-Identifier: MIT */
/*
 * Processes and threads that come and go while traced functions run:
 * fork children that call traced functions and exit with a result,
 * vfork + exec of this program (argument "leaf"), and threads that live
 * about a millisecond.  Prints every result; the exit status is made of
 * them too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) unsigned mix(unsigned x, unsigned i)
{
	return (x ^ i) * 2654435761u + (x >> 13);
}

__attribute__((noinline)) unsigned work(unsigned seed, unsigned n)
{
	unsigned x = seed;

	for (unsigned i = 0; i < n; i++)
		x = mix(x, i);
	return x;
}

static void *short_thread(void *arg)
{
	struct timespec ms = {0, 1000000};
	unsigned *r = arg;

	*r = work(*r, 2000);
	nanosleep(&ms, NULL);
	return NULL;
}

static int wait_status(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	unsigned sum = 0;

	if (argc > 1 && !strcmp(argv[1], "leaf"))
		return (int)(work(7, 1000) & 0x7f);
	for (unsigned i = 0; i < 20; i++) { /* fork: the child traces on */
		pid_t pid = fork();

		if (pid == 0)
			_exit((int)(work(i, 5000) & 0xff));
		sum += (unsigned)wait_status(pid);
	}
	printf("fork children: %u\n", sum);
	for (unsigned i = 0; i < 10; i++) { /* vfork + exec */
		char *args[] = {argv[0], "leaf", NULL};
		pid_t pid = vfork();

		if (pid == 0) {
			execv(argv[0], args);
			_exit(127);
		}
		sum += (unsigned)wait_status(pid);
	}
	printf("vfork children: %u\n", sum);
	for (unsigned round = 0; round < 20; round++) { /* threads living 1 ms */
		pthread_t th[4];
		unsigned r[4];

		for (unsigned i = 0; i < 4; i++) {
			r[i] = round * 4 + i;
			if (pthread_create(&th[i], NULL, short_thread, &r[i]))
				return 2;
		}
		sum += work(round, 3000); /* the main thread traces meanwhile */
		for (unsigned i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			sum ^= r[i];
		}
	}
	printf("threads: %u\n", sum);
	return (int)(sum % 50) + 3;
}
