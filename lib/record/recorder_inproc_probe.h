/* SPDX-License-Identifier: MIT */
/*
 * recorder_inproc_probe.h - the recorder's in-process probes: their INPROC_PROBEs for an
 * object's INPROC_PROBE_AREA and the ENABLE of one added while running
 * (recorder_inproc_probe.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_INPROC_PROBE_H
#define UTRACE_LIB_RECORDER_INPROC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

struct utrace_recorder;
struct rec_conn;
struct utrace_error;

/* recorder_inproc_probe.c: the in-process probes' INPROC_PROBEs for an object's
 * INPROC_PROBE_AREA */
int rec_inproc_probe_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n,
		    struct utrace_error *err);
/* The one install path, at registration and live: a INPROC_PROBE on c for each
 * probe of [from, to) that is on and lands in object obj, at slots from
 * *slot on of the area am names (moved past them; a probe that does not
 * land there is said as a notice), m a buffer of UTRACE_MSG_MAX.  0 or
 * <0 if a send failed. */
int rec_inproc_probe_install(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
		       const struct utrace_msg_inproc_probe_area *am, unsigned from, unsigned to,
		       uint32_t *slot, struct utrace_msg_inproc_probe *m);
/* -EILSEQ with err if a, probe p's vaddr in object o, is inside the
 * bytes another probe that is on there covers, or may cover, with its
 * 5-byte jmp (an int3 or a jmp written there would break that jmp);
 * else 0. */
struct rec_object;
struct utrace_inproc_probe;
int rec_inproc_probe_in_jmp(struct utrace_recorder *r, const struct rec_object *o,
			    const struct utrace_inproc_probe *p, uint64_t a, struct utrace_error *err);
/* The INPROC_PROBE of key UTRACE_ENABLE_DONE that installs the batch of obj. */
int rec_inproc_probe_done(struct rec_conn *c, uint32_t obj, struct utrace_msg_inproc_probe *m);
/* The probes' state, made with the recorder (-ENOMEM), freed with it
 * (with the probes added while running); probe p added while running as
 * event id: its key (o.inproc_probes becomes the recorder's own array), or
 * -ENOSPC, -ENOMEM; the event id of key i if it was added so, else 0;
 * whether any was. */
int rec_inproc_probe_new(struct utrace_recorder *r);
void rec_inproc_probe_free(struct utrace_recorder *r);
struct utrace_inproc_probe;
int rec_inproc_probe_key_new(struct utrace_recorder *r, struct utrace_inproc_probe *p, int id);
int rec_inproc_probe_live_id(const struct utrace_recorder *r, unsigned i);
bool rec_inproc_probe_any_live(const struct utrace_recorder *r);
/* recorder_inproc_probe.c: probe key i's ENABLE when it was added while running
 * (its records follow ev_state: STATEFUL): 1 once sent, 0 if it was
 * not added so, <0 if the send failed. */
int rec_inproc_probe_live_enable(struct utrace_recorder *r, struct rec_conn *c, unsigned i,
			   struct utrace_msg_enable *en);

#endif
