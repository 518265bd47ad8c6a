/* SPDX-License-Identifier: MIT */
/*
 * bta.c - a program (built with -g) whose function and tracepoint take a
 * struct pointer, for tests/kernel/tracefs_btfarg.sh: each round n, a job
 * {id n, meta.weight 10 n, meta.tag "tN", next: a job {id n + 1000,
 * name "beta"}, name "alpha"} goes to bta_submit(j, n % 7), which returns
 * j->next, and to the tracepoint bta_run(j, n); a millisecond apart,
 * until the file argv[1] exists.
 */
#include <stdio.h>
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "bta_events.h"

volatile long sink;

__attribute__((noinline)) struct job *bta_submit(struct job *j, int prio)
{
	sink += j->id + prio;
	return j->next;
}

int main(int argc, char **argv)
{
	for (int n = 0; argc > 1 && access(argv[1], F_OK); n++) {
		struct job b = {.id = n + 1000, .name = "beta"};
		struct job a = {.id = n, .meta.weight = 10L * n, .next = &b, .name = "alpha"};

		snprintf(a.meta.tag, sizeof(a.meta.tag), "t%d", n % 100000);
		bta_submit(&a, n % 7);
		trace_bta_run(&a, n);
		usleep(1000);
	}
	return 0;
}
