/* SPDX-License-Identifier: MIT */
/*
 * recorder_libcall.h - the recorder's the names of library calls, --libcall
 * (recorder_libcall.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_LIBCALL_H
#define UTRACE_LIB_RECORDER_LIBCALL_H

#include <stdbool.h>
#include <stdint.h>

struct utrace_recorder;
struct rec_conn;
struct rec_symtab;
struct utrace_error;

/* recorder_libcall.c: library calls (UTRACE_OBJ_LIBCALL objects) */
bool rec_libcall_refused(const char *name);
const char *rec_libcall_name(struct rec_symtab *s, uint64_t va, const char **raw);
/* s's imports read now, not at the first name asked (a file that opens
 * only while its process lives). */
void rec_libcall_read_imports(struct rec_symtab *s);
int rec_libcall_symtab(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx,
		       struct rec_symtab *s, struct utrace_error *err);

#endif
