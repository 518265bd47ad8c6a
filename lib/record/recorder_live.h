/* SPDX-License-Identifier: MIT */
/*
 * recorder_live.h - the recorder's changes while the program runs (record
 * --tracefs): the live channel (recorder_live.c), the events' switches,
 * filters and configuration (recorder_liveev.c), their trigger lists
 * (recorder_livetrig.c), what was set per event (recorder_livevar.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_LIVE_H
#define UTRACE_LIB_RECORDER_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct utrace_recorder;
struct rec_conn;
struct utrace_event_format;
struct utrace_trigger;
struct rec_object;

/* One event of an object: its key there and the recording's id. */
struct rec_evkey {
	uint32_t key;
	int id;
};

/* An object's events' keys (recorder_liveev.c adds them), NULL until it
 * has one; how many o has, freed with the recorder (recorder_livevar.c). */
struct rec_live_keys {
	struct rec_evkey *evkeys;
	uint32_t nr_evkeys, cap_evkeys;
};
uint32_t rec_live_nkeys(const struct rec_object *o);
void rec_live_keys_free(struct rec_object *o);

/* recorder_funcrange.c: an event filter's FIELD.function functions in
 * process c (lib/events/event_filter.h's utrace_filter_func_fn). */
struct rec_func_ctx {
	struct utrace_recorder *r;
	struct rec_conn *c;
};
int rec_func_range(void *arg, const char *name, uint64_t addr, uint64_t *start, uint64_t *end);

/* A trigger the tracefs added to an event. */
struct rec_live_trig {
	char *text;		  /* as written (a hist table's text points here) */
	struct utrace_trigger *t; /* parsed */
	uint32_t serial;	  /* its hist table's key (REC_HIST_LIVE | serial) */
	int target;		  /* enable_/disable_: the target's id */
	int count_idx;		  /* :N: its counter on the control page, else -1 */
	uint32_t reader;	  /* whose: 0 the top level's, else an instance's */
};

/* What the tracefs set for one event of the recording. */
struct rec_live_ev {
	int id;
	char sys[65], name[65];
	char *filter; /* NULL: none */
	void *prog;   /* the last one compiled (for one object's format) */
	uint32_t prog_len; /* a kernel event's (recorder_livekev.c) */
	struct rec_live_trig *trigs;
	unsigned nr_trigs;
	struct rec_live_ev *next;
};

/* What the tracefs set, per event (recorder_liveev.c, recorder_livevar.c):
 * made with the recorder (rec_live_new: -ENOMEM), freed with it. */
struct rec_live_evs {
	struct rec_live_ev *live_evs;
	uint32_t live_serial; /* triggers added so far */
	struct utrace_event_format *print_fmt; /* ftrace:print's, parsed once */
};
/* recorder_live.c: its own state (the synthetic events defined while
 * running), made with the recorder */
int rec_live_new(struct utrace_recorder *r);
int rec_live_evs_new(struct utrace_recorder *r);

/* recorder_livevar.c: event id's settings; a new one if it has none and
 * sys (its name: sys, name) is given */
struct rec_live_ev *rec_live_ev_of(struct utrace_recorder *r, int id, const char *sys,
				   const char *name);
/* The format of sys:name where path (an object, or UTRACE_EVENT_NOOBJ for
 * a synthetic event or a probe) has it; an object of a traced process
 * whose keys hold event id, else UTRACE_EVENT_NOOBJ */
/* whether sys:name is trace_marker's event, ftrace:print */
bool rec_is_print(const char *sys, const char *name);
const struct utrace_event_format *rec_ev_fmt(struct utrace_recorder *r, const char *path,
					     const char *sys, const char *name);
const char *rec_ev_path(struct utrace_recorder *r, int id);

/* recorder_liveev.c: the filter the tracefs set for an event, for its
 * ENABLE at registration in process c (*prog, *len replaced; owned
 * here); freed with the recorder */
void rec_live_event_prog(struct utrace_recorder *r, struct rec_conn *c, const char *path,
			 const char *sys, const char *name, int id, const void **prog,
			 uint32_t *len);
