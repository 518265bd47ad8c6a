/* SPDX-License-Identifier: MIT */
/*
 * dlthreads.c - a library dlopen()ed while four threads run: each thread
 * calls spin() in a loop, then the main thread loads LIB (argv[1]) and
 * every thread calls its dl_work DL_CALLS times, while a thread the
 * library's constructor started runs in it too.  Built and traced
 * without utrace cflags by tests/e2e/t/anybin-why.sh with -l '*:mod:LIB':
 * the library's entries are patched while the threads run (int3 first,
 * the jmps once no thread is in their way: runtime/func_patch.c), every
 * call recorded once, the output as untraced.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define DL_CALLS 200

static int (*volatile work)(int);
static volatile int started;
static volatile long sink;

__attribute__((noinline)) int spin(int i)
{
	return (i * 7) & 3;
}

static void *run(void *arg)
{
	long s = 0;

	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&work, __ATOMIC_ACQUIRE))
		sink += spin((int)sink);
	for (int i = 0; i < DL_CALLS; i++)
		s += work(10);
	return (void *)s;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	long total = 0, (*done)(void);
	void *h, *r;

	if (argc < 2)
		return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, run, NULL);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < THREADS)
		;
	h = dlopen(argv[1], RTLD_NOW);
	if (!h || !dlsym(h, "dl_work")) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	done = (long (*)(void))dlsym(h, "dl_done");
	__atomic_store_n(&work, (int (*)(int))dlsym(h, "dl_work"), __ATOMIC_RELEASE);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("%d threads, %d calls each: %ld; the library's own thread: %ld\n", THREADS, DL_CALLS,
	       total, done ? done() : -1);
	return 0;
}
