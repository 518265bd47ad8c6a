/* SPDX-License-Identifier: MIT */
/*
 * recorder_kernel.h - the recorder's side of the kernel's pages and
 * formats: the formats and page header kept (recorder_kfmt.c), the
 * triggers set up once all are known (recorder_khist.c), the records
 * merged in time order for them (recorder_kmerge.c); the public calls
 * are recorder_kernel.c's.
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_KERNEL_H
#define UTRACE_LIB_RECORDER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct utrace_recorder;
struct utrace_error;
struct utrace_event_format;

/* A kernel event's format (recorder_khist.c), kept from the start: the
 * triggers are compiled once every format is known (a $var may name an
 * event that comes later).  Synthetic events fired by kernel events get
 * one too, with a kernel id of their own (after the kernel's). */
struct rec_kfmt {
	int id;
	int synth; /* the synthetic event's index, -1 for the kernel's,
		    * REC_KFMT_EPROBE for an event probe's (recorder_keprobe.c) */
	struct utrace_event_format *fmt;
	struct rec_kfmt *next;
};

#define REC_KIDS 65536u /* kernel ids are u16 (common_type) */
#define REC_KFMT_EPROBE (-2)

/* recorder_keprobe.c: the event probes (in-process probes of lib/probes/
 * eprobe.h) on sys:name, if the merge runs that event (a kernel event
 * shown, a synthetic event with a kernel id), bound to it: 0 or <0 with
 * err.  Kernel record rec of kid, just run by the merge: its capture
 * taken, the probes bound to kid fired, each record given to emit.  Freed
 * with the recorder. */
struct rec_keps;
int rec_kep_bind_all(struct utrace_recorder *r, const char *sys, const char *name,
		     struct utrace_error *err);
void rec_kep_run(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len,
		 void (*emit)(struct utrace_recorder *r, int kid, const uint8_t *rec, uint32_t len));
void rec_kep_free(struct utrace_recorder *r);
/* Whether the event of tracefs id uid is an event probe bound here. */
bool rec_kep_bound(const struct utrace_recorder *r, int uid);

/* recorder_kfmt.c: synthetic event n's format under kernel id id, written
 * to the file and added to the kernel formats; 0 or <0 with err */
int rec_ksynth_format(struct utrace_recorder *r, unsigned n, int id, struct utrace_error *err);
int rec_kprint_format(struct utrace_recorder *r, int id, struct utrace_error *err);

/* recorder_kfmt.c: the kernel's formats and page header, kept from the
 * start: its state made with the recorder (-ENOMEM), freed with it; a
 * format added (fmt is then its, even on failure); the one of sys:name,
 * NULL if none; the first (then ->next) */
int rec_kfmt_new(struct utrace_recorder *r);
int rec_kfmt_add(struct utrace_recorder *r, int id, int synth, struct utrace_event_format *fmt,
		 struct utrace_error *err);
const struct rec_kfmt *rec_kfmt_find(const struct utrace_recorder *r, const char *sys,
				     const char *name);
const struct rec_kfmt *rec_kfmt_first(const struct utrace_recorder *r);
/* The kernel event sys:name as the live tracefs shows it (a kernel -e's
 * format in a live recording whose merge runs: recorder_livekev.c), or
 * NULL. */
const struct rec_kfmt *rec_kfmt_shown(const struct utrace_recorder *r, const char *sys,
				      const char *name);
bool rec_kfmt_is_shown(const struct utrace_recorder *r, const struct rec_kfmt *k);
/* The kernel's trace clock (x86-tsc or not) and sub-buffer size, from
 * its header page (recorder_kernel.c); read by the merge. */
void rec_kheader_set(struct utrace_recorder *r, bool tsc, uint32_t subbuf);
bool rec_ktsc(const struct utrace_recorder *r);
uint32_t rec_ksubbuf(const struct utrace_recorder *r);

/* recorder_khist.c: the kernel formats kept, the triggers compiled when
 * the last has come (rec_kready), the synthetic events they fire. */
int rec_hist_kformat(struct utrace_recorder *r, const char *system, const char *name, int id,
		     const char *text, struct utrace_error *err);
int rec_kready(struct utrace_recorder *r, struct utrace_error *err);
void rec_kfmt_free(struct utrace_recorder *r);

/* recorder_kmerge.c: the kernel pages queued per CPU, run in time order
 * across CPUs up to what every CPU has surely handed over (a round: one
 * read of every CPU), saved as pages again; at the end all of it. */
int rec_kmerge_new(struct utrace_recorder *r, struct utrace_error *err);
int rec_kmerge_page(struct utrace_recorder *r, uint32_t cpu, const void *page, size_t len,
		    struct utrace_error *err);
int rec_kmerge_round(struct utrace_recorder *r, bool final, struct utrace_error *err);
/* A read of the live tracefs begins: until rec_kmerge_read_end, a round
 * runs every record stamped before it began that every CPU handed over. */
void rec_kmerge_read_begin(struct utrace_recorder *r);
void rec_kmerge_read_end(struct utrace_recorder *r);
/* A trace_marker write of thread pid to reader's (a live recording, ftrace:
 * print given a kernel id, rec_kprint_format): its print record
 * (recorder_kernel.c) put on the kernel's timeline at the trace clock's
 * now and run at once with every record queued before it, only reader's
 * triggers on it (recorder_kmarker.c; recorder_kmerge.c puts it, on CPU
 * cpu); the longest record a page takes. */
int rec_kmerge_marker(struct utrace_recorder *r, unsigned reader, int32_t pid, const char *text,
		      size_t len, struct utrace_error *err);
int rec_kmerge_put_marker(struct utrace_recorder *r, unsigned reader, uint32_t cpu,
			  const uint8_t *rec, uint32_t len, struct utrace_error *err);
uint32_t rec_kmerge_marker_max(const struct utrace_recorder *r);
/* recorder_kfmt.c: ftrace:print's kernel id in the merge, -1 if marker
 * writes are not its */
int rec_kmerge_print_id(const struct utrace_recorder *r);
void rec_kmerge_free(struct utrace_recorder *r);

#endif
