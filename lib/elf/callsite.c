/* SPDX-License-Identifier: MIT */
/*
 * callsite.c - find the instrumented call sites of a linked ELF file.
 *
 * The compiler records the address of each function's patchable entry in
 * a section: __patchable_function_entries (-fpatchable-function-entry=N)
 * or __mcount_loc (gcc -pg -mrecord-mcount).  Each slot is an 8-byte
 * absolute address, so in a position-independent file the linker also
 * emits a relative relocation per slot:
 *
 *  - ET_EXEC: the file contents are the final addresses.
 *  - ET_DYN with RELA relocations: the value is the relocation's addend.
 *    GNU ld also writes it into the file, lld leaves zeros, so the addend
 *    wins whenever a relocation covers the slot.
 *  - ET_DYN with RELR (-z pack-relative-relocs): the addend is implicit,
 *    i.e. the file contents, as for ET_EXEC.
 *
 * Slots are returned in section order: the runtime reads the same section
 * from relocated memory and numbers sites by slot index.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/elf/callsite.h"

/* Relocation types that store "base + addend" or "S + addend" into a
 * 64-bit slot, for the machines we know. */
static int reloc_kind(int machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		if (type == R_X86_64_RELATIVE)
			return 1;
		if (type == R_X86_64_64)
			return 2;
		break;
	case EM_AARCH64:
		if (type == R_AARCH64_RELATIVE)
			return 1;
		if (type == R_AARCH64_ABS64)
			return 2;
		break;
	}
	return 0;
}

/* Value of symbol symi of the dynamic symbol table linked from a
 * relocation section, or -ENOENT if it is undefined or unreadable. */
static int reloc_symbol(const struct utrace_elf *elf, const struct utrace_elf_section *rela,
			uint32_t symi, uint64_t *value)
{
	struct utrace_elf_section symtab;
	struct utrace_elf_sym sym;

	if (symi == 0) {
		*value = 0;
		return 0;
	}
	if (utrace_elf_section(elf, rela->link, &symtab, NULL) < 0 ||
	    (symtab.type != SHT_DYNSYM && symtab.type != SHT_SYMTAB) ||
	    utrace_elf_sym(elf, &symtab, symi, &sym) < 0 || sym.shndx == SHN_UNDEF)
		return -ENOENT;
	*value = sym.value;
	return 0;
}

/* Overrides the slots of sec covered by a dynamic relocation with the
 * value the dynamic linker will store there. */
static void apply_relocations(const struct utrace_elf *elf, const struct utrace_elf_section *sec,
			      uint64_t *vaddrs, size_t n)
{
	int machine = utrace_elf_machine(elf);
	struct utrace_elf_section rela;
	struct utrace_elf_rela r;

	for (size_t s = 1; s < utrace_elf_section_count(elf); s++) {
		if (utrace_elf_section(elf, s, &rela, NULL) < 0 || rela.type != SHT_RELA ||
		    !(rela.flags & SHF_ALLOC))
			continue;
		size_t nr = utrace_elf_rela_count(elf, &rela);
		for (size_t i = 0; i < nr; i++) {
			uint64_t slot, symval;
			int kind;

			if (utrace_elf_rela(elf, &rela, i, &r) < 0)
				break;
			if (r.offset < sec->vaddr || r.offset - sec->vaddr >= sec->size)
				continue;
			slot = r.offset - sec->vaddr;
			if (slot % 8 || slot / 8 >= n)
				continue;
			kind = reloc_kind(machine, r.type);
			if (kind == 1)
				vaddrs[slot / 8] = (uint64_t)r.addend;
			else if (kind == 2 && reloc_symbol(elf, &rela, r.sym, &symval) == 0)
				vaddrs[slot / 8] = symval + (uint64_t)r.addend;
		}
	}
}

/* The section's sites v[0..count), then those only the symbols show
 * (utrace_elf_extra_sites): the runtime numbers them the same way. */
static int add_symbol_sites(const struct utrace_elf *elf, uint64_t *v, size_t count,
			    uint64_t **vaddrs, size_t *n, unsigned *kind, size_t *from_symbols,
			    struct utrace_error *err)
{
	uint64_t *extra, *all;
	size_t nextra;

	if (utrace_elf_extra_sites(elf, v, count, &extra, &nextra) < 0) {
		free(v);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_elf_path(elf));
	}
	if (nextra) {
		all = realloc(v, (count + nextra) * sizeof(*all));
		if (!all) {
			free(v);
			free(extra);
			return utrace_error_set(err, -ENOMEM, "%s: out of memory",
						utrace_elf_path(elf));
		}
		memcpy(all + count, extra, nextra * sizeof(*all));
		v = all;
		*kind |= UTRACE_OBJ_SYMTAB_SITES;
	}
	free(extra);
	*vaddrs = v;
	*n = count + nextra;
	if (from_symbols)
		*from_symbols = nextra;
	return 0;
}

int utrace_elf_call_sites(const struct utrace_elf *elf, uint64_t **vaddrs, size_t *n,
			  unsigned *kind, size_t *from_symbols, struct utrace_error *err)
{
	const char *path = utrace_elf_path(elf);
	struct utrace_elf_section sec;
	const char *secname;
	const unsigned char *data;
	uint64_t *v;
	size_t count;
	int type = utrace_elf_type(elf);

	*vaddrs = NULL;
	*n = 0;
	*kind = 0;
	if (from_symbols)
		*from_symbols = 0;
	if (type != ET_EXEC && type != ET_DYN)
		return utrace_error_set(
		    err, -ENOEXEC, "%s: not a linked executable or shared library (ELF type %d)",
		    path, type);
	secname = UTRACE_SECTION_PATCHABLE;
	if (utrace_elf_find_section(elf, secname, &sec) < 0) {
		secname = UTRACE_SECTION_MCOUNT;
		if (utrace_elf_find_section(elf, secname, &sec) < 0)
			return 0;
		*kind = UTRACE_OBJ_MCOUNT;
	}
	if (sec.size % 8)
		return utrace_error_set(err, -ENOEXEC,
					"%s: section %s: size %llu is not a multiple of 8", path,
					secname, (unsigned long long)sec.size);
	if (sec.type == SHT_NOBITS)
		return utrace_error_set(err, -ENOEXEC, "%s: section %s has no contents (NOBITS)",
					path, secname);
	data = utrace_elf_section_data(elf, &sec);
	if (!data)
		return utrace_error_set(err, -ENOEXEC,
					"%s: section %s: contents (offset %llu, size %llu) are "
					"outside the file",
					path, secname, (unsigned long long)sec.offset,
					(unsigned long long)sec.size);
	count = (size_t)(sec.size / 8);
	if (count == 0)
		return 0;
	v = malloc(count * sizeof(*v));
	if (!v)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory for %zu call sites", path,
					count);
	for (size_t i = 0; i < count; i++)
		memcpy(&v[i], data + i * 8, 8);
	apply_relocations(elf, &sec, v, count);
	return add_symbol_sites(elf, v, count, vaddrs, n, kind, from_symbols, err);
}
