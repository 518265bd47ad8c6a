/* SPDX-License-Identifier: MIT */
/*
 * recorder_fpatch.h - the recorder's function entries patched in objects
 * without call sites (recorder_fpatch.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_FPATCH_H
#define UTRACE_LIB_RECORDER_FPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct utrace_recorder;
struct rec_conn;

/* recorder_fpatch.c: FPATCH_ASK and FPATCH_AREA of an object without
 * call sites; the plans freed with the recorder */
int rec_fpatch_ask(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n);
int rec_fpatch_area(struct utrace_recorder *r, struct rec_conn *c, const void *buf, size_t n);
void rec_fpatch_free(struct utrace_recorder *r);
/* Its state, made with the recorder (-ENOMEM); the plans made and the
 * asks a plan made already answered; a connection's FPATCH_AREA due,
 * freed with it */
int rec_fpatch_new(struct utrace_recorder *r);
void rec_fpatch_stats(const struct utrace_recorder *r, uint32_t *plans, uint32_t *reused);
void rec_fpatch_conn_free(struct rec_conn *c);
/* The site flags every function of the planned object at path adds:
 * UTRACE_SITE_ENTRY_ONLY where its runtime reads return addresses. */
unsigned rec_fpatch_site_flags(const struct utrace_recorder *r, const char *path);
/* Whether a planned object has entries traced as FUNC records under
 * function_graph (their callers must be named). */
bool rec_fpatch_entry_only_any(const struct utrace_recorder *r);

#endif
