/* SPDX-License-Identifier: MIT */
/* tracepoint_baseline.c - bench/tracepoint.sh's loop with no tracepoint. */
#define TP_NAME "baseline"
#define TP_HIT(i) ((void)(i))
#include "tracepoint_loop.h"
