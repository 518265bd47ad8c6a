/* SPDX-License-Identifier: MIT */
/*
 * ltn.c - the static tracepoints of lt_events.h hit an exact number of
 * times, on request, for the live tracefs tests that count: for K = 1,
 * 2, ... it waits for the file DIR/go.K, whose text is "tick N" or
 * "work N" (written whole: made elsewhere and renamed), hits lt_tick (or
 * lt_work) N times, then makes DIR/done.K; it ends once DIR/stop exists.
 */
#include <stdio.h>
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "lt_events.h"

/* DIR/go.K's request, done; 0 if there is none yet */
static int step(const char *dir, int k)
{
	char path[4096], what[16];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/go.%d", dir, k);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%15s %d", what, &n) != 2)
		n = -1; /* written but not whole yet */
	fclose(f);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (what[0] == 't')
			trace_lt_tick(i);
		else
			trace_lt_work(i, i % 3);
	}
	snprintf(path, sizeof(path), "%s/done.%d", dir, k);
	if ((f = fopen(path, "w")))
		fclose(f);
	return 1;
}

int main(int argc, char **argv)
{
	char stop[4096];

	if (argc != 2)
		return 2;
	snprintf(stop, sizeof(stop), "%s/stop", argv[1]);
	for (int k = 1; access(stop, F_OK);) {
		if (step(argv[1], k))
			k++;
		else
			usleep(1000);
	}
	return 0;
}
