/* SPDX-License-Identifier: MIT */
/*
 * crashdump.c - dies of a crash signal after known calls, for record
 * --dump-on-crash (tests/e2e/t/crash-dump.sh):
 *
 *   crashdump deep     a NULL store 30 calls down a recursion (SIGSEGV)
 *   crashdump handler  a NULL store in a traced function called by a
 *                      SIGUSR1 handler (SIGSEGV)
 *   crashdump thread   a NULL store in a second thread while main waits
 *                      in pthread_join (SIGSEGV)
 *   crashdump own      a NULL store with the program's own SIGSEGV
 *                      handler installed (SA_SIGINFO | SA_RESETHAND): it
 *                      runs, says where the fault was, returns; the store
 *                      faults again and kills (SIGSEGV)
 *   crashdump abort    abort() (SIGABRT)
 *   crashdump fpe      an integer division by zero (SIGFPE)
 *   crashdump trap     __builtin_trap(), as UBSan's -fsanitize-undefined-
 *                      trap-on-error (SIGILL)
 *   crashdump bus      a read of a mapped page past the end of its (empty)
 *                      file (SIGBUS)
 *
 * Every way ends in fault_here() (abort_here(), divide_here(), trap_here(),
 * bus_here()) after a
 * call to leaf(), so the last calls before the signal are known.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

static volatile int *volatile nowhere;

TRACED int leaf(int x)
{
	BARRIER();
	return x + 1;
}

TRACED int fault_here(int x)
{
	leaf(x);
	*(volatile int *)((long)nowhere + opaque(0)) = x; /* SIGSEGV */
	BARRIER();
	return x;
}

TRACED int divide_here(int x)
{
	leaf(x);
	return 100 / opaque(x - x); /* SIGFPE */
}

TRACED void trap_here(void)
{
	leaf(0);
	__builtin_trap(); /* SIGILL */
}

TRACED int bus_here(const volatile char *page)
{
	leaf(0);
	return page[opaque(0)]; /* SIGBUS: past the end of the file */
}

TRACED void abort_here(void)
{
	leaf(0);
	abort();
}

TRACED int descend(int n)
{
	int r = n ? descend(n - 1) : fault_here(n);

	BARRIER();
	return r + 1;
}

TRACED void in_handler(int sig)
{
	fault_here(sig);
	BARRIER();
}

TRACED void *worker(void *arg)
{
	(void)arg;
	leaf(1);
	descend(5);
	return NULL;
}

TRACED void own_handler_work(int sig)
{
	leaf(sig);
	BARRIER();
}

static void own_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	own_handler_work(sig);
	/* write(): async-signal-safe, and the same text traced or not */
	if (si->si_addr == NULL && si->si_code == SEGV_MAPERR)
		write(2, "own handler: SIGSEGV at NULL\n", 29);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "deep";

	for (int i = 0; i < 3; i++)
		leaf(i);
	printf("crashdump %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "deep")) {
		descend(30);
	} else if (!strcmp(how, "handler")) {
		signal(SIGUSR1, in_handler);
		raise(SIGUSR1);
	} else if (!strcmp(how, "thread")) {
		pthread_t t;

		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(how, "own")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = own_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
		sigaction(SIGSEGV, &sa, NULL);
		fault_here(7);
	} else if (!strcmp(how, "abort")) {
		abort_here();
	} else if (!strcmp(how, "fpe")) {
		divide_here(4);
	} else if (!strcmp(how, "trap")) {
		trap_here();
	} else if (!strcmp(how, "bus")) {
		FILE *f = tmpfile(); /* empty */
		void *page = f ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0) : MAP_FAILED;

		if (page != MAP_FAILED)
			bus_here(page);
	}
	printf("still alive\n");
	return 0;
}
