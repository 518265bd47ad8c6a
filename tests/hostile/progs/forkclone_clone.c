/* SPDX-License-Identifier: MIT */
/*
 * Threads made by clone() without CLONE_SETTLS: they run on their
 * creator's TLS block, and all of them call traced functions while the
 * creator does.  Each thread sums its own series; the creator waits for
 * each through CLONE_CHILD_CLEARTID (no pthread_join: they are not
 * pthreads) and prints the sums.  The exit status is made of them too.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 3
#define STACK (256 << 10)

struct job {
	int n;
	volatile uint64_t sum;
	volatile pid_t tid; /* cleared by the kernel when the thread ends */
};

__attribute__((noinline)) uint64_t step(uint64_t x, int i)
{
	return x * 6364136223846793005ull + (uint64_t)i;
}

__attribute__((noinline)) uint64_t series(int n, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < n; i++)
		x = step(x, i) ^ (x >> 7);
	return x;
}

static int thread_main(void *arg)
{
	struct job *j = arg;

	j->sum = series(j->n, (uint64_t)j->n);
	return 0;
}

__attribute__((noinline)) void wait_gone(volatile pid_t *tid)
{
	pid_t v;

	while ((v = *tid) != 0)
		syscall(SYS_futex, tid, FUTEX_WAIT, v, NULL, NULL, 0);
}

int main(void)
{
	struct job jobs[NTHREADS];
	uint64_t own, all = 0;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;

	for (int i = 0; i < NTHREADS; i++) {
		char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		jobs[i].n = 200000 + 1000 * i;
		jobs[i].sum = 0;
		jobs[i].tid = 1;
		if (stack == MAP_FAILED ||
		    clone(thread_main, stack + STACK, flags, &jobs[i], NULL, NULL, &jobs[i].tid) < 0) {
			perror("clone");
			return 2;
		}
	}
	own = series(300000, 1); /* the creator traces on meanwhile */
	for (int i = 0; i < NTHREADS; i++) {
		wait_gone(&jobs[i].tid);
		printf("thread %d: %llx\n", i, (unsigned long long)jobs[i].sum);
		all ^= jobs[i].sum;
	}
	printf("creator: %llx\n", (unsigned long long)own);
	return (int)((all ^ own) & 0x3f) + 10;
}
