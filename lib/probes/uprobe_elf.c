/* SPDX-License-Identifier: MIT */
/*
 * uprobe_elf.c - from symbols and virtual addresses to the FILE offsets
 * that uprobe_events takes.
 *
 * Design: the kernel places a uprobe on an (inode, file offset) pair, so
 * a symbol's ELF virtual address has to be mapped back through the
 * PT_LOAD segment that holds it: offset = vaddr - p_vaddr + p_offset.
 * For a non-PIE executable that is not the address, for a PIE or a
 * shared library it is not the address either once the data segment is
 * placed a page further than its file offset (usual with -z separate-code):
 * only the program headers say.  Symbols are looked up by name in .symtab,
 * else .dynsym (a stripped file), else in the separate debug file of its
 * build id (a stripped library's local functions, as bcc finds them for
 * bpftrace), undefined ones skipped; a name defined
 * at several addresses (two static functions called alike) is reported as
 * ambiguous rather than guessed.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/probes/uprobe_internal.h"

int upr_file_open(const char *path, struct upr_file *f, const char **why)
{
	const Elf64_Ehdr *eh;
	Elf64_Ehdr ehdr;
	int ret;

	memset(f, 0, sizeof(*f));
	if (why)
		*why = NULL;
	ret = utrace_elf_open_why(path, &f->elf, why);
	if (ret < 0)
		return ret;
	eh = utrace_elf_data(f->elf, 0, sizeof(ehdr));
	if (!eh)
		goto bad;
	memcpy(&ehdr, eh, sizeof(ehdr));
	f->type = ehdr.e_type;
	if ((ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) ||
	    ehdr.e_phentsize != sizeof(Elf64_Phdr)) {
		if (why)
			*why = "not an executable or a shared library";
		goto out;
	}
	for (unsigned i = 0; i < ehdr.e_phnum; i++) {
		const void *raw = utrace_elf_data(
		    f->elf, ehdr.e_phoff + (uint64_t)i * sizeof(Elf64_Phdr), sizeof(Elf64_Phdr));
		Elf64_Phdr ph;

		if (!raw)
			goto bad;
		memcpy(&ph, raw, sizeof(ph));
		if (ph.p_type != PT_LOAD || f->nload == UPR_MAX_LOAD)
			continue;
		f->load[f->nload].vaddr = ph.p_vaddr;
		f->load[f->nload].offset = ph.p_offset;
		f->load[f->nload].filesz = ph.p_filesz;
		f->load[f->nload].flags = ph.p_flags;
		f->nload++;
	}
	if (f->nload)
		return 0;
	if (why)
		*why = "no loadable segment";
	goto out;
bad:
	if (why)
		*why = "program header table beyond end of file";
out:
	utrace_elf_close(f->elf);
	f->elf = NULL;
	return -ENOEXEC;
}

void upr_file_close(struct upr_file *f)
{
	if (f && f->elf)
		utrace_elf_close(f->elf);
	if (f)
		f->elf = NULL;
}

int upr_vaddr_to_offset(const struct upr_file *f, uint64_t vaddr, uint64_t *offset)
{
	for (unsigned i = 0; i < f->nload; i++) {
		if (vaddr >= f->load[i].vaddr && vaddr - f->load[i].vaddr < f->load[i].filesz) {
			*offset = vaddr - f->load[i].vaddr + f->load[i].offset;
			return 0;
		}
	}
	return -ENOENT;
}

int upr_offset_to_vaddr(const struct upr_file *f, uint64_t offset, uint64_t *vaddr)
{
	int found = -ENOENT;

	/* Segments can share a page of the file: prefer the executable one. */
	for (unsigned i = 0; i < f->nload; i++) {
		if (offset < f->load[i].offset || offset - f->load[i].offset >= f->load[i].filesz)
			continue;
		*vaddr = offset - f->load[i].offset + f->load[i].vaddr;
		found = 0;
		if (f->load[i].flags & PF_X)
			break;
	}
	return found;
}

