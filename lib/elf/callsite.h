/* SPDX-License-Identifier: MIT */
/*
 * callsite.h - the instrumented call sites recorded in a linked ELF file.
 */
#ifndef UTRACE_LIB_CALLSITE_H
#define UTRACE_LIB_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/elf/elf.h"
#include "lib/base/error.h"

#define UTRACE_SECTION_PATCHABLE "__patchable_function_entries"
#define UTRACE_SECTION_MCOUNT "__mcount_loc"

/*
 * Reads the call sites of a linked executable or shared library (ET_EXEC
 * or ET_DYN): one ELF virtual address per 8-byte slot of the first section
 * named __patchable_function_entries or, if there is none, of the first
 * named __mcount_loc.  The runtime must pick the section by the same rule.
 *
 * Order: exactly the slot order of that section, one entry per slot,
 * nothing dropped, sorted or merged, so index i here is slot i of the
 * relocated section in memory (the extra sites follow, see below).  A slot whose value is 0 (a
 * function the linker discarded) is returned as 0; callers must not patch it.
 *
 * Then, after the section's, the sites the section does not list but the
 * code shows: defined functions that start with the instrumented NOP
 * (utrace_elf_extra_sites; gcc 12 loses a whole object's records when the
 * linker discards one of its COMDAT functions), sorted by address; *kind
 * then has UTRACE_OBJ_SYMTAB_SITES and *from_symbols (if not NULL) says
 * how many.
 *
 * *kind is 0 for __patchable_function_entries, UTRACE_OBJ_MCOUNT for
 * __mcount_loc.  A file with neither section has no sites: returns 0 with
 * *n = 0 and *vaddrs = NULL.  *vaddrs is malloc'ed; the caller frees it.
 */
int utrace_elf_call_sites(const struct utrace_elf *elf, uint64_t **vaddrs, size_t *n,
			  unsigned *kind, size_t *from_symbols, struct utrace_error *err);

#endif
