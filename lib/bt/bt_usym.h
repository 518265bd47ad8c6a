/* SPDX-License-Identifier: MIT */
/*
 * bt_usym.h - ustack and usym() in the tool (bt_usym.c): the replayed
 * hit's user stack interned into an id the bytecode keys maps on, each
 * stack and address named as bpftrace 0.17 names them.
 */
#ifndef UTRACE_LIB_BT_USYM_H
#define UTRACE_LIB_BT_USYM_H

#include <stddef.h>
#include <stdint.h>

struct utrace_dat;
struct bt_usym;

int bt_usym_new(struct bt_usym **out);
void bt_usym_free(struct bt_usym *u);
/* The hit the next program runs on: the recording that names its
 * addresses (NULL: none, a BEGIN, END or interval), its image, and its
 * stack (pc[0] the probed address, then the frames' return addresses). */
void bt_usym_hit(struct bt_usym *u, struct utrace_dat *d, uint32_t image, const uint64_t *pc,
		 unsigned n);
/* ... or a hit of a live process (the kernel's uprobes, bt_kernel.c):
 * its addresses named from /proc/PID/maps while it lives. */
void bt_usym_hit_live(struct bt_usym *u, int pid, const uint64_t *pc, unsigned n);
/* The id of the hit's stack's first limit frames in mode (0 bpftrace, 1
 * perf): equal stacks, equal ids.  -1 if out of memory. */
int64_t bt_usym_stack(struct bt_usym *u, unsigned limit, unsigned mode);
/* The name of addr (bpftrace's usym(): no offset; "0x..." if unknown)
 * into out, size bytes. */
void bt_usym_name(struct bt_usym *u, uint64_t addr, char *out, size_t size);
/* Stack id's frames as bt_print.h's STACK lines; NULL, 0 if none. */
const char *const *bt_usym_lines(const struct bt_usym *u, int64_t id, size_t *n);

#endif
