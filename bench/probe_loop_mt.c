/* SPDX-License-Identifier: MIT */
/*
 * probe_loop_mt.c - the multi-threaded program of bench/probe.sh: four
 * threads each call hit(key, &objs[key]) N times, as probe_loop.c does,
 * hit() being in a library that main loads with dlopen once the threads
 * exist.  So a probe in hit() is installed in a process with five
 * threads: an int3 that the runtime turns into a jmp while they run
 * (runtime/inproc_probe_opt.c).  Built twice from this file:
 *
 *   -DPROBE_LIB -fPIC -shared  libprobe_mt.so: hit() (with utrace cflags)
 *                              and the timed loop
 *   (no define)                probe_loop_mt, next to the library
 *
 * Each thread warms up (N/100 untimed hits, then, given MID, more until
 * the probed instruction at hit+MID is no longer an int3: the timed loop
 * measures the jmp), then times N hits with its CPU clock; main prints
 * one line as bench/tracepoint_loop.h does, per hit of one thread, and
 * how many warm-up hits there were in all:
 *
 *   probe-mt n=N threads=4 ns=WALL ns/event=X cpu_ns/event=Y warmup=W
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef PROBE_LIB
struct obj {
	long pad;
	unsigned val;
};

static struct obj objs[64];

__attribute__((noinline, used)) long hit(long key, struct obj *o)
{
	__asm__ volatile("" : : "r"(key), "r"(o) : "memory");
	return key + o->val;
}

static void __attribute__((noinline)) loop(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("");
		hit(i % 64, &objs[i % 64]);
	}
}

/* n timed hits after n/100 untimed, and more (at most 1000 x 1000)
 * while hit+mid holds an int3 (mid < 0: none); the thread's CPU time for
 * the timed ones, *warm the untimed count */
long long probe_loop(long n, long mid, long *warm)
{
	const volatile unsigned char *at = (const volatile unsigned char *)(uintptr_t)hit + mid;
	struct timespec a, b;

	loop(n / 100);
	*warm = n / 100;
	for (int i = 0; mid >= 0 && *at == 0xcc && i < 1000; i++, *warm += 1000)
		loop(1000);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	loop(n);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}
#else
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 4

static pthread_barrier_t start;
static long long (*run)(long, long, long *);
static long n, mid = -1;
static long long cpu[NTHREADS];
static long warm[NTHREADS];

static void *worker(void *arg)
{
	pthread_barrier_wait(&start);
	cpu[(long)arg] = run(n, mid, &warm[(long)arg]);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	pthread_t t[NTHREADS];
	struct timespec a, b;
	long long sum = 0, wall;
	long warmup = 0;
	void *h;

	n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000L;
	mid = argc > 2 ? strtol(argv[2], NULL, 10) : -1;
	if (len <= 0 || n <= 0)
		return 2;
	path[len] = 0;
	strcpy(strrchr(path, '/') + 1, "libprobe_mt.so");
	pthread_barrier_init(&start, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			return 1;
	h = dlopen(path, RTLD_NOW);
	if (!h || !(run = (long long (*)(long, long, long *))dlsym(h, "probe_loop"))) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_barrier_wait(&start);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		sum += cpu[i];
		warmup += warm[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	wall = (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	printf("probe-mt n=%ld threads=%d ns=%lld ns/event=%.3f cpu_ns/event=%.3f warmup=%ld\n", n,
	       NTHREADS, wall, (double)wall / (double)(NTHREADS * n + warmup) * NTHREADS,
	       (double)sum / (double)(NTHREADS * n), warmup);
	return 0;
}
#endif