/* Symbols named name in one symbol table; returns distinct addresses. */
static int find_in(const struct utrace_elf *elf, const struct utrace_elf_section *sec,
		   const char *name, bool func_only, uint64_t *vaddr, uint64_t *size)
{
	size_t n = utrace_elf_sym_count(elf, sec);
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		struct utrace_elf_sym s;

		if (utrace_elf_sym(elf, sec, i, &s) < 0 || s.shndx == SHN_UNDEF ||
		    strcmp(s.name, name))
			continue;
		if (s.type == STT_SECTION || s.type == STT_FILE || s.type == STT_TLS)
			continue;
		if (func_only && s.type != STT_FUNC && s.type != STT_GNU_IFUNC)
			continue;
		if (found && s.value == *vaddr)
			continue;
		if (!found) {
			*vaddr = s.value;
			*size = s.size;
		}
		found++;
	}
	return found;
}

/* name in elf's .symtab, else its .dynsym. */
static int find_tables(const struct utrace_elf *elf, const char *name, bool func_only,
		       uint64_t *vaddr, uint64_t *size)
{
	static const char *const tables[] = {".symtab", ".dynsym"};
	int found = 0;

	for (unsigned t = 0; t < 2 && !found; t++) {
		struct utrace_elf_section sec;

		if (utrace_elf_find_section(elf, tables[t], &sec) == 0)
			found = find_in(elf, &sec, name, func_only, vaddr, size);
	}
	return found;
}

int upr_find_symbol(const struct upr_file *f, const char *name, bool func_only, uint64_t *vaddr,
		    uint64_t *size)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_elf *dbg;
	int found = find_tables(f->elf, name, func_only, vaddr, size);

	/* A stripped library's local function or versioned name (fopen@@
	 * GLIBC_2.2.5): its separate debug file's, at the same addresses. */
	if (!found && func_only && utrace_elf_open_debug(f->elf, &dbg) == 0) {
		found = find_tables(dbg, name, func_only, vaddr, size);
		utrace_elf_close(dbg);
	}
	if (found || !func_only)
		return found;
	/* A C++ function by its demangled name. */
	if (utrace_symtab_load_elf(f->elf, &tab, NULL) < 0)
		return 0;
	for (size_t i = 0; i < utrace_symtab_count(tab); i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);

		if (strcmp(s->name, name))
			continue;
		if (!found) {
			*vaddr = s->vaddr;
			*size = s->size;
		}
		found++;
	}
	utrace_symtab_free(tab);
	return found;
}

int upr_is_function_start(const struct upr_file *f, uint64_t vaddr)
{
	struct utrace_symtab *tab = NULL;
	const struct utrace_sym *s;
	uint64_t off = 1;
	int ret;

	if (utrace_symtab_load_elf(f->elf, &tab, NULL) < 0)
		return -ENOENT;
	s = utrace_symtab_lookup(tab, vaddr, &off);
	ret = utrace_symtab_count(tab) ? (s && off == 0) : -ENOENT;
	utrace_symtab_free(tab);
	return ret;
}

int upr_function_at(const struct upr_file *f, uint64_t vaddr, char **name, uint64_t *func,
		    uint64_t *size)
{
	struct utrace_symtab *tab = NULL;
	const struct utrace_sym *s;
	uint64_t off = 0;
	int ret = 0;

	if (utrace_symtab_load_elf(f->elf, &tab, NULL) < 0)
		return 0;
	s = utrace_symtab_lookup(tab, vaddr, &off);
	/* a symbol of unknown size covers up to the next: not a function's
	 * extent to decode */
	if (s && s->size && off < s->size) {
		*func = s->vaddr;
		*size = s->size;
		ret = name && !(*name = strdup(s->raw ? s->raw : s->name)) ? -ENOMEM : 1;
	}
	utrace_symtab_free(tab);
	return ret;
}
