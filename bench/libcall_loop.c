/* SPDX-License-Identifier: MIT */
/*
 * libcall_loop.c - the program of bench/libcall.sh: N calls of lc_leaf()
 * (bench/libcall_leaf.c, a shared library) through the PLT, built without
 * utrace's flags, timed as bench/tracepoint_loop.h times its loop.
 */
int lc_leaf(int x);

#define TP_NAME "libcall"
#define TP_HIT(i) lc_leaf(i)
#include "tracepoint_loop.h"
