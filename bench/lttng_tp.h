/* SPDX-License-Identifier: MIT */
/*
 * lttng_tp.h - LTTng-UST tracepoint provider for bench/tracepoint_lttng.c:
 * the same event as bench/tracepoint_events.h (two int fields).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench_lttng

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(
	bench_lttng,
	bench_two,
	TP_ARGS(int, a, int, b),
	TP_FIELDS(
		ctf_integer(int, a, a)
		ctf_integer(int, b, b)
	)
)

#endif /* BENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
