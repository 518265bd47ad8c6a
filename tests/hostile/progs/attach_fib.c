/* SPDX-License-Identifier: MIT */
/*
 * attach_fib.c - a program built without utrace's flags for
 * tests/hostile/attach.sh: `attach_fib N PAUSE_US [ITERS]` prints how many
 * calls fib(N) makes ("calls C"), says "ready" on stderr, then runs
 * mark(i); fib(N); done(r) with a pause between rounds, ITERS times or
 * until SIGUSR1.  In a trace, the fib entries between a mark and its done
 * are exactly C, and the time between them is the cost of a round.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __clang__
#define HOT __attribute__((noinline))
#else
#define HOT __attribute__((noinline, noclone))
#endif

static volatile long calls, sink;
static volatile sig_atomic_t stop;

/* the store after the calls keeps each a real call (no loop made of the
 * last one), so that the program's count is the count of entries */
HOT long fib(int n)
{
	long r;

	calls++;
	if (n < 2)
		return n;
	r = fib(n - 1) + fib(n - 2);
	sink = r;
	return r;
}

HOT void mark(long i)
{
	sink = i;
}

HOT void done(long r)
{
	sink = r;
}

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 18;
	long pause_us = argc > 2 ? atol(argv[2]) : 1000, iters = argc > 3 ? atol(argv[3]) : -1;
	long first;

	signal(SIGUSR1, on_usr1);
	fib(n);
	first = calls;
	printf("calls %ld\n", first);
	fflush(stdout);
	fprintf(stderr, "ready\n");
	for (long i = 0; !stop && i != iters; i++) {
		mark(i);
		calls = 0;
		done(fib(n));
		if (calls != first) { /* the traced program must compute the same */
			printf("round %ld: %ld calls\n", i, calls);
			return 1;
		}
		if (pause_us)
			usleep((useconds_t)pause_us);
	}
	return 0;
}
