/* SPDX-License-Identifier: MIT */
/*
 * signals_run.c - runs a command with signals ignored and blocked, as a
 * shell's nohup, a background job or a service manager hands them on:
 *   signals_run [-i SIG]... [-b SIG]... -- CMD [ARG]...
 * SIG is a number.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	sigset_t block;
	int i;

	sigemptyset(&block);
	for (i = 1; i + 1 < argc && strcmp(argv[i], "--"); i += 2) {
		int sig = atoi(argv[i + 1]);

		if (!strcmp(argv[i], "-i"))
			signal(sig, SIG_IGN);
		else
			sigaddset(&block, sig);
	}
	if (i >= argc || strcmp(argv[i], "--")) {
		fprintf(stderr, "usage: signals_run [-i SIG]... [-b SIG]... -- CMD...\n");
		return 2;
	}
	sigprocmask(SIG_BLOCK, &block, NULL);
	execvp(argv[i + 1], argv + i + 1);
	perror(argv[i + 1]);
	return 127;
}
