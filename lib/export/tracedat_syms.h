/* SPDX-License-Identifier: MIT */
/*
 * tracedat_syms.h - the kallsyms of a trace.dat being converted
 * (tracedat_syms.c): the address each function gets in the records, and
 * the sorted list the header prints.  The first pass adds symbols; once
 * tracedat_syms_close() has sorted them, a function not listed yet means
 * the input changed.  Errors are set in the err given to _new().
 */
#ifndef UTRACE_LIB_TRACEDAT_SYMS_H
#define UTRACE_LIB_TRACEDAT_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/export/tracedat.h"

struct tracedat_syms;

struct tracedat_syms *tracedat_syms_new(struct utrace_dat *d, struct utrace_error *err);
void tracedat_syms_free(struct tracedat_syms *y);
/* Lists name (taken) at addr; movable: moved to a free address if addr
 * has another name.  *out: the address listed. */
int tracedat_syms_add(struct tracedat_syms *y, uint64_t addr, char *name, bool movable,
		      uint64_t *out);
/* Lists name (taken) at an address above any user address. */
int tracedat_syms_add_synthetic(struct tracedat_syms *y, char *name, uint64_t *out);
/* The end marker goes above addr (a kernel frame listed at its symbol). */
void tracedat_syms_reach(struct tracedat_syms *y, uint64_t addr);
/* A function's address in the file; the first pass lists it. */
int tracedat_syms_func(struct tracedat_syms *y, uint32_t image, uint32_t id, uint64_t *out);
/* The first pass lists the symbol holding a function tracer caller. */
int tracedat_syms_caller(struct tracedat_syms *y, uint32_t image, uint64_t ip);
/* The end of the first pass: the list sorted by address; its size. */
size_t tracedat_syms_close(struct tracedat_syms *y);
/* The list, its size and the end marker's address. */
const struct utrace_tracedat_sym *tracedat_syms_list(const struct tracedat_syms *y, size_t *n,
						     uint64_t *end);

#endif
