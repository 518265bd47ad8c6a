/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist.h - the recorder's hist triggers' tables: compiled per event
 * format (recorder_hist.c), kept (recorder_hist_map.c) and sent to the
 * processes (recorder_hist_send.c), read, paused, cleared and dropped
 * while running (recorder_histlive.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_HIST_H
#define UTRACE_LIB_RECORDER_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hist/hist_compile.h"

struct utrace_recorder;
struct rec_conn;
struct utrace_error;
struct utrace_event_format;

/* The hist tables of the recording (recorder_hist_map.c, recorder_histlive.c):
 * made with the recorder (rec_hist_new: -ENOMEM), freed with it. */
struct rec_hists {
	struct rec_hist *hists;
	uint32_t hist_tids; /* table ids handed out */
};
int rec_hist_new(struct utrace_recorder *r);

/* A hist trigger's table (recorder_hist.c), shared with the processes. */
struct rec_hist {
	unsigned spec, trig;
	int kid; /* kernel events: the event's id, else -1 */
	char *system, *name;
	const char *text; /* the -R as written (the cmd's string) */
	void *prog;
	uint32_t prog_len;
	int fd;
	struct utrace_hist_map *map;
	uint64_t map_size;
	char *table;		/* name=: the table's name, NULL if none */
	struct rec_hist *owner; /* name=: the trigger whose table this one shares */
	uint32_t tid;		/* its table's id, for RESOLVE (common/proto.h) */
	unsigned reader;	/* whose (the live tracefs's): 0 the top level */
	/* the formats prog was compiled for (or compiled the same for): an
	 * object of one of them gets prog without a compile */
	const struct utrace_event_format **fmts;
	size_t nr_fmts, cap_fmts;
	struct rec_hist *next;
};

/* recorder_hist_map.c: a user event's state byte (NULL for a kernel
 * event); recorder_hist_tables.c: the used elements of a table, in slot
 * order (*n; free it); recorder_hist_map.c: one table freed */
uint8_t *rec_hist_state(struct utrace_recorder *r, const struct rec_hist *h);
/* whether a disable_hist paused h: the top level's by the event's state,
 * an instance's by its reader's bit (utrace_control.reader_hist_off) */
bool rec_hist_disabled(struct utrace_recorder *r, const struct rec_hist *h);
struct utrace_hist_map;
uint8_t *rec_hist_entries(struct utrace_hist_map *m, uint32_t *n);
void rec_hist_free_one(struct rec_hist *h);

/* recorder_hist_send.c: the event's hist triggers, sent before its ENABLE;
 * recorder_hist_tables.c: the tables saved at the end; freed with the
 * recorder */
int rec_hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err);
int rec_hist_save_all(struct utrace_recorder *r, struct utrace_error *err);
/* recorder_hist.c: the table of trigger k of spec (kspec | REC_HIST_KERNEL
 * for a kernel -e), t (parsed from text) compiled for fmt; NULL with err->code 0 if it is not a
 * hist trigger.  env_kernel: its $vars are the kernel events' ones. */
#define REC_HIST_KERNEL (1u << 31)
#define REC_HIST_LIVE (1u << 30) /* spec: a trigger the tracefs added, by serial */
struct rec_hist *rec_hist_get(struct utrace_recorder *r, unsigned spec, unsigned k,
			      const char *text, const struct utrace_trigger *t,
			      const struct utrace_event_format *fmt, bool env_kernel,
			      const char *path, struct utrace_error *err);
void rec_hist_set_kid(struct rec_hist *h, int kid);
/* recorder_liveev.c: one trigger's HIST (and the tables it RESOLVEs in)
 * to c; recorder_histlive.c: its table as it is now (*elts to free); a
 * removed one dropped */
int rec_hist_send_one(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		      const struct rec_hist *h);
struct utrace_hist_table;
int rec_hist_table(struct utrace_recorder *r, const struct rec_hist *h,
		   struct utrace_hist_table *t, uint8_t **elts);
void rec_hist_drop(struct utrace_recorder *r, unsigned spec);
/* Whether another trigger's program reads a variable of spec's table. */
bool rec_hist_referenced(const struct utrace_recorder *r, unsigned spec);
/* The table of spec paused, continued or cleared (hist:...:pause, :cont,
 * :clear written again), or only read: *paused, whether its hits count
 * now; -ENOENT if it has no table. */
enum { REC_HIST_READ, REC_HIST_PAUSE, REC_HIST_CONT, REC_HIST_CLEAR };
int rec_hist_ctl(struct utrace_recorder *r, unsigned spec, int what, bool *paused);
const struct rec_hist *rec_hist_find(const struct utrace_recorder *r, unsigned spec);
/* recorder_hist_tables.c: the hists of kernel id kid run on one record
 * (recorder_kmerge.c); for a trace_marker write, only those of the
 * tracefs's reader written to (else REC_HIST_ALL_READERS). */
#define REC_HIST_ALL_READERS (~0u)
struct utrace_hist_ctx;
void rec_hist_krun(struct utrace_recorder *r, int kid, unsigned reader, struct utrace_hist_ctx *c);
/* Whether a hist of kernel id kid keys on its stack (common_stacktrace). */
bool rec_hist_kwants_stack(const struct utrace_recorder *r, int kid);
/* enable_hist/disable_hist on kernel id kid; whether one of its is paused */
void rec_hist_kpause(struct utrace_recorder *r, int kid, bool paused);
bool rec_hist_kpaused(const struct utrace_recorder *r, int kid);

/* recorder_hist.c: $name of a hist trigger of reader's of an event where
 * path has it (NULL: of a kernel event), as its compile finds it (a
 * UTRACE_HIST_ERR_* or 0) */
int rec_hist_var(struct utrace_recorder *r, unsigned reader, const char *path, const char *name,
		 const char *msys, const char *mev, struct utrace_hist_var_info *out);

void rec_hist_free(struct utrace_recorder *r);

/* recorder_hist_map.c: h's table made (a memfd mapped here); a table paused
 * (:pause); name=: h given the table of the first trigger of its name
 * (-EINVAL if laid out otherwise); whether h's program was compiled for
 * fmt; fmt noted as one it was compiled for (-ENOMEM) */
int rec_hist_map_new(struct rec_hist *h, struct utrace_error *err);
void rec_hist_pause(struct utrace_recorder *r, struct rec_hist *h);
int rec_hist_share(struct utrace_recorder *r, struct rec_hist *h, struct utrace_error *err);
bool rec_hist_compiled_for(const struct rec_hist *h, const struct utrace_event_format *fmt);
int rec_hist_note_fmt(struct rec_hist *h, const struct utrace_event_format *fmt);

/* recorder_hist.c: the synthetic event an action names (--synthetic) */
int rec_synth_lookup(void *arg, const char *name, struct utrace_hist_synth_info *out);

#endif
