/* SPDX-License-Identifier: MIT */
/*
 * sigwait_dlopen.c - a daemon's signal pattern: every thread blocks every
 * signal and one waits for them all in sigwait(); then main loads
 * libplugin.so and calls plugin_entry ROUNDS times, and sends the waiter
 * SIGUSR1.  The waiter prints what it got: the runtime's own signal
 * (runtime/inproc_probe_opt.c asks threads where they are) must never reach it.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

#define ROUNDS 3000

static void *waiter(void *arg)
{
	sigset_t all;
	int sig = 0;

	(void)arg;
	sigfillset(&all);
	sigwait(&all, &sig);
	printf("sigwait got %d\n", sig);
	return NULL;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	int (*entry)(int);
	sigset_t all;
	pthread_t t;
	long sum = 0;
	void *h;

	if (n <= 0)
		return 1;
	path[n] = 0;
	strcpy(strrchr(path, '/') + 1, "libplugin.so");
	sigfillset(&all);
	sigdelset(&all, SIGTRAP); /* the synchronous ones cannot be blocked anyway */
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	if (pthread_create(&t, NULL, waiter, NULL) != 0)
		return 1;
	h = dlopen(path, RTLD_NOW);
	if (!h || !(entry = (int (*)(int))dlsym(h, "plugin_entry"))) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < ROUNDS; i++)
		sum += entry(i % 7);
	printf("sum %ld\n", sum);
	fflush(stdout);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return 0;
}
