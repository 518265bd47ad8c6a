/* SPDX-License-Identifier: MIT */
/*
 * sigtrap.c - a program with SIGTRAP semantics of its own, whose short
 * functions utrace patches with int3 (runtime/trap_guard.c): its handler,
 * installed after the runtime's, on its sigaltstack, gets the SIGTRAPs it
 * raises and the int3 it executes, and none of the entries' traps; with
 * SIGTRAP blocked or ignored the patched entries still run (the kernel
 * would kill a process whose int3 finds SIGTRAP blocked), in the main
 * thread and in a worker that blocks every signal; errno survives
 * an entry's trap.  Prints what it saw: the same traced as untraced.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nothing(void);
int ident(int);

__asm__(".text\n"
	".globl nothing\n.type nothing, @function\n"
	"nothing:\n\tret\n"
	".size nothing, .-nothing\n"
	".globl ident\n.type ident, @function\n"
	"ident:\n\tmovl %edi, %eax\n\tret\n"
	".size ident, .-ident\n");

static char *alt;
static volatile sig_atomic_t traps, kernel_traps, off_stack;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	char here;

	(void)sig;
	(void)uc;
	traps++;
	kernel_traps += si->si_code == SI_KERNEL;
	off_stack += !(&here >= alt && &here < alt + SIGSTKSZ * 4);
}

__attribute__((noinline)) static int calls(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		s += ident(i);
		nothing();
	}
	return s;
}

/* a worker thread that blocks every signal, as servers' workers do */
static void *blocked_worker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	return (void *)(long)calls(4);
}

int main(void)
{
	struct sigaction sa, old;
	stack_t ss = {0};
	sigset_t all, prev;
	int s = calls(2), e;

	alt = malloc(SIGSTKSZ * 4);
	ss.ss_sp = alt;
	ss.ss_size = SIGSTKSZ * 4;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	s += calls(3);
	raise(SIGTRAP);
	__asm__ volatile("int3");
	printf("handler: %d traps, %d from int3, %d off its stack, sum %d\n", (int)traps,
	       (int)kernel_traps, (int)off_stack, s);

	sigaction(SIGTRAP, NULL, &old);
	printf("sigaction reads back the program's own: %d\n", old.sa_sigaction == on_trap);

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &prev);
	s = calls(3);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	printf("blocked: sum %d\n", s);
	{
		pthread_t th;
		void *r;

		pthread_create(&th, NULL, blocked_worker, NULL);
		pthread_join(th, &r);
		printf("worker with every signal blocked: sum %ld\n", (long)r);
	}

	errno = EDOM;
	nothing();
	e = errno;
	printf("errno kept: %d\n", e == EDOM);

	signal(SIGTRAP, SIG_IGN);
	s = calls(2);
	raise(SIGTRAP);
	printf("ignored: sum %d, %d traps\n", s, (int)traps);
	return 0;
}
