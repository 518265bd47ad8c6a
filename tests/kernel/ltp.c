/* SPDX-License-Identifier: MIT */
/*
 * ltp.c - a program of static tracepoints (lt_events.h) for the live
 * tracefs tests: rounds of one lt_tick and thirty lt_work, a millisecond
 * apart, until the file argv[1] exists.
 */
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "lt_events.h"
int main(int argc, char **argv)
{
	for (int n = 0; access(argv[1], F_OK); n++) {
		trace_lt_tick(n);
		for (int k = 0; k < 30; k++)
			trace_lt_work(n * 30 + k, k % 3);
		usleep(1000);
	}
	return 0;
}
