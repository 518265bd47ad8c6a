// SPDX-License-Identifier: MIT
//
// hist.c - a tracepoint fired a known number of times with known fields,
// for hist triggers (record -R 'hist:...', report --hist): from main, from
// a second thread and from a fork child (all three add to one table).
//
// id k (0..7) fires 10 * (k + 1) times, so every key has a hit count of its
// own and the kernel's sort by hitcount has no ties: the printed histogram
// is the same on every run (a golden file).  bytes = 100 * k + j for the
// j-th firing; word cycles through a list of four words.  The program
// prints nothing that depends on tracing, and checks nothing: the test
// compares the histograms with what these rules give.
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"
#define CREATE_TRACE_POINTS
#include "hist_events.h"

static const char *const words[] = {"alpha", "beta", "gamma", "delta"};

TRACED void fire(int k)
{
	for (int j = 0; j < 10 * (k + 1); j++) {
		trace_hist_req(k, 100ul * (unsigned long)k + (unsigned long)j, words[j % 4]);
		BARRIER();
	}
}

static void *thread_main(void *arg)
{
	(void)arg;
	fire(6);
	return NULL;
}

int main(void)
{
	pthread_t th;
	pid_t child;
	int st = 0;

	for (int k = 0; k < 6; k++)
		fire(opaque(k));
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	child = fork();
	if (child == 0) {
		fire(7);
		_exit(0);
	}
	waitpid(child, &st, 0);
	printf("fired 360 events\n");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
