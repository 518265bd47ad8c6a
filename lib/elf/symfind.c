/* SPDX-License-Identifier: MIT */
/*
 * symfind.c - one symbol of an ELF file by name, of any type (a function,
 * a data object): its address and size, as bpftrace's uaddr() takes them
 * (bcc's symbol walk: .symtab, else .dynsym; the first defined one).
 * symtab.c holds the functions only, sorted by address; this is the walk
 * for the others.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "lib/elf/symtab.h"

static int find_in(const struct utrace_elf *elf, const char *secname, const char *name,
		   uint64_t *vaddr, uint64_t *size)
{
	struct utrace_elf_section sec;
	struct utrace_elf_sym sym;
	size_t count;

	if (utrace_elf_find_section(elf, secname, &sec) < 0)
		return -ENOENT;
	count = utrace_elf_sym_count(elf, &sec);
	for (size_t i = 1; i < count; i++) {
		if (utrace_elf_sym(elf, &sec, i, &sym) < 0)
			break;
		if (sym.shndx == SHN_UNDEF || strcmp(sym.name, name))
			continue;
		*vaddr = sym.value;
		*size = sym.size;
		return 0;
	}
	return -ENOENT;
}

int utrace_symtab_find(const char *path, const char *name, uint64_t *vaddr, uint64_t *size)
{
	struct utrace_elf *elf;
	int ret;

	if ((ret = utrace_elf_open(path, &elf)) < 0)
		return ret;
	ret = find_in(elf, ".symtab", name, vaddr, size);
	if (ret < 0)
		ret = find_in(elf, ".dynsym", name, vaddr, size);
	utrace_elf_close(elf);
	return ret;
}
