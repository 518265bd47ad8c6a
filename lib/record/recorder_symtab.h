/* SPDX-License-Identifier: MIT */
/*
 * recorder_symtab.h - the recorder's a SYMTAB record written: functions,
 * library calls (recorder_symtab.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_SYMTAB_H
#define UTRACE_LIB_RECORDER_SYMTAB_H

#include <stddef.h>

struct utrace_recorder;
struct utrace_error;

/* recorder_symtab.c: writes a SYMTAB record of n entries (h's counts set
 * here) and frees ents and strs. */
struct utrace_dat_symtab;
struct utrace_dat_sym;
int rec_symtab_write(struct utrace_recorder *r, struct utrace_dat_symtab *h,
		     struct utrace_dat_sym *ents, size_t n, char *strs, size_t strsz,
		     struct utrace_error *err);

#endif
