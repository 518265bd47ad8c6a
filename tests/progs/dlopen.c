/* SPDX-License-Identifier: MIT */
/*
 * dlopen.c - loads libplugin.so (from the directory of this executable)
 * with dlopen, calls plugin_entry -> plugin_helper, dlcloses it, then
 * does it all a second time (the library may come back at another
 * address).  Expectation: the plugin's functions are traced and named,
 * in both rounds, and main's own functions around them too.
 *
 * DLOPEN_SPIN_MS=N: each round calls plugin_entry again for N ms before
 * the dlclose, so that a probe helper promoting the plugin's probes is
 * busy with them when the dlclose comes (tests/e2e/t/probes-dlopen.sh).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progs.h"

TRACED int before_plugin(int x)
{
	BARRIER();
	return x + 1;
}

TRACED int after_plugin(int x)
{
	BARRIER();
	return x - 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* DLOPEN_SPIN_MS: entry(x) again and again for that long */
static void spin(int (*entry)(int), int x, const char *ms)
{
	double end = now_ms() + atof(ms);

	while (now_ms() < end)
		entry(x);
}

TRACED int use_plugin(const char *path, int x)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *spin_ms = getenv("DLOPEN_SPIN_MS");
	int (*entry)(int);
	int r;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	entry = (int (*)(int))dlsym(h, "plugin_entry");
	if (!entry) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return -1;
	}
	r = entry(x);
	if (spin_ms)
		spin(entry, x, spin_ms);
	dlclose(h);
	BARRIER();
	return r;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (n <= 0)
		return 1;
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libplugin.so");

	for (int round = 0; round < 2; round++) {
		int x = before_plugin(round);
		int r = use_plugin(path, x);

		if (r < 0)
			return 1;
		printf("round %d: plugin_entry(%d) = %d, after = %d\n", round, x, r, after_plugin(r));
	}
	return 0;
}
