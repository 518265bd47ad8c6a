/* SPDX-License-Identifier: MIT */
/*
 * threads_dlopen.c - four threads start, then main loads libplugin.so
 * (next to this executable) with dlopen and lets them all call its
 * plugin_entry -> plugin_helper ROUNDS times at once.  Probes in the
 * library are installed while the process has five threads, and the
 * threads run the probed code while the runtime turns the probes' int3s
 * into jmps (runtime/inproc_probe_opt.c), or puts the program's bytes back
 * when a probe is removed.  Each thread prints its sum.  ROUNDS, or
 * $THREADS_DLOPEN_ROUNDS.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

#define NTHREADS 4
#define ROUNDS 4000

static pthread_barrier_t start;
static int (*entry)(int);
static long results[NTHREADS];
static int rounds = ROUNDS;

static void *worker(void *arg)
{
	long id = (long)arg, s = 0;

	pthread_barrier_wait(&start);
	for (int i = 0; i < rounds; i++)
		s += entry((int)id + i % 7);
	results[id] = s;
	return NULL;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	pthread_t t[NTHREADS];
	void *h;

	if (n <= 0)
		return 1;
	if (getenv("THREADS_DLOPEN_ROUNDS"))
		rounds = atoi(getenv("THREADS_DLOPEN_ROUNDS"));
	path[n] = 0;
	strcpy(strrchr(path, '/') + 1, "libplugin.so");
	pthread_barrier_init(&start, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h || !(entry = (int (*)(int))dlsym(h, "plugin_entry"))) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	pthread_barrier_wait(&start);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++)
		printf("thread %d: %ld\n", i, results[i]);
	return 0;
}
