/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h - the kernel symbols a recording's samples need (ksyms.c): the
 * kernel addresses of the samples (ip, call chain) are collected as the
 * sampler drains its buffers; when recording ends they are named from
 * /proc/kallsyms, which only the recording machine has, and the symbols
 * that contain them are saved (docs/utrace-dat.md, PERF_KSYMS):
 *
 *   u64 start, the name NUL-terminated, for each symbol, by address
 *
 * so that a report anywhere later shows them as perf shows
 * [kernel.kallsyms] frames.  May use: lib/base.
 */
#ifndef UTRACE_LIB_SAMPLE_KSYMS_H
#define UTRACE_LIB_SAMPLE_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

struct utrace_ksyms;

struct utrace_ksyms *utrace_ksyms_new(void);
void utrace_ksyms_free(struct utrace_ksyms *k);

/* The kernel addresses of the PERF_RECORD_SAMPLEs of len bytes of
 * records laid out by sample_type (IP, TID, TIME, CPU, PERIOD, CALLCHAIN
 * in the kernel's order, what the sampler asks for); -ENOMEM. */
int utrace_ksyms_add(struct utrace_ksyms *k, uint64_t sample_type, const void *records, size_t len);

/* The symbols of the addresses collected, from kallsyms (a path, for
 * tests; NULL: /proc/kallsyms), in the layout above: a malloc'd *out of
 * *len bytes, 0 if none was found (kallsyms hides its addresses from
 * this user: all zero).  -errno with err filled. */
int utrace_ksyms_resolve(struct utrace_ksyms *k, const char *kallsyms, void **out, size_t *len,
			 struct utrace_error *err);

/* kallsyms' text symbols (a path, for tests; NULL: /proc/kallsyms),
 * sorted by address, for naming kernel addresses live (utrace top): 1
 * with *out set, 0 if kallsyms hides its addresses, -errno. */
struct utrace_kallsyms;
int utrace_kallsyms_load(const char *path, struct utrace_kallsyms **out, struct utrace_error *err);
/* The symbol at or below addr and its start; NULL if none. */
const char *utrace_kallsyms_find(const struct utrace_kallsyms *k, uint64_t addr, uint64_t *start);
void utrace_kallsyms_free(struct utrace_kallsyms *k);

/* Whether this user may sample the kernel and name its addresses, as
 * perf decides it: root, or kernel.perf_event_paranoid <= 1, and
 * /proc/kallsyms shows the addresses. */
int utrace_ksyms_allowed(void);

#endif
