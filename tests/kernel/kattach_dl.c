/* SPDX-License-Identifier: MIT */
/*
 * kattach_dl.c - tests/kernel/attach.sh: a program that unloads a library
 * while it is attached to.  It dlopens the library given (tests/progs/
 * plugin.c built as a shared object) and calls plugin_entry in a loop;
 * SIGUSR1 makes it dlclose the library (then "closed" on stderr), SIGUSR2
 * makes it exit 0.  "ready" on stderr once the library is loaded.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t unload, done;

static void on_usr1(int sig)
{
	(void)sig;
	unload = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*entry)(int) = h ? (int (*)(int))dlsym(h, "plugin_entry") : NULL;
	long sum = 0;

	if (!entry) {
		fprintf(stderr, "kattach_dl: %s\n", dlerror());
		return 1;
	}
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	fprintf(stderr, "ready\n");
	while (!unload) {
		sum += entry(3);
		usleep(500);
	}
	dlclose(h);
	fprintf(stderr, "closed\n");
	while (!done)
		pause();
	printf("%ld\n", sum > 0);
	return 0;
}
