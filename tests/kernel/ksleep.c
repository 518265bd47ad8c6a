/* SPDX-License-Identifier: MIT */
/*
 * ksleep.c - off-CPU time of known shares for tests/kernel/offcpu.sh:
 * a() sleeps 100 ms and b() 300 ms, twice each, so a quarter of the time
 * switched out is under a and three quarters under b, 800 ms in all.
 * Built -O0 -fno-omit-frame-pointer so both keep their frames.
 */
#include <time.h>

static void nap(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&t, &t))
		;
}

__attribute__((noinline)) void a(void)
{
	nap(100);
}

__attribute__((noinline)) void b(void)
{
	nap(300);
}

int main(void)
{
	for (int i = 0; i < 2; i++) {
		a();
		b();
	}
	return 0;
}
