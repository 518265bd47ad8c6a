/* SPDX-License-Identifier: MIT */
/*
 * recorder_symtab.h - the recorder's a SYMTAB record written: functions,
 * library calls (recorder_symtab.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_SYMTAB_H
#define UTRACE_LIB_RECORDER_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct utrace_recorder;
struct utrace_error;

struct utrace_dwarf;
struct rec_symtab { /* cache: one load per path */
	char *path;
	struct utrace_symtab *tab; /* NULL if the file could not be read */
	struct utrace_dwarf *dwarf; /* funcgraph-args; NULL: none or not tried */
	bool dwarf_tried;
	struct utrace_symtab *imports; /* --libcall: the file's PLT imports */
	bool imports_tried;
	struct rec_symtab *next;
};

/* recorder_symtab.c: the symbol tables of path, loaded once (NULL: out
 * of memory); the cache freed with the recorder */
struct rec_symtab *rec_symtab_get(struct utrace_recorder *r, const char *path);
void rec_symtab_free_all(struct utrace_recorder *r);

/* recorder_symtab.c: the function symbol of process c holding addr (the
 * nearest at or below it within its size, of any of c's objects), its
 * offset in it and its object; NULL if none.  A library's name as the
 * kernel names a module (its file's base name), NULL for the program. */
struct rec_conn;
struct rec_object;
struct utrace_sym;
const struct utrace_sym *rec_sym_at(struct utrace_recorder *r, struct rec_conn *c, uint64_t addr,
				    uint64_t *off, const struct rec_object **obj);
const char *rec_object_module(const struct rec_object *o);

/* recorder_symtab.c: writes a SYMTAB record of n entries (h's counts set
 * here) and frees ents and strs. */
struct utrace_dat_symtab;
struct utrace_dat_sym;
int rec_symtab_write(struct utrace_recorder *r, struct utrace_dat_symtab *h,
		     struct utrace_dat_sym *ents, size_t n, char *strs, size_t strsz,
		     struct utrace_error *err);

#endif
