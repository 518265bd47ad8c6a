/* SPDX-License-Identifier: MIT */
/*
 * bt_ustack.c - the program of tests/e2e/t/bt_ustack.sh: parse() called
 * from two places, nine times through level2() (which the stack of a
 * probe at parse's entry skips, as the kernel's frame-pointer walk does)
 * and once straight from level1(), then done(); built with frame
 * pointers.  With a directory argument it waits for DIR/go before the
 * calls and for DIR/stop before it exits, so that a tracer that attaches
 * (bpftrace -p) sees every call and prints while the process lives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) long parse(long n)
{
	__asm__ volatile("" ::: "memory");
	return n * 2;
}

__attribute__((noinline)) long level2(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += parse(i);
	return s;
}

__attribute__((noinline)) long level1(long n) { return level2(n) + parse(n + 100); }

__attribute__((noinline)) void done(void) { __asm__ volatile("" ::: "memory"); }

static void wait_for(const char *dir, const char *name)
{
	char path[4096];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 600 && access(path, F_OK) != 0; i++)
		usleep(100000);
}

int main(int argc, char **argv)
{
	long r;

	wait_for(argc > 1 ? argv[1] : NULL, "go");
	r = level1(20);
	done();
	printf("%ld\n", r);
	fflush(stdout);
	wait_for(argc > 1 ? argv[1] : NULL, "stop");
	return 0;
}
