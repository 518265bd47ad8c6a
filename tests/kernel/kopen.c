/* SPDX-License-Identifier: MIT */
/*
 * kopen.c - for tests/kernel/kevents.sh: opens FILE (default
 * /etc/hostname) inside a traced function, kopen_open(), after printing
 * the address of the name, so the kernel's sys_enter_openat record can be
 * matched (its filename field is that address) and placed between the
 * function's entry and exit.  kopen_note() makes kopen_open() a call with
 * an entry and an exit of its own (not a leaf).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int kopen_note(int fd)
{
	return fd >= 0;
}

__attribute__((noinline)) int kopen_open(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY);

	kopen_note(fd);
	if (fd >= 0)
		close(fd);
	return fd;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/etc/hostname";

	printf("%p\n", (const void *)path);
	fflush(stdout);
	return kopen_open(path) < 0;
}
