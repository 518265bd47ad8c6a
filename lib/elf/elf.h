/* SPDX-License-Identifier: MIT */
/*
 * lib/elf - reading linked ELF files: sections and notes (this
 * file, shared with the runtime), function symbols (symtab.h), the
 * instrumented call sites (callsite.h).  May use: lib/base.
 *
 * elf.h - a minimal, bounds-checked ELF64 reader.
 *
 * Shared by the tool and by libutrace.so (which runs inside the traced
 * process), so it reports failure as a negative errno only, never through
 * struct utrace_error, and never prints.
 */
#ifndef UTRACE_LIB_ELF_H
#define UTRACE_LIB_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

struct utrace_elf;

struct utrace_elf_section {
	uint64_t vaddr, size, offset;
	uint32_t type, flags; /* SHT_*, low 32 bits of SHF_* */
	uint64_t entsize;
	uint32_t link, info; /* sh_link, sh_info */
	uint32_t index;	     /* section header index */
};

struct utrace_elf_sym {
	const char *name; /* "" if the name is out of bounds */
	uint64_t value, size;
	uint16_t shndx;
	uint8_t type, bind; /* STT_*, STB_* */
};

struct utrace_elf_rela {
	uint64_t offset; /* r_offset: the vaddr that is relocated */
	uint32_t type;	 /* ELF64_R_TYPE */
	uint32_t sym;	 /* ELF64_R_SYM */
	int64_t addend;
};

/*
 * Maps path read-only and checks the ELF64 header and the section header
 * table.  Returns 0, or -errno from open/fstat/mmap, -ENOEXEC if it is not
 * a well-formed ELF64 file, -ENOMEM.
 */
int utrace_elf_open(const char *path, struct utrace_elf **out);
/* Same; on -ENOEXEC also sets *why to a static string (e.g. "section
 * header table beyond end of file"). */
int utrace_elf_open_why(const char *path, struct utrace_elf **out, const char **why);
/* Same; on failure err says "PATH: why" (the -errno's text when no why).
 * The tool's only (lib/elf/elf_err.c): the runtime links elf.c alone. */
int utrace_elf_open_err(const char *path, struct utrace_elf **out, struct utrace_error *err);
void utrace_elf_close(struct utrace_elf *elf);

/* The path given to open, for messages. */
const char *utrace_elf_path(const struct utrace_elf *elf);
int utrace_elf_type(const struct utrace_elf *elf);    /* ET_EXEC, ET_DYN, ... */
int utrace_elf_machine(const struct utrace_elf *elf); /* EM_X86_64, ... */
uint64_t utrace_elf_size(const struct utrace_elf *elf);

/* Bounds-checked pointer into the file; NULL if [offset, offset+size)
 * is not inside it.  Not aligned: copy multi-byte fields with memcpy. */
const void *utrace_elf_data(const struct utrace_elf *elf, uint64_t offset, uint64_t size);

size_t utrace_elf_section_count(const struct utrace_elf *elf);
/* Section number idx; 0 or -ENOENT.  *name (if name) is "" when unnamed. */
int utrace_elf_section(const struct utrace_elf *elf, size_t idx, struct utrace_elf_section *out,
		       const char **name);
/* First section called name; 0 or -ENOENT. */
int utrace_elf_find_section(const struct utrace_elf *elf, const char *name,
			    struct utrace_elf_section *out);
/* The GNU build id (.note.gnu.build-id's descriptor) into out: its
 * length (at most room), or -ENOENT if the object has none. */
int utrace_elf_build_id(const struct utrace_elf *elf, uint8_t *out, size_t room);
/* debugfile.c (not in the runtime): the separate debug file of elf by
 * its build id (/usr/lib/debug/.build-id/NN/REST.debug, bcc's and gdb's
 * place), which holds the full .symtab of a stripped object at its
 * addresses.  Its path into buf: 0, or -ENOENT if elf has no build id or
 * no such file exists (or elf is that file).  utrace_elf_open_debug opens
 * it: 0 and *out, -ENOENT, or the open's error. */
int utrace_elf_debug_path(const struct utrace_elf *elf, char *buf, size_t size);
int utrace_elf_open_debug(const struct utrace_elf *elf, struct utrace_elf **out);
/* A section's file contents, or NULL (SHT_NOBITS, or out of bounds). */
const void *utrace_elf_section_data(const struct utrace_elf *elf,
				    const struct utrace_elf_section *sec);

/* Number of entries of a SHT_SYMTAB/SHT_DYNSYM section, 0 if corrupt. */
size_t utrace_elf_sym_count(const struct utrace_elf *elf, const struct utrace_elf_section *symtab);
/* Entry i of a symbol table section; 0, or -ENOENT if out of range. */
int utrace_elf_sym(const struct utrace_elf *elf, const struct utrace_elf_section *symtab, size_t i,
		   struct utrace_elf_sym *out);

/*
 * Calls fn(arg, vaddr) for every defined function symbol (of .symtab, or
 * .dynsym when stripped) whose code starts with an instrumented entry: the
 * 5-byte NOP or five 1-byte NOPs, after an endbr64 if there is one (vaddr
 * is then that of the NOP).  These are call sites whether or not a
 * section lists them: gcc 12 lets the linker drop the
 * __patchable_function_entries records of a whole object when one of its
 * COMDAT functions is discarded.  Aliases are reported once per symbol;
 * the caller removes duplicates.  Returns how many calls were made.
 */
int utrace_elf_nop_entries(const struct utrace_elf *elf, void (*fn)(void *arg, uint64_t vaddr),
			   void *arg);

/*
 * The call sites utrace_elf_nop_entries finds that are not among
 * known[0..nknown) (the section's, as ELF virtual addresses): sorted by
 * address, without duplicates, malloc'ed into *extra (NULL when none).
 * The runtime and the tool both number an object's sites as the
 * section's in its order, then these: so they agree.  0 or -ENOMEM.
 */
int utrace_elf_extra_sites(const struct utrace_elf *elf, const uint64_t *known, size_t nknown,
			   uint64_t **extra, size_t *nextra);

/* Number of entries of a SHT_RELA section, 0 if corrupt. */
size_t utrace_elf_rela_count(const struct utrace_elf *elf, const struct utrace_elf_section *rela);
int utrace_elf_rela(const struct utrace_elf *elf, const struct utrace_elf_section *rela, size_t i,
		    struct utrace_elf_rela *out);

/*
 * The imports an object calls through its PLT: one per R_X86_64_JUMP_SLOT
 * relocation of a SHT_RELA section whose symbols are .dynsym, in section
 * then entry order (the runtime and the tool both number them so: import
 * i is id_base + i of the object's UTRACE_OBJ_LIBCALL part).  GLOB_DAT
 * slots are not imports here: they also hold the addresses a program
 * compares (&free == fn), which a hook would change.
 */
struct utrace_elf_import {
	uint64_t slot;	  /* ELF vaddr of the GOT slot */
	uint64_t initial; /* the slot's contents in the file: the PLT's lazy
			   * binding entry (0 when not known) */
	const char *name; /* the symbol, no version */
};
/* Calls fn for each; returns how many, or -ENOMEM if fn said so (< 0). */
int utrace_elf_imports(const struct utrace_elf *elf,
		       int (*fn)(void *arg, const struct utrace_elf_import *imp), void *arg);

#endif
