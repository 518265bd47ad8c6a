/* SPDX-License-Identifier: MIT */
/*
 * record_dynev.h - the live tracefs's dynamic_events and synthetic_events
 * over a recording (cmds/record_dynev.c): probes and synthetic events
 * defined, enabled and removed while the programs run.
 */
#ifndef UTRACE_CMDS_RECORD_DYNEV_H
#define UTRACE_CMDS_RECORD_DYNEV_H

#include "cmds/record.h"
#include "lib/live/live.h"

struct record_live;
struct record_dynev;

/* The state for rl's recording (NULL: out of memory, said), its ops set
 * in ops (whose arg must be rl). */
struct record_dynev *record_dynev_new(struct record_live *rl, const struct record_opts *o,
				      struct utrace_live_ops *ops);
void record_dynev_free(struct record_dynev *d);

/* record_live.c: the recorder held (the loop's lock), the state of rl,
 * its recorder, and the id an event has in the recording */
void record_live_lock(struct record_live *rl);
void record_live_unlock(struct record_live *rl);
struct record_dynev *record_live_dynev(struct record_live *rl);
struct utrace_recorder *record_live_recorder(struct record_live *rl);
int record_live_event_id_locked(struct record_live *rl, const char *system, const char *name);

#endif
