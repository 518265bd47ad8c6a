/* SPDX-License-Identifier: MIT */
/*
 * A thread made by clone() without CLONE_SETTLS that longjmps, while its
 * creator, a pthread, is deep in traced calls on a stack below the clone
 * thread's (the clone stacks are mapped first).  The longjmp must not
 * touch the creator's frames: under function_graph they are hooked.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK (256 << 10)

static char *stacks[2];
static volatile pid_t tids[2];
static volatile int go;

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int jumper(jmp_buf *env, int n)
{
	if (n & 1)
		longjmp(*env, leaf(n));
	return leaf(n);
}

static int clone_main(void *arg)
{
	int sum = 0;

	for (int i = 0; i < 2000; i++) {
		jmp_buf env;
		int r = setjmp(env);

		sum += r ? r : jumper(&env, i);
	}
	*(int *)arg = sum;
	return 0;
}

__attribute__((noinline)) int deep(int n, int *out)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;

	if (n)
		return deep(n - 1, out) + leaf(n);
	for (int i = 0; i < 2; i++) {
		tids[i] = 1;
		if (clone(clone_main, stacks[i] + STACK, flags, &out[i], NULL, NULL, &tids[i]) < 0)
			return -1000;
	}
	for (int i = 0; i < 2; i++) { /* the creator's frames stay open meanwhile */
		pid_t v;

		while ((v = tids[i]) != 0)
			syscall(SYS_futex, &tids[i], FUTEX_WAIT, v, NULL, NULL, 0);
	}
	return 0;
}

static void *creator(void *arg)
{
	int *out = arg;

	out[2] = deep(20, out);
	return NULL;
}

int main(void)
{
	int out[3] = {0, 0, 0};
	pthread_t th;

	for (int i = 0; i < 2; i++) /* mapped before the creator's stack: above it */
		stacks[i] = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (pthread_create(&th, NULL, creator, out) || pthread_join(th, NULL))
		return 2;
	printf("%d %d %d\n", out[0], out[1], out[2]);
	return (out[0] + out[1] + out[2]) % 50 + 3;
}
