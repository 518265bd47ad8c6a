/* SPDX-License-Identifier: MIT */
/*
 * tracepoint_utrace.c - bench/tracepoint.sh's loop calling the utrace
 * static tracepoint trace_bench_two(i, i * 2) (bench/tracepoint_events.h).
 * Off (run without utrace, or under utrace record with the event not
 * enabled) each call is a 5-byte NOP; on (utrace record -e bench:bench_two)
 * it records one event with two int fields.
 */
#define CREATE_TRACE_POINTS
#include "tracepoint_events.h"

#define TP_NAME "utrace"
#define TP_HIT(i) trace_bench_two((i), (i) * 2)
#include "tracepoint_loop.h"
