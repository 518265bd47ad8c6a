/* SPDX-License-Identifier: MIT */
/*
 * kfcmd.c - a program for the function commands of set_ftrace_filter
 * (tracefs_ftcmd.sh): each round, a millisecond apart until the file
 * argv[1] exists, calls fc_round, fc_lock and fc_unlock once and fires
 * the lt_tick tracepoint (lt_events.h) once.
 */
#include <unistd.h>
#define CREATE_TRACE_POINTS
#include "lt_events.h"

volatile int fc_sink;
__attribute__((noinline)) void fc_round(int n)
{
	fc_sink += n;
}
__attribute__((noinline)) void fc_lock(void)
{
	fc_sink++;
}
__attribute__((noinline)) void fc_unlock(void)
{
	fc_sink--;
}

int main(int argc, char **argv)
{
	for (int n = 0; argc > 1 && access(argv[1], F_OK); n++) {
		fc_round(n);
		fc_lock();
		fc_unlock();
		trace_lt_tick(n);
		usleep(1000);
	}
	return 0;
}
