/* SPDX-License-Identifier: MIT */
/*
 * session_dynev.h - the live tracefs's dynamic_events and synthetic_events
 * over a recording (lib/session/session_dynev.c): probes and synthetic events
 * defined, enabled and removed while the programs run.
 */
#ifndef UTRACE_SESSION_DYNEV_H
#define UTRACE_SESSION_DYNEV_H

#include "lib/session/session.h"
#include "lib/tracefs/live.h"

struct session_live;
struct session_dynev;

/* The state for rl's recording (NULL: out of memory), its ops set
 * in ops (whose arg must be rl). */
struct session_dynev *session_dynev_new(struct session_live *rl,
					const struct utrace_session_opts *o,
					struct utrace_live_ops *ops);
void session_dynev_free(struct session_dynev *d);

/* The id an event has in rl's recording (the recorder held): that of
 * its event selection (-e), else of one of the tracefs's own. */
int session_dynev_event_id(struct session_live *rl, const char *system, const char *name);

/* A probe as session_dynev_append_check compares it: its type (enum
 * utrace_inproc_probe_kind, + 8 for an fprobe), its format text and its point
 * (the definition's second word). */
struct session_dynev_probe {
	int kind;
	const char *format, *point;
};
/* add, defined as def under the name of old, checked by the kernel's
 * rules (session_dynev_append.c): 0 if it may be appended to old's event
 * (another point), else <0 with err and err->column (-EEXIST, as the
 * kernel). */
int session_dynev_append_check(const struct session_dynev_probe *old,
			       const struct session_dynev_probe *add, const char *def,
			       struct utrace_error *err);

/* The event probes' definitions (session_eprobe.c): ops->probe_add
 * takes them, and gives the others to the one it had (ops->arg rl). */
void session_eprobe_ops(struct session_live *rl, struct utrace_live_ops *ops);
/* Whether system:name is a dynamic event's name (the command line's
 * probes too); an event probe's name kept, with its event id. */
bool session_dynev_known(struct session_live *rl, const char *system, const char *name);
int session_dynev_keep(struct session_live *rl, const char *system, const char *name, int id);
/* -EEXIST with the kernel's EVENT_EXIST in err: a name taken. */
int session_dynev_exists(struct utrace_error *err);

#endif
