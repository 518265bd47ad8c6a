/* SPDX-License-Identifier: MIT */
/*
 * recorder_trig.h - the recorder's the trigger commands (-R): set up at the
 * start, sent with an event's ENABLE, run on the kernel's records
 * (recorder_trig.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_TRIG_H
#define UTRACE_LIB_RECORDER_TRIG_H

#include <stdbool.h>
#include <stdint.h>

struct utrace_recorder;
struct rec_conn;
struct utrace_error;
struct utrace_trigger;
struct utrace_event_format;

/* The state of the trigger commands, shared by recorder_trig.c (the -R,
 * sent to the processes) and recorder_ktrig.c (run on kernel records). */
struct rec_trig {
	bool kernel;		  /* of a kernel -e: bound in rec_trig_kready */
	unsigned spec, trig;	  /* which -e, which of its -R */
	const struct utrace_trigger *t; /* as its -e holds it parsed */
	int count_idx;		  /* in utrace_control.trig_count, -1: unlimited */
	int target;		  /* enable_/disable_: the target's id */
	struct rec_trig *next;
	struct rec_trig_prog *progs; /* its filter, compiled once per format */
};

/* A trigger's filter compiled for one format (its address: the format's
 * identity for the recording, as recorder_hist.c's), for every object
 * and process that has it. */
struct rec_trig_prog {
	const struct utrace_event_format *fmt;
	void *filter;
	uint32_t flen;
	struct rec_trig_prog *next;
};

/* A kernel trigger command bound to one kernel event: a -R's
 * (rec_trig_kready) or the live tracefs's (rec_trig_klive). */
struct rec_ktrig {
	const struct rec_trig *x;	/* the -R's, NULL: the tracefs's */
	const struct utrace_trigger *t; /* parsed */
	int kid, target; /* the event it is bound to, its target's id (kernel, or user) */
	int64_t count;	 /* a -R's :N left, -1: unlimited */
	int count_idx;	 /* the tracefs's :N: its counter on the control page, -1: none */
	void *filter;	 /* compiled for kid's format, NULL if none */
	uint32_t flen;
	struct rec_ktrig *next;
};

/* The trigger commands, and what the kernel ones switch: the recorder's
 * (made with it: rec_trig_new, -ENOMEM). */
struct rec_trigs {
	struct rec_trig *trigs;	  /* the trigger commands */
	struct rec_ktrig *ktrigs; /* kernel trigger commands, bound */
	uint8_t *kstate;	  /* by kernel id: enum utrace_ev_state */
	int ksnap_kid; /* a kernel snapshot to take: its event, -2 a hist's snapshot(), -1 none */
	bool kon;	     /* kernel records saved, hists run: traceon/traceoff */
	bool klive_on;	     /* live: tracing_on as last read before the stop */
	uint32_t nr_counts;  /* their :N counters in ctl */
};

/* Whether a trigger command of t's kind has a target event (enable_/
 * disable_event, enable_/disable_hist). */
bool rec_trig_has_target(const struct utrace_trigger *t);

/* recorder_trig.c: whether an -R enable_/disable_event (or _hist) of a
 * user event names event id as its target (the kernel's soft mode) */
bool rec_trig_targets(const struct utrace_recorder *r, int id);

/* Whether the kernel_stack entry after a saved record of kernel id kid
 * is saved: kid has a stacktrace (a -R's, or the tracefs's, whose :N
 * this takes).  Whether the tracefs's stacktrace can run on kid: the
 * kernel instance lists kernel_stack's format (a real kernel event's,
 * not trace_marker's). */
bool rec_trig_kstack(struct utrace_recorder *r, int kid);
bool rec_trig_kstack_ok(const struct utrace_recorder *r, int kid);

/* Whether a kernel event has a snapshot trigger (pages are kept for it). */
bool rec_trig_ksnap(const struct utrace_recorder *r);

/* Its state, made with the recorder (-ENOMEM), freed by rec_trig_free;
 * a :N counter on the control page for a new trigger (recorder_liveev.c
 * too): its index, -1 if none is left. */
int rec_trig_new(struct utrace_recorder *r);
int rec_trig_count_new(struct utrace_recorder *r);
/* The kernel events' switches, once their formats are known
 * (recorder_khist.c): tracing on, every event's state byte as kid's is
 * set (kept or UTRACE_EVS_OFF), -ENOMEM.  What the merge reads
 * (recorder_kmerge.c): traceon/traceoff's state; whether kid's record is
 * saved; the snapshot a trigger asked for (its kid, -2 a hist's
 * snapshot(), -1 none; taken: reset); a hist's snapshot() asked for. */
int rec_trig_kstart(struct utrace_recorder *r);
void rec_trig_kset(struct utrace_recorder *r, int kid, uint8_t state);
/* kid's record saved (on 1) or not (0), its other state kept; or only
 * read (-1): whether it is. */
int rec_trig_kswitch(struct utrace_recorder *r, int kid, int on);
bool rec_trig_kon(const struct utrace_recorder *r);
bool rec_trig_kkeep(struct utrace_recorder *r, int kid);
int rec_trig_ksnap_take(struct utrace_recorder *r);
void rec_trig_ksnap_hist(struct utrace_recorder *r);

/* recorder_trig.c: the trigger commands set up at the start, the flags an
 * event's ENABLE needs, sent before it; freed with the recorder */
int rec_trig_init(struct utrace_recorder *r, struct utrace_error *err);
/* The runtime's command (UTRACE_TC_*) of a trigger's (UTRACE_TRIG_*), 0 if
 * the runtime has none for it (hist: a table of its own). */
uint32_t rec_trig_cmd(uint32_t cmd);
uint32_t rec_trig_flags(struct utrace_recorder *r, const char *system, const char *name);
int rec_trig_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
bool rec_trig_wants_stacks(const struct utrace_recorder *r);
void rec_trig_free(struct utrace_recorder *r);
/* The kernel events' trigger commands: bound to the kernel ids once the
 * formats are known, run on each record in time order. */
int rec_trig_kready(struct utrace_recorder *r, struct utrace_error *err);
void rec_trig_krun(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len);
/* recorder_ktrig.c: the live tracefs's trigger commands of kernel id kid
 * (format fmt), its list trigs (n of them; hist ones are recorder_hist.c's,
 * an instance's are not run): bound again, the old ones dropped.  The
 * triggers must outlive their binding (the next call drops it). */
struct rec_live_trig;
int rec_trig_klive(struct utrace_recorder *r, int kid, const struct utrace_event_format *fmt,
		   const struct rec_live_trig *trigs, unsigned n, struct utrace_error *err);

#endif
