/* SPDX-License-Identifier: MIT */
/*
 * recorder_kprobe.h - the recorder's in-process probes: their KPROBEs for an
 * object's KPROBE_AREA and the ENABLE of one added while running
 * (recorder_kprobe.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_KPROBE_H
#define UTRACE_LIB_RECORDER_KPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

struct utrace_recorder;
struct rec_conn;
struct utrace_error;

/* recorder_kprobe.c: the in-process probes' KPROBEs for an object's
 * KPROBE_AREA */
int rec_kprobe_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		    struct utrace_error *err);
/* Probe i's KPROBE for object obj at slot *slot of the area am names
 * (moved past it), sent on c (0 also when it does not land there: said
 * as a notice); others: where the object's probes are. */
int rec_kprobe_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
		   const struct utrace_msg_kprobe_area *am, unsigned i, uint32_t *slot,
		   const uint64_t *others, size_t nothers, struct utrace_msg_kprobe *m);
/* recorder_kprobe.c: probe key i's ENABLE when it was added while running
 * (its records follow ev_state: STATEFUL): 1 once sent, 0 if it was
 * not added so, <0 if the send failed. */
int rec_kprobe_live_enable(struct utrace_recorder *r, struct rec_conn *c, unsigned i,
			   struct utrace_msg_enable *en);

#endif
