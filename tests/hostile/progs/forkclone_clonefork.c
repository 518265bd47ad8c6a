/* SPDX-License-Identifier: MIT */
/*
 * Children made by clone() without CLONE_VM (a fork that runs no fork
 * handler): each runs traced functions while its parent does.  The
 * parent's records are exact: main, then 10 x (work + 100000 x mix).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

__attribute__((noinline)) unsigned mix(unsigned x, unsigned i)
{
	return (x ^ i) * 2654435761u + (x >> 13);
}

__attribute__((noinline)) unsigned work(unsigned s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		s = mix(s, i);
	return s;
}

static int child(void *a)
{
	return (int)(work(*(unsigned *)a, 200000) & 0x7f);
}

static char stack[1 << 20];

int main(void)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < 10; i++) {
		int st;
		pid_t pid = clone(child, stack + sizeof(stack), SIGCHLD, &i);

		if (pid < 0)
			return 2;
		sum += work(i, 100000);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 3;
		sum += (unsigned)WEXITSTATUS(st);
	}
	printf("%u\n", sum);
	return (int)(sum % 40) + 5;
}
