// SPDX-License-Identifier: MIT
//
// manyfork.c - 300 processes traced at once: every one has a connection
// to the recorder of its own, and all are served.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

#define NPROC 300

static volatile int sink;

TRACED int work(int x)
{
	BARRIER();
	return x * 2;
}

int main(void)
{
	pid_t pids[NPROC];
	int ok = 0;

	for (int i = 0; i < NPROC; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			sink = work(i);
			usleep(200000); /* all alive together */
			_exit(0);
		}
	}
	for (int i = 0; i < NPROC; i++) {
		int st;

		if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st))
			ok++;
	}
	printf("%d children exited\n", ok);
	return 0;
}
