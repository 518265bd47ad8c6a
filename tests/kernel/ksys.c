/* SPDX-License-Identifier: MIT */
/*
 * ksys.c - most of its CPU time in the kernel, for
 * tests/kernel/samples_kernel.sh: main -> writer -> pwrite(2) of 4 KiB to
 * /dev/null, N times (argv[1], default 1000000).  writer does work after
 * the call so it stays on the stack.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void writer(int fd, unsigned long n)
{
	static char buf[4096];

	for (unsigned long i = 0; i < n; i++)
		sink += (unsigned long)pwrite(fd, buf, sizeof(buf), 0);
}

int main(int argc, char **argv)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	writer(fd, argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000);
	sink++;
	return 0;
}
