/* SPDX-License-Identifier: MIT */
/*
 * kattach.c - a multi-threaded computation for tests/kernel/attach.sh.
 *
 *   kattach N        N threads (at most 64) compute until SIGUSR1, each
 *                    napping now and then, so that an attach finds
 *                    threads both in system calls and computing; then
 *                    "thread I: R rounds: HASH" per thread and exit 0
 *   kattach -v I R   the HASH thread I has after R rounds, computed
 *                    here, untraced and alone
 *
 * A run that was attached to and detached from many times must print
 * hashes equal to their untraced recomputation.  Writes "ready" to
 * stderr once every thread runs.  For the refusals: KATTACH_SECCOMP=1
 * installs a seccomp filter that allows everything, KATTACH_NODUMP=1
 * makes the process not dumpable.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static volatile sig_atomic_t stop;
static pthread_barrier_t start;
static long rounds[64];

__attribute__((noinline)) static unsigned long mix(unsigned long x, unsigned long k)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ul + k;
	return x ^ (x >> 27);
}

__attribute__((noinline)) static unsigned long step(unsigned long x, long i)
{
	for (int j = 0; j < 50; j++)
		x = mix(x, (unsigned long)(i + j));
	return x;
}

static unsigned long compute(long id, long n, long *done, bool paced)
{
	struct timespec nap = {0, 200000};
	unsigned long x = (unsigned long)id + 1;
	long i;

	for (i = 0; n < 0 || i < n; i++) {
		if (n < 0 && stop && i % 64 == 0)
			break;
		x = step(x, i);
		if (paced && i % 16 == 0)
			nanosleep(&nap, NULL);
	}
	*done = i;
	return x;
}

static void *worker(void *arg)
{
	long id = (long)(intptr_t)arg;

	pthread_barrier_wait(&start);
	return (void *)(uintptr_t)compute(id, -1, &rounds[id], true);
}

static void on_usr1(int sig __attribute__((unused)))
{
	stop = 1;
}

static void restrict_self(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {1, &allow};

	if (getenv("KATTACH_SECCOMP") && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
					  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)))
		perror("seccomp");
	if (getenv("KATTACH_NODUMP") && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		perror("PR_SET_DUMPABLE");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[64];
	long done;

	if (argc == 4 && !strcmp(argv[1], "-v")) {
		printf("%016lx\n", compute(atol(argv[2]), atol(argv[3]), &done, false));
		return 0;
	}
	if (n < 1 || n > 64)
		return 2;
	restrict_self();
	signal(SIGUSR1, on_usr1);
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	pthread_barrier_wait(&start);
	fprintf(stderr, "ready\n");
	for (int i = 0; i < n; i++) {
		void *r;

		pthread_join(th[i], &r);
		printf("thread %d: %ld rounds: %016lx\n", i, rounds[i],
		       (unsigned long)(uintptr_t)r);
	}
	return 0;
}
