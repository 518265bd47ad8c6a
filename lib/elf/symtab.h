/* SPDX-License-Identifier: MIT */
/*
 * symtab.h - the function symbols of one ELF file, sorted by address.
 */
#ifndef UTRACE_LIB_SYMTAB_H
#define UTRACE_LIB_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/elf/elf.h"
#include "lib/base/error.h"

struct utrace_symtab;

struct utrace_sym {
	uint64_t vaddr;	  /* ELF virtual address */
	uint64_t size;	  /* 0 if unknown: then it covers up to the next symbol */
	const char *name; /* demangled, or raw for C */
	const char *raw;  /* as in the symbol table (mangled) */
	char type;	  /* nm's (and /proc/kallsyms') letter: 'T' global,
			   * 'W' weak, 't' local (an alias: its preferred one's) */
};

/*
 * Reads the STT_FUNC and STT_GNU_IFUNC symbols of .symtab, or of .dynsym
 * when the file is stripped; then also the functions .eh_frame knows that
 * .dynsym does not name, as sub_ADDR (hex ELF vaddr).  Undefined symbols are dropped; aliases (same
 * address) collapse into one, preferring GLOBAL over WEAK over LOCAL, then
 * the shorter name.  The table copies its strings: it does not need the
 * file or the struct utrace_elf afterwards.
 */
int utrace_symtab_load(const char *path, struct utrace_symtab **out, struct utrace_error *err);
int utrace_symtab_load_elf(const struct utrace_elf *elf, struct utrace_symtab **out,
			   struct utrace_error *err);
/* The imports an object calls through its PLT (utrace_elf_imports) as
 * symbols: each an 8-byte "function" at its GOT slot's vaddr, demangled
 * as the others (what --libcall records name). */
int utrace_symtab_load_imports(const char *path, struct utrace_symtab **out,
			       struct utrace_error *err);
void utrace_symtab_free(struct utrace_symtab *tab);
/* symfind.c: the defined symbol name of any type (a function, a data
 * object) in path's .symtab, else .dynsym: its ELF vaddr and size; 0, or
 * -ENOENT (or the open's error). */
int utrace_symtab_find(const char *path, const char *name, uint64_t *vaddr, uint64_t *size);

size_t utrace_symtab_count(const struct utrace_symtab *tab);
/* Symbol i in address order, NULL if i is out of range. */
const struct utrace_sym *utrace_symtab_get(const struct utrace_symtab *tab, size_t i);
/* The function containing vaddr, and vaddr's offset in it (if offset);
 * NULL if none does. */
const struct utrace_sym *utrace_symtab_lookup(const struct utrace_symtab *tab, uint64_t vaddr,
					      uint64_t *offset);

#endif
