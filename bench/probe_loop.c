/* SPDX-License-Identifier: MIT */
/*
 * probe_loop.c - the program of bench/probe.sh: a loop that calls
 * hit(key, &objs[key]) N times, key = i % 64.  The probes read two
 * fetch-args of it, a register and a field through a pointer
 * (a=%di:u64 b=+8(%si):u32), at hit's entry or in its middle.  Built with
 * `utrace cflags` (hit has its call site).  Timed as
 * bench/tracepoint_loop.h times its loop.
 */
struct obj {
	long pad;
	unsigned val;
};

static struct obj objs[64];

__attribute__((noinline, used)) long hit(long key, struct obj *o)
{
	__asm__ volatile("" : : "r"(key), "r"(o) : "memory");
	return key + o->val;
}

#define TP_NAME "probe"
#define TP_HIT(i) hit((i) % 64, &objs[(i) % 64])
#include "tracepoint_loop.h"
