/* SPDX-License-Identifier: MIT */
/*
 * asan.c - planted AddressSanitizer bugs for tests/kernel/sanitizer.sh,
 * one per argument, each in a function of its own so that the report's
 * event can be found inside it:
 *   heap-overflow   a write one int past a malloc'ed array (fill)
 *   use-after-free  a read of a freed int (peek)
 *   double-free     a second free (release)
 *   none            no bug: the program exits 0
 * A second argument: a file to wait for first (a live tracefs test sets
 * its trigger meanwhile).  after_bug runs once the bug's function has
 * returned (built with -fsanitize-recover=address and run with
 * halt_on_error=0, the program goes on after a report).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int fill(int *p, int n)
{
	for (int i = 0; i <= n; i++) /* one past the end */
		p[i] = i;
	return p[0];
}

__attribute__((noinline)) int peek(volatile int *p)
{
	return *p;
}

__attribute__((noinline)) void release(void *p)
{
	free(p);
}

__attribute__((noinline)) int run(const char *what)
{
	int *p = malloc(10 * sizeof(int));
	int r = 0;

	if (!strcmp(what, "heap-overflow")) {
		r = fill(p, 10);
	} else if (!strcmp(what, "use-after-free")) {
		free(p);
		r = peek(p);
		p = NULL;
	} else if (!strcmp(what, "double-free")) {
		release(p);
		release(p);
		p = NULL;
	}
	free(p);
	return r;
}

__attribute__((noinline)) int after_bug(int r)
{
	return r & 0;
}

int main(int argc, char **argv)
{
	while (argc > 2 && access(argv[2], F_OK) != 0)
		usleep(10000);
	printf("asan %s\n", argc > 1 ? argv[1] : "none");
	fflush(stdout);
	return after_bug(run(argc > 1 ? argv[1] : "none"));
}
