/* SPDX-License-Identifier: MIT */
/*
 * elf.c - a minimal ELF64 reader over a read-only mapping of the file.
 *
 * Design: open() maps the whole file and validates only what every later
 * call relies on: the ELF header and the bounds of the section header
 * table.  Everything else (section contents, names, symbols, relocations)
 * is checked when it is read, so a corrupt file yields -ENOEXEC, NULL or
 * an empty name, never a fault.  Headers are copied out with memcpy since a
 * corrupt file may place them at unaligned offsets.
 *
 * This file is also linked into libutrace.so, inside the traced process:
 * it uses only open/fstat/mmap/munmap/close, malloc/free and string
 * functions, no stdio, no floating point, and reports errors as -errno.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf/elf.h"

struct utrace_elf {
	const unsigned char *map;
	char *path;
	uint64_t size;
	Elf64_Ehdr ehdr;
	uint64_t shoff; /* section header table offset */
	uint64_t shnum; /* number of section headers */
	uint64_t shentsize;
	uint64_t shstrndx; /* section names, or 0 if none */
};

static int in_bounds(uint64_t total, uint64_t off, uint64_t len)
{
	return off <= total && len <= total - off;
}

const void *utrace_elf_data(const struct utrace_elf *elf, uint64_t offset, uint64_t size)
{
	if (!elf || !in_bounds(elf->size, offset, size))
		return NULL;
	return elf->map + offset;
}

/* Copies section header idx; the table's bounds were checked by open. */
static void read_shdr(const struct utrace_elf *elf, uint64_t idx, Elf64_Shdr *sh)
{
	memcpy(sh, elf->map + elf->shoff + idx * elf->shentsize, sizeof(*sh));
}

static int fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -ENOEXEC;
}

