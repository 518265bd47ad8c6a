#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/many_funcs.sh [N] [THREADS] [USEC] > prog.c
#
# Prints a C program with N functions (default 10000), f0 ... f<N-1>, each
# noinline so each has its own call site, and a loop: THREADS threads
# (default 1) call every function once a pass, then sleep USEC
# microseconds (default 1000), until the
# file named by argv[1] exists.  Each pass's sum is known in advance; the
# program prints it and the number of passes that got another sum (0 when
# nothing went wrong), so its output is the same traced or not.  Used by
# bench/live_toggle.sh and tests/kernel/live_toggle.sh (switching
# current_tracer while it runs).
set -u
N=${1:-10000}
T=${2:-1}
USEC=${3:-1000}
cat <<C
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NF $N
#define NT $T
#define USEC $USEC
C
awk -v n="$N" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "__attribute__((noinline)) long f%d(long x) { __asm__ volatile(\"\"); return x + %d; }\n", i, i % 7
	printf "static long (*const tab[NF])(long) = {\n"
	for (i = 0; i < n; i++)
		printf "f%d,%s", i, (i % 16 == 15) ? "\n" : ""
	printf "};\n"
}'
cat <<'C'
static const char *stop;
static long bad[NT];

/* The sum of one pass: f_i(0) is i % 7. */
static long pass_sum(void)
{
	long s = 0;

	for (long i = 0; i < NF; i++)
		s += i % 7;
	return s;
}

static void *loop(void *arg)
{
	long t = (long)arg, want = pass_sum();

	while (access(stop, F_OK) != 0) {
		long s = 0;

		for (int i = 0; i < NF; i++)
			s += tab[i](0);
		bad[t] += s != want;
		usleep(USEC);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NT];
	long nbad = 0;

	if (argc < 2)
		return 2;
	stop = argv[1];
	for (long t = 1; t < NT; t++)
		pthread_create(&th[t], NULL, loop, (void *)t);
	loop(0);
	for (long t = 1; t < NT; t++)
		pthread_join(th[t], NULL);
	for (long t = 0; t < NT; t++)
		nbad += bad[t];
	printf("%d threads, %d functions, pass sum %ld, wrong passes %ld\n", NT, NF, pass_sum(), nbad);
	return 0;
}
C
