/* SPDX-License-Identifier: MIT */
/*
 * dat_kernel.h - the kernel events of a utrace.dat (KHEADER, KPAGE,
 * KTASKS records): indexed by dat_reader.c, decoded by dat_kernel.c with
 * libtraceevent's kbuffer, merged by dat_iter.c.  Internal to the reader.
 */
#ifndef UTRACE_LIB_DAT_KERNEL_H
#define UTRACE_LIB_DAT_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/tracefile/dat_decode.h"

/* dat_reader.c's scan: a KPAGE record at off whose first n bytes (record
 * header included) are in head; <0 only when out of memory. */
int dat_kernel_index(struct utrace_dat *d, const unsigned char *head, size_t n, uint32_t len,
		     uint64_t off);
/* KHEADER and KTASKS records, read whole. */
int dat_kernel_meta(struct utrace_dat *d, uint32_t type, const char *p, uint32_t len, uint64_t off);
/* After the scan: a buffer for each task only kernel events name, and
 * the map from a kernel pid to its buffer; <0 when out of memory.  After
 * a refresh's scan, for what it added (the tasks found since, the map
 * made again if the buffers changed); DAT_READ_ANEW when a fresh open
 * would give another map (a buffer after the kernel tasks'). */
int dat_kernel_finish(struct utrace_dat *d);
void dat_kernel_free(struct utrace_dat *d);
/* The KSYMS record (dat_ksyms.c), read whole, NUL-terminated: kept (*kept
 * set) as the symbols' text; <0 only when out of memory. */
int dat_ksyms_meta(struct utrace_dat *d, char *p, uint32_t len, bool *kept);
void dat_ksyms_free(struct utrace_dat *d);

/* OWN records (dat_own.c), read whole (*bad: why one is skipped); <0
 * only when out of memory.  dat_own_hit: thread tid at TSC count tsc was
 * in a window of utrace's own work, and those are not shown. */
int dat_own_meta(struct utrace_dat *d, const char *p, uint32_t len, const char **bad);
bool dat_own_hit(const struct utrace_dat *d, int32_t tid, uint64_t tsc);
void dat_own_free(struct utrace_dat *d);

/* One cursor per CPU that has pages. */
size_t dat_kernel_cpu_count(const struct utrace_dat *d);
struct dat_kcursor;
struct dat_kcursor *dat_kcursor_new(struct utrace_dat *d, size_t i, struct dat_warnings *warn);
/* ns of the first page (a lower bound of its first event). */
uint64_t dat_kcursor_first_ns(const struct dat_kcursor *c);
/* A cursor not started yet made to start at the first page that may hold
 * an event at or after since_ns (a reading resumed, dat_resume.c); the
 * ns of that page, a lower bound of its first event. */
uint64_t dat_kcursor_seek(struct dat_kcursor *c, uint64_t since_ns);
/* 1 with an event (its data in the cursor's page), 0 at the end, <0. */
int dat_kcursor_next(struct dat_kcursor *c, struct utrace_event *ev, struct utrace_error *err);
void dat_kcursor_free(struct dat_kcursor *c);

#endif
