/* SPDX-License-Identifier: MIT */
/*
 * signals_yes.c - yes(1) built with the flags: writes lines until its
 * reader goes; with SIGPIPE at its default it dies of it (status 141),
 * else it says why the write failed and exits 1, as yes does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int line(char *buf, int i)
{
	return snprintf(buf, 32, "y %d\n", i);
}

int main(void)
{
	char buf[32];

	for (int i = 0;; i++) {
		int n = line(buf, i);

		if (write(1, buf, (size_t)n) != n) {
			fprintf(stderr, "signals_yes: write: %s\n", strerror(errno));
			return 1;
		}
	}
}
