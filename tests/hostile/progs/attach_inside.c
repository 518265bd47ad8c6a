/* SPDX-License-Identifier: MIT */
/*
 * attach_inside.c - for tests/hostile/attach.sh, built without utrace's
 * flags: the main thread sits inside hold()'s first five bytes when the
 * process is attached to.  hold is `push %rbx; call *%rdi; pop %rbx; ...`:
 * its call's return address is hold + 3, inside the bytes a jmp at its
 * entry would cover, and main's call of hold(wait_usr1) waits there until
 * SIGUSR1.  A worker calls hold(quick) all the while.  A jmp written over
 * hold then would send main into the middle of it when wait_usr1
 * returns; the attach must leave hold's bytes after the first alone.
 * Prints "ready" on stderr, then "main back 42" once SIGUSR1 came, and
 * exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

long hold(long (*fn)(void));
__asm__(".text\n.globl hold\n.type hold,@function\n"
	"hold: pushq %rbx\n call *%rdi\n popq %rbx\n nop\n nop\n ret\n"
	".size hold,.-hold\n");

static volatile sig_atomic_t go, stop;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static long wait_usr1(void)
{
	sigset_t none;

	sigemptyset(&none);
	while (!go)
		sigsuspend(&none); /* blocked in a system call, hold + 3 on the stack */
	return 42;
}

static long quick(void)
{
	return 1;
}

static void *worker(void *arg)
{
	long n = 0;

	(void)arg;
	while (!stop)
		n += hold(quick);
	return (void *)n;
}

int main(void)
{
	sigset_t usr1, old;
	pthread_t t;
	long r;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old); /* the worker never takes it */
	pthread_create(&t, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fprintf(stderr, "ready\n");
	r = hold(wait_usr1);
	stop = 1;
	pthread_join(t, NULL);
	printf("main back %ld\n", r);
	return 0;
}