/* Checks the header of the mapped file and fills the section table fields. */
static int parse_header(struct utrace_elf *elf, const char **why)
{
	Elf64_Ehdr *eh = &elf->ehdr;
	Elf64_Shdr sh0;

	if (elf->size < sizeof(*eh))
		return fail(why, "file too small for an ELF header");
	memcpy(eh, elf->map, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return fail(why, "not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return fail(why, "not a 64-bit ELF file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(why, "not a little-endian ELF file");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT)
		return fail(why, "unknown ELF version");

	elf->shoff = eh->e_shoff;
	elf->shnum = eh->e_shnum;
	elf->shentsize = eh->e_shentsize;
	elf->shstrndx = eh->e_shstrndx;
	if (elf->shoff == 0) {
		/* No section headers (allowed: everything is then -ENOENT). */
		elf->shnum = 0;
		elf->shstrndx = 0;
		return 0;
	}
	if (elf->shentsize < sizeof(Elf64_Shdr))
		return fail(why, "bad section header size");
	if (!in_bounds(elf->size, elf->shoff, elf->shentsize))
		return fail(why, "section header table beyond end of file");
	read_shdr(elf, 0, &sh0);
	/* Extended numbering: the real counts live in section header 0. */
	if (elf->shnum == 0)
		elf->shnum = sh0.sh_size;
	if (elf->shstrndx == SHN_XINDEX)
		elf->shstrndx = sh0.sh_link;
	if (elf->shnum == 0 || elf->shnum > (elf->size - elf->shoff) / elf->shentsize)
		return fail(why, "section header table beyond end of file");
	if (elf->shstrndx >= elf->shnum)
		elf->shstrndx = 0; /* names unusable; sections still are */
	return 0;
}

int utrace_elf_open_why(const char *path, struct utrace_elf **out, const char **why)
{
	struct utrace_elf *elf;
	struct stat st;
	void *map;
	int fd, ret;

	*out = NULL;
	if (why)
		*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(why, "not a regular file");
	}
	if ((uint64_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return fail(why, "file too small for an ELF header");
	}
	/* Shared, not private: the kernel puts the int3 of every uprobe on
	 * the file into each private mapping that may execute (uprobe_mmap),
	 * and counts a USDT semaphore (ref_ctr_offset) up for it, never down
	 * at the unmap.  A private read of a probed program by the runtime
	 * inside it left its semaphores at 2 for good (bpftrace's: 1) and
	 * showed int3s for the file's bytes.  A shared mapping is the page
	 * cache; a file system that refuses one gets the private map. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = -errno;
	close(fd);
	if (map == MAP_FAILED)
		return ret;
	elf = malloc(sizeof(*elf));
	if (!elf) {
		munmap(map, (size_t)st.st_size);
		return -ENOMEM;
	}
	memset(elf, 0, sizeof(*elf));
	elf->map = map;
	elf->size = (uint64_t)st.st_size;
	elf->path = strdup(path);
	if (!elf->path) {
		utrace_elf_close(elf);
		return -ENOMEM;
	}
	ret = parse_header(elf, why);
	if (ret < 0) {
		utrace_elf_close(elf);
		return ret;
	}
	*out = elf;
	return 0;
}

int utrace_elf_open(const char *path, struct utrace_elf **out)
{
	return utrace_elf_open_why(path, out, NULL);
}

void utrace_elf_close(struct utrace_elf *elf)
{
	if (!elf)
		return;
	munmap((void *)elf->map, (size_t)elf->size);
	free(elf->path);
	free(elf);
}

const char *utrace_elf_path(const struct utrace_elf *elf)
{
	return elf->path;
}

int utrace_elf_type(const struct utrace_elf *elf)
{
	return elf->ehdr.e_type;
}

int utrace_elf_machine(const struct utrace_elf *elf)
{
	return elf->ehdr.e_machine;
}

uint64_t utrace_elf_size(const struct utrace_elf *elf)
{
	return elf->size;
}

size_t utrace_elf_section_count(const struct utrace_elf *elf)
{
	return (size_t)elf->shnum;
}

/* NUL-terminated string at offset off of string table section strndx, or
 * "" if any part of it lies outside the table or the file. */
static const char *strtab_string(const struct utrace_elf *elf, uint64_t strndx, uint64_t off)
{
	const char *base;
	Elf64_Shdr sh;

	if (strndx == 0 || strndx >= elf->shnum)
		return "";
	read_shdr(elf, strndx, &sh);
	if (sh.sh_type == SHT_NOBITS || off >= sh.sh_size)
		return "";
	base = utrace_elf_data(elf, sh.sh_offset, sh.sh_size);
	if (!base || !memchr(base + off, '\0', (size_t)(sh.sh_size - off)))
		return "";
	return base + off;
}

int utrace_elf_section(const struct utrace_elf *elf, size_t idx, struct utrace_elf_section *out,
		       const char **name)
{
	Elf64_Shdr sh;

	if (idx >= elf->shnum)
		return -ENOENT;
	read_shdr(elf, idx, &sh);
	out->vaddr = sh.sh_addr;
	out->size = sh.sh_size;
	out->offset = sh.sh_offset;
	out->type = sh.sh_type;
	out->flags = (uint32_t)sh.sh_flags;
	out->entsize = sh.sh_entsize;
	out->link = sh.sh_link;
	out->info = sh.sh_info;
	out->index = (uint32_t)idx;
	if (name)
		*name = strtab_string(elf, elf->shstrndx, sh.sh_name);
	return 0;
}

int utrace_elf_find_section(const struct utrace_elf *elf, const char *name,
			    struct utrace_elf_section *out)
{
	const char *sname;

	/* Section 0 is the null section; it never has a name. */
	for (size_t i = 1; i < elf->shnum; i++) {
		if (utrace_elf_section(elf, i, out, &sname) == 0 && !strcmp(sname, name))
			return 0;
	}
	return -ENOENT;
}

const void *utrace_elf_section_data(const struct utrace_elf *elf,
				    const struct utrace_elf_section *sec)
{
	if (sec->type == SHT_NOBITS)
		return NULL;
	return utrace_elf_data(elf, sec->offset, sec->size);
}

int utrace_elf_build_id(const struct utrace_elf *elf, uint8_t *out, size_t room)
{
	struct utrace_elf_section sec;
	const uint8_t *n;
	uint32_t namesz, descsz;

	if (utrace_elf_find_section(elf, ".note.gnu.build-id", &sec) < 0 || sec.size < 16 ||
	    !(n = utrace_elf_section_data(elf, &sec)))
		return -ENOENT;
	memcpy(&namesz, n, 4);
	memcpy(&descsz, n + 4, 4);
	if (namesz != 4 || descsz < 2 || descsz > room || 16 + (uint64_t)descsz > sec.size)
		return -ENOENT;
	memcpy(out, n + 16, descsz);
	return (int)descsz;
}

/* Number of whole entries of size entsize in a table section, 0 if the
 * section lies outside the file. */
static size_t table_count(const struct utrace_elf *elf, const struct utrace_elf_section *sec,
			  uint64_t entsize)
{
	if (sec->type == SHT_NOBITS || !in_bounds(elf->size, sec->offset, sec->size))
		return 0;
	return (size_t)(sec->size / entsize);
}

size_t utrace_elf_sym_count(const struct utrace_elf *elf, const struct utrace_elf_section *symtab)
{
	return table_count(elf, symtab, sizeof(Elf64_Sym));
}

int utrace_elf_sym(const struct utrace_elf *elf, const struct utrace_elf_section *symtab, size_t i,
		   struct utrace_elf_sym *out)
{
	Elf64_Sym sym;

	if (i >= utrace_elf_sym_count(elf, symtab))
		return -ENOENT;
	memcpy(&sym, elf->map + symtab->offset + i * sizeof(sym), sizeof(sym));
	out->name = strtab_string(elf, symtab->link, sym.st_name);
	out->value = sym.st_value;
	out->size = sym.st_size;
	out->shndx = sym.st_shndx;
	out->type = ELF64_ST_TYPE(sym.st_info);
	out->bind = ELF64_ST_BIND(sym.st_info);
	return 0;
}

size_t utrace_elf_rela_count(const struct utrace_elf *elf, const struct utrace_elf_section *rela)
{
	return table_count(elf, rela, sizeof(Elf64_Rela));
}

int utrace_elf_rela(const struct utrace_elf *elf, const struct utrace_elf_section *rela, size_t i,
		    struct utrace_elf_rela *out)
{
	Elf64_Rela r;

	if (i >= utrace_elf_rela_count(elf, rela))
		return -ENOENT;
	memcpy(&r, elf->map + rela->offset + i * sizeof(r), sizeof(r));
	out->offset = r.r_offset;
	out->type = (uint32_t)ELF64_R_TYPE(r.r_info);
	out->sym = (uint32_t)ELF64_R_SYM(r.r_info);
	out->addend = r.r_addend;
	return 0;
}

/* ---- call sites seen in the code -------------------------------------- */

/* The bytes a compiler puts at an instrumented function's entry: the
 * 5-byte NOP (clang, gcc -mnop-mcount) or five 1-byte NOPs (gcc's
 * -fpatchable-function-entry), after an endbr64 under -fcf-protection. */
static bool entry_is_site(const uint8_t *p, uint64_t avail, uint64_t *skip)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	static const uint8_t nop1x5[5] = {0x90, 0x90, 0x90, 0x90, 0x90};

	*skip = 0;
	if (avail >= 9 && !memcmp(p, endbr64, 4)) {
		*skip = 4;
		p += 4;
		avail -= 4;
	}
	return avail >= 5 && (!memcmp(p, nop5, 5) || !memcmp(p, nop1x5, 5));
}

/* The file bytes at virtual address vaddr, through the SHF_ALLOC section
 * that holds it; NULL if none does. */
static const uint8_t *code_at(const struct utrace_elf *elf, uint64_t vaddr, uint64_t *avail)
{
	size_t n = utrace_elf_section_count(elf);

	for (size_t i = 0; i < n; i++) {
		struct utrace_elf_section s;

		if (utrace_elf_section(elf, i, &s, NULL) < 0 || !(s.flags & SHF_EXECINSTR) ||
		    s.type == SHT_NOBITS || vaddr < s.vaddr || vaddr - s.vaddr >= s.size)
			continue;
		*avail = s.size - (vaddr - s.vaddr);
		return utrace_elf_data(elf, s.offset + (vaddr - s.vaddr), *avail);
	}
	return NULL;
}

int utrace_elf_nop_entries(const struct utrace_elf *elf, void (*fn)(void *arg, uint64_t vaddr),
			   void *arg)
{
	struct utrace_elf_section tab;
	int count = 0;
	size_t n;

	if (utrace_elf_find_section(elf, ".symtab", &tab) < 0 &&
	    utrace_elf_find_section(elf, ".dynsym", &tab) < 0)
		return 0;
	n = utrace_elf_sym_count(elf, &tab);
	for (size_t i = 0; i < n; i++) {
		struct utrace_elf_sym sym;
		const uint8_t *code;
		uint64_t avail, skip;

		if (utrace_elf_sym(elf, &tab, i, &sym) < 0 || sym.type != STT_FUNC ||
		    sym.shndx == SHN_UNDEF || !sym.value || !sym.size)
			continue;
		code = code_at(elf, sym.value, &avail);
		if (code && entry_is_site(code, avail < sym.size ? avail : sym.size, &skip)) {
			fn(arg, sym.value + skip);
			count++;
		}
	}
	return count;
}

struct extra_acc {
	uint64_t *v;
	size_t n, cap;
	int oom;
};

static void extra_add(void *arg, uint64_t vaddr)
{
	struct extra_acc *a = arg;

	if (a->oom)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->oom = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = vaddr;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int utrace_elf_extra_sites(const struct utrace_elf *elf, const uint64_t *known, size_t nknown,
			   uint64_t **extra, size_t *nextra)
{
	struct extra_acc a = {0};
	uint64_t *sorted = NULL;
	size_t k = 0;

	*extra = NULL;
	*nextra = 0;
	utrace_elf_nop_entries(elf, extra_add, &a);
	if (a.oom || (nknown && !(sorted = malloc(nknown * sizeof(*sorted))))) {
		free(a.v);
		return -ENOMEM;
	}
	if (!a.n) {
		free(sorted);
		return 0;
	}
	if (nknown)
		memcpy(sorted, known, nknown * sizeof(*sorted));
	qsort(sorted, nknown, sizeof(*sorted), cmp_u64);
	qsort(a.v, a.n, sizeof(*a.v), cmp_u64);
	for (size_t i = 0; i < a.n; i++) {
		if ((k && a.v[k - 1] == a.v[i]) ||
		    (nknown && bsearch(&a.v[i], sorted, nknown, sizeof(*sorted), cmp_u64)))
			continue;
		a.v[k++] = a.v[i];
	}
	free(sorted);
	if (!k) {
		free(a.v);
		return 0;
	}
	*extra = a.v;
	*nextra = k;
	return 0;
}

/* ---- imports (PLT/GOT slots) ------------------------------------------ */

/* The 8 file bytes at vaddr, through the SHF_ALLOC section holding them;
 * 0 if none does (.got.plt is PROGBITS: its lazy entries are there). */
static uint64_t word_at(const struct utrace_elf *elf, uint64_t vaddr)
{
	size_t n = utrace_elf_section_count(elf);
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		struct utrace_elf_section s;
		const void *p;

		if (utrace_elf_section(elf, i, &s, NULL) < 0 || !(s.flags & SHF_ALLOC) ||
		    s.type == SHT_NOBITS || vaddr < s.vaddr || s.size < 8 ||
		    vaddr - s.vaddr > s.size - 8)
			continue;
		if ((p = utrace_elf_data(elf, s.offset + (vaddr - s.vaddr), 8)))
			memcpy(&v, p, 8);
		return v;
	}
	return 0;
}

int utrace_elf_imports(const struct utrace_elf *elf,
		       int (*fn)(void *arg, const struct utrace_elf_import *imp), void *arg)
{
	size_t nsec = utrace_elf_section_count(elf);
	int count = 0;

	for (size_t i = 0; i < nsec; i++) {
		struct utrace_elf_section rel, sym;
		size_t n;

		if (utrace_elf_section(elf, i, &rel, NULL) < 0 || rel.type != SHT_RELA ||
		    utrace_elf_section(elf, rel.link, &sym, NULL) < 0 || sym.type != SHT_DYNSYM)
			continue;
		n = utrace_elf_rela_count(elf, &rel);
		for (size_t k = 0; k < n; k++) {
			struct utrace_elf_import imp;
			struct utrace_elf_rela r;
			struct utrace_elf_sym s;

			if (utrace_elf_rela(elf, &rel, k, &r) < 0 || r.type != R_X86_64_JUMP_SLOT ||
			    utrace_elf_sym(elf, &sym, r.sym, &s) < 0 || !s.name[0])
				continue;
			imp.slot = r.offset;
			imp.initial = word_at(elf, r.offset);
			imp.name = s.name;
			if (fn(arg, &imp) < 0)
				return -ENOMEM;
			count++;
		}
	}
	return count;
}
