/* SPDX-License-Identifier: MIT */
/*
 * modes_dl.c LIB - dlopen and dlclose LIB (modes_dllib.c, built by
 * tests/hostile/modes.sh) 200 times, each time calling its dl_work from
 * traced functions, so that the library's code comes and goes (maybe at
 * new addresses) while traced.  Prints a result that does not depend on
 * where the library was mapped and how many loads it made (dl_round is
 * called once per load).
 */
#include <dlfcn.h>
#include <stdio.h>

#define LOADS 200

__attribute__((noinline)) long dl_round(const char *lib, int i)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	long (*work)(long);
	long r;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	work = (long (*)(long))dlsym(h, "dl_work");
	if (!work) {
		dlclose(h);
		return -1;
	}
	r = work(i);
	if (dlclose(h) != 0)
		return -1;
	return r;
}

int main(int argc, char **argv)
{
	long sum = 0;
	int n = 0;

	if (argc < 2)
		return 2;
	for (int i = 0; i < LOADS; i++) {
		long r = dl_round(argv[1], i);

		if (r < 0)
			return 3;
		sum = (sum * 31 + r) & 0xffffff;
		n++;
	}
	printf("loads %d result %ld\n", n, sum);
	return 0;
}