void rec_live_ev_free(struct utrace_recorder *r);
/* recorder_eprobe.c: the EPROBE triggers of the event probes attached to
 * the event of format fmt, for key of object obj, to c (*nt: the event's
 * trigger commands so far, counted against UTRACE_EVENT_TRIGS_MAX). */
int rec_eprobe_trigs_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			  uint32_t key, const struct utrace_event_format *fmt, unsigned *nt);
/* recorder_livekev.c: the kernel events the tracefs shows (a kernel -e's,
 * in a recording whose merge runs, recorder.h): its switch set (1, 0) or read (-1), its state; e's triggers set (hist
 * tables compiled for the kernel's format). */
struct utrace_error;
int rec_live_kev_enable(struct utrace_recorder *r, int kid, int set);
int rec_live_kev_push(struct utrace_recorder *r, struct rec_live_ev *e,
		      struct utrace_error *err);
/* Whether kernel record rec (len bytes) of kid is saved, as far as the
 * tracefs's filter of its event and set_event_pid / _notrace_pid say. */
bool rec_live_kev_keep(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len);
/* A synthetic event defined while running (index n of the synths): its
 * kernel id and format added; its kernel records switched; the tables of
 * its tracefs hist triggers run on its kernel records too. */
int rec_live_ksynth_add(struct utrace_recorder *r, unsigned n, struct utrace_error *err);
void rec_live_ksynth_enable(struct utrace_recorder *r, unsigned n, int on);
void rec_live_ksynth_hists(struct utrace_recorder *r, unsigned n, const struct rec_live_ev *e);
/* recorder_livevar.c: reader's hist triggers of the tracefs that define
 * variable var (of event sys:ev only, if sys is not ""): each to cb with
 * its event, its text and its table's spec (REC_HIST_LIVE | serial); how
 * many.  The reader of the trigger of table spec (0: none or the top
 * level's). */
unsigned rec_live_reader_of(const struct utrace_recorder *r, unsigned spec);
unsigned rec_live_vars(struct utrace_recorder *r, unsigned reader, const char *var,
		       const char *sys, const char *ev,
		       void (*cb)(void *arg, const char *sys, const char *ev, const char *text,
				  const struct utrace_trigger *t, unsigned spec, unsigned v),
		       void *arg);
/* ... the format of sys:name where path has it, else where it is (*where:
 * UTRACE_EVENT_NOOBJ for a synthetic event or a probe, or an object) */
const struct utrace_event_format *rec_live_fmt(struct utrace_recorder *r, const char *path,
					       const char *sys, const char *name,
					       const char **where);
/* ... and its triggers, before that ENABLE */
/* recorder_liveev.c, for recorder_livetrig.c: the id of sys:name as the
 * tracefs shows it (a kernel event's first), its state byte on the
 * control page (NULL: none), the command line's triggers of it (hist
 * ones in *nh, the others in *nt), and e's configuration pushed to every
 * process */
int rec_live_id(const struct utrace_recorder *r, const char *system, const char *name);
uint8_t *rec_live_ev_state(struct utrace_recorder *r, int id);
void rec_live_spec_counts(struct utrace_recorder *r, const char *sys, const char *name,
			  unsigned *nh, unsigned *nt);
int rec_live_ev_push(struct utrace_recorder *r, struct rec_live_ev *e, const char *sys,
		     const char *name, struct utrace_error *err);
int rec_live_event_trigs(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			 uint32_t key, const char *path, const char *sys, const char *name,
			 int id);
/* The ENABLE flags of an event of a live recording (every event is
 * enabled, switched by its ev_state byte), its key kept for later
 * changes; first: its id is new (its state starts from the -e). */
uint32_t rec_live_event_flags(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj,
			      uint32_t key, const char *sys, const char *name, int id, bool first);

/* recorder_livepid.c: a fork child (pid) of thread ptid joins the pid
 * lists ptid is in, as event-fork and function-fork say (at its HELLO) */
void rec_live_pids_fork(struct utrace_recorder *r, int32_t ptid, int32_t pid);
/* ... and process pid, which exited, leaves them (with the options on) */
void rec_live_pids_exit(struct utrace_recorder *r, int32_t pid);

/* recorder_live.c: what utrace_recorder_inproc_probe_add and _synth_add kept */
void rec_live_free(struct utrace_recorder *r);

#endif
