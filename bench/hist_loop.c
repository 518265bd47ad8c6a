/* SPDX-License-Identifier: MIT */
/*
 * hist_loop.c - the program of bench/hist.sh: a loop that calls hit(key)
 * N times, key = i % 64, and hit() fires the tracepoint bench:bench_two
 * (a = key, b = 1).  utrace counts it with a hist trigger on the
 * tracepoint (hist:keys=a:vals=b); bpftrace with a uprobe on hit()
 * (@[arg0] = count()).  hit() is a real function (noinline, used) so that
 * the uprobe has a symbol to attach to; the tracepoint costs a NOP when
 * nothing enables it.  Timed as bench/tracepoint_loop.h times its loop.
 */
#define CREATE_TRACE_POINTS
#include "tracepoint_events.h"

__attribute__((noinline, used)) void hit(long key)
{
	__asm__ volatile("" : : "r"(key) : "memory");
	trace_bench_two((int)key, 1);
}

#define TP_NAME "hist"
#define TP_HIT(i) hit((i) % 64)
#include "tracepoint_loop.h"
