/* SPDX-License-Identifier: MIT */
/*
 * tracepoint_lttng.c - bench/tracepoint.sh's loop calling the LTTng-UST
 * tracepoint bench_lttng:bench_two(i, i * 2) (bench/lttng_tp.h), the
 * provider built into the program.  Build with -I bench -llttng-ust -ldl.
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "lttng_tp.h"

#define TP_NAME "lttng"
#define TP_HIT(i) tracepoint(bench_lttng, bench_two, (i), (i) * 2)
#include "tracepoint_loop.h"
