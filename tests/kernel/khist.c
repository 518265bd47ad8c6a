// SPDX-License-Identifier: MIT
// khist.c - system calls made a known number of times, for the hist
// triggers of tests/kernel/khist.sh: getpgid(0) N times, then getsid(0) 2N
// times, as raw system calls; neither is one the runtime makes, N = argv[1].
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	for (long i = 0; i < 2 * n; i++)
		syscall(SYS_getsid, 0);
	return 0;
}
