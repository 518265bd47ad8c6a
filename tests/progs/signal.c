/* SPDX-License-Identifier: MIT */
/*
 * signal.c - signal handlers that call traced functions while the
 * interrupted path is itself inside traced functions.
 *
 *  1. SIGUSR1 raised synchronously three frames deep (outer -> middle ->
 *     inner -> raise): the handler's graph nests inside inner().
 *  2. SIGALRM from a 100 us (10 kHz) interval timer while the main path
 *     spins through traced calls: the signal lands at arbitrary
 *     instructions, including inside the tracer's entry and return hooks,
 *     and each handler's calls must still be traced (the runtime's nested
 *     contexts).  The exact number handled varies from run to run, so it
 *     goes to the file signal.alarms, not to stdout, for the test to
 *     compare with the trace.
 *  3. SIGUSR2 handled on an alternate signal stack (sigaltstack), raised
 *     from a recursion 8 deep; the handler itself recurses 10 deep.
 *
 * Every handler checks the values its traced calls return; the main path
 * checks its own results and errno after each phase.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "progs.h"

#define ALARMS 100

static volatile sig_atomic_t usr1_count, usr2_count, alrm_count, handler_errors;
static char *altstack_lo, *altstack_hi;

TRACED int handler_leaf(int x)
{
	BARRIER();
	return x * 3;
}

TRACED int handler_work(int x)
{
	int r = handler_leaf(x) + 1;

	BARRIER();
	return r;
}

TRACED int alt_recurse(int n)
{
	int r;
	char here;

	if (&here < altstack_lo || &here >= altstack_hi)
		handler_errors++; /* not running on the alternate stack */
	if (n == 0)
		return 0;
	r = alt_recurse(n - 1) + 1;
	BARRIER();
	return r;
}

TRACED void on_usr1(int sig)
{
	(void)sig;
	int saved = errno;

	if (handler_work(7) != 22)
		handler_errors++;
	usr1_count++;
	errno = saved;
}

TRACED void on_alrm(int sig)
{
	(void)sig;
	int saved = errno;

	if (handler_work(alrm_count) != alrm_count * 3 + 1)
		handler_errors++;
	alrm_count++;
	errno = saved;
}

TRACED void on_usr2(int sig)
{
	(void)sig;
	int saved = errno;

	if (alt_recurse(10) != 10)
		handler_errors++;
	if (handler_work(2) != 7)
		handler_errors++;
	usr2_count++;
	errno = saved;
}

TRACED int inner(int x)
{
	raise(SIGUSR1);
	BARRIER();
	return x + 1;
}

TRACED int middle(int x)
{
	int r = inner(x) * 2;

	BARRIER();
	return r;
}

TRACED int outer(int x)
{
	int r = middle(x) + 3;

	BARRIER();
	return r;
}

TRACED long spin_leaf(long x)
{
	BARRIER();
	return x ^ (x >> 3);
}

TRACED long spin_step(long x)
{
	long r = spin_leaf(x) + spin_leaf(x + 1);

	BARRIER();
	return r;
}

TRACED int deep_raise(int n)
{
	int r;

	if (n == 0) {
		raise(SIGUSR2);
		return 0;
	}
	r = deep_raise(n - 1) + 1;
	BARRIER();
	return r;
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		perror("sigaction");
		exit(1);
	}
}

int main(void)
{
	struct itimerval it;
	stack_t ss;
	sigset_t set;
	long acc = 0, i;
	int r;

	/* 1. synchronous SIGUSR1 inside traced frames */
	install(SIGUSR1, on_usr1, SA_RESTART);
	r = outer(opaque(4));
	printf("usr1: outer = %d, handled %d\n", r, (int)usr1_count);

	/* 2. asynchronous SIGALRM while spinning through traced calls */
	install(SIGALRM, on_alrm, SA_RESTART);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 100;
	it.it_value.tv_usec = 100;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; alrm_count < ALARMS; i++)
		acc += spin_step(i);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("alrm: at least %d alarms handled: %s\n", ALARMS, alrm_count >= ALARMS ? "yes" : "no");
	{
		FILE *f = fopen("signal.alarms", "w");

		if (f) {
			fprintf(f, "%d\n", (int)alrm_count);
			fclose(f);
		}
	}
	/* acc depends on how far the loop got: check it, do not print it */
	{
		long check = 0;

		for (long j = 0; j < i; j++)
			check += spin_leaf(j) + spin_leaf(j + 1);
		printf("alrm: spin results consistent: %s\n", check == acc ? "yes" : "no");
	}

	/* 3. SIGUSR2 on an alternate stack */
	ss.ss_size = 1 << 16;
	ss.ss_sp = malloc(ss.ss_size);
	ss.ss_flags = 0;
	altstack_lo = ss.ss_sp;
	altstack_hi = altstack_lo + ss.ss_size;
	if (!ss.ss_sp || sigaltstack(&ss, NULL)) {
		perror("sigaltstack");
		return 1;
	}
	install(SIGUSR2, on_usr2, SA_ONSTACK);
	r = deep_raise(opaque(8));
	printf("usr2: deep_raise = %d, handled %d\n", r, (int)usr2_count);

	errno = 0;
	printf("handler errors: %d\n", (int)handler_errors);
	return handler_errors ? 1 : 0;
}
