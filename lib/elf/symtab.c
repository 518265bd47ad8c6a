/* SPDX-License-Identifier: MIT */
/*
 * symtab.c - function symbols of one ELF file, for naming call sites.
 *
 * Design: load once, then answer address lookups by binary search.  The
 * symbols are copied out of the file into one array sorted by address,
 * with one entry per address (aliases collapsed), and their names into a
 * string arena, so the table outlives the mapping of the file.  C++ names
 * are demangled at load time with the C++ runtime's __cxa_demangle.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/elf/eh_frame.h"
#include "lib/elf/symtab.h"

/* From libstdc++ (the tool links -lstdc++): a malloc'ed string, or NULL. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define ARENA_BLOCK 65536

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
};

struct utrace_symtab {
	struct utrace_sym *syms;
	size_t n;
	struct arena_block *strings;
};

/* A symbol as read from the file, before aliases are collapsed. */
struct cand {
	uint64_t vaddr, size;
	const char *raw; /* points into the mapped file */
	size_t len;
	int rank; /* 0 GLOBAL, 1 WEAK, 2 LOCAL */
};

static char *arena_strdup(struct utrace_symtab *tab, const char *s, size_t len)
{
	struct arena_block *b = tab->strings;
	char *p;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = tab->strings;
		b->used = 0;
		b->cap = cap;
		tab->strings = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

void utrace_symtab_free(struct utrace_symtab *tab)
{
	struct arena_block *b, *next;

	if (!tab)
		return;
	for (b = tab->strings; b; b = next) {
		next = b->next;
		free(b);
	}
	free(tab->syms);
	free(tab);
}

static int bind_rank(uint8_t bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* Address order; at one address the preferred alias comes first. */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Reads the defined function symbols of one symbol table section. */
static int collect(const struct utrace_elf *elf, const struct utrace_elf_section *sec,
		   struct cand **out, size_t *nout, struct utrace_error *err)
{
	size_t count = utrace_elf_sym_count(elf, sec), n = 0;
	struct utrace_elf_sym sym;
	struct cand *c;

	*out = NULL;
	*nout = 0;
	if (count == 0)
		return 0;
	c = malloc(count * sizeof(*c));
	if (!c)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory for %zu symbols",
					utrace_elf_path(elf), count);
	for (size_t i = 1; i < count; i++) {
		if (utrace_elf_sym(elf, sec, i, &sym) < 0)
			break;
		if (sym.type != STT_FUNC && sym.type != STT_GNU_IFUNC)
			continue;
		if (sym.shndx == SHN_UNDEF || sym.value == 0 || !sym.name[0])
			continue;
		c[n].vaddr = sym.value;
		c[n].size = sym.size;
		c[n].raw = sym.name;
		c[n].len = strlen(sym.name);
		c[n].rank = bind_rank(sym.bind);
		n++;
	}
	*out = c;
	*nout = n;
	return 0;
}

/*
 * A stripped object: the functions .dynsym does not name, from the FDEs
 * of .eh_frame, as sub_ADDR (a range that starts inside a named function
 * is a part of it, e.g. its .cold part, and gets no name).  Their names
 * go into *names (freed by the caller after build).
 */
static int add_unnamed(const struct utrace_elf *elf, struct cand **c, size_t *n, char **names,
		       struct utrace_error *err)
{
	struct utrace_fde_range *r;
	struct cand *nc;
	size_t nr, k = *n;

	*names = NULL;
	if (utrace_elf_fde_ranges(elf, &r, &nr) < 0)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_elf_path(elf));
	if (!nr)
		return 0;
	nc = realloc(*c, (*n + nr) * sizeof(**c));
	*names = malloc(nr * 24);
	if (!nc || !*names) {
		if (nc)
			*c = nc;
		free(r);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_elf_path(elf));
	}
	*c = nc;
	qsort(nc, *n, sizeof(*nc), cand_cmp);
	for (size_t i = 0, j = 0; i < nr; i++) {
		char *name = *names + i * 24;

		while (j < *n && nc[j].vaddr + (nc[j].size ? nc[j].size : 1) <= r[i].start)
			j++;
		if (j < *n && nc[j].vaddr <= r[i].start)
			continue; /* named, or inside a named function */
		nc[k] = (struct cand){r[i].start, r[i].size, name, 0, 2};
		nc[k].len = (size_t)snprintf(name, 24, "sub_%llx", (unsigned long long)r[i].start);
		k++;
	}
	*n = k;
	free(r);
	return 0;
}

/* Fills tab->syms from sorted candidates, one per address. */
static int build(struct utrace_symtab *tab, const struct cand *c, size_t n, const char *path,
		 struct utrace_error *err)
{
	tab->syms = malloc((n ? n : 1) * sizeof(*tab->syms));
	if (!tab->syms)
		goto nomem;
	for (size_t i = 0; i < n;) {
		struct utrace_sym *s = &tab->syms[tab->n];
		uint64_t size = c[i].size;
		char *dem = NULL;
		size_t j;
		int status = -1;

		/* c[i] is the preferred alias; keep the largest known size. */
		for (j = i + 1; j < n && c[j].vaddr == c[i].vaddr; j++)
			if (c[j].size > size)
				size = c[j].size;
		s->vaddr = c[i].vaddr;
		s->size = size;
		s->type = "TWt"[c[i].rank];
		s->raw = arena_strdup(tab, c[i].raw, c[i].len);
		if (!s->raw)
			goto nomem;
		s->name = s->raw;
		if (c[i].raw[0] == '_' && c[i].raw[1] == 'Z')
			dem = __cxa_demangle(c[i].raw, NULL, NULL, &status);
		if (dem && status == 0) {
			s->name = arena_strdup(tab, dem, strlen(dem));
			free(dem);
			if (!s->name)
				goto nomem;
		} else {
			free(dem);
		}
		tab->n++;
		i = j;
	}
	return 0;
nomem:
	return utrace_error_set(err, -ENOMEM, "%s: out of memory for the symbol table", path);
}

int utrace_symtab_load_elf(const struct utrace_elf *elf, struct utrace_symtab **out,
			   struct utrace_error *err)
{
	static const struct {
		const char *name;
		uint32_t type;
	} tables[] = {{".symtab", SHT_SYMTAB}, {".dynsym", SHT_DYNSYM}};
	const char *path = utrace_elf_path(elf);
	struct utrace_elf_section sec;
	struct utrace_symtab *tab;
	struct cand *c = NULL;
	char *names = NULL;
	size_t n = 0, t;
	int ret;

	*out = NULL;
	for (t = 0; t < sizeof(tables) / sizeof(tables[0]) && n == 0; t++) {
		if (utrace_elf_find_section(elf, tables[t].name, &sec) < 0 ||
		    sec.type != tables[t].type)
			continue;
		free(c);
		ret = collect(elf, &sec, &c, &n, err);
		if (ret < 0)
			return ret;
	}
	if ((t > 1 || !n) && (ret = add_unnamed(elf, &c, &n, &names, err)) < 0) {
		free(c);
		return ret;
	}
	if (n)
		qsort(c, n, sizeof(*c), cand_cmp);
	tab = calloc(1, sizeof(*tab));
	if (!tab) {
		free(c);
		free(names);
		return utrace_error_set(err, -ENOMEM, "%s: out of memory for the symbol table",
					path);
	}
	ret = build(tab, c, n, path, err);
	free(c);
	free(names);
	if (ret < 0) {
		utrace_symtab_free(tab);
		return ret;
	}
	*out = tab;
	return 0;
}

/* The PLT imports as symbols: one 8-byte "function" at each GOT slot. */
struct import_cands {
	struct cand *c;
	size_t n, cap;
};

static int import_cand(void *arg, const struct utrace_elf_import *imp)
{
	struct import_cands *t = arg;

	if (UTRACE_GROW(t->c, t->cap, t->n + 1) < 0)
		return -ENOMEM;
	t->c[t->n++] = (struct cand){imp->slot, 8, imp->name, strlen(imp->name), 0};
	return 0;
}

int utrace_symtab_load_imports(const char *path, struct utrace_symtab **out,
			       struct utrace_error *err)
{
	struct import_cands t = {0};
	struct utrace_symtab *tab = NULL;
	struct utrace_elf *elf;
	int ret;

	*out = NULL;
	ret = utrace_elf_open_err(path, &elf, err);
	if (ret < 0)
		return ret;
	ret = utrace_elf_imports(elf, import_cand, &t);
	if (ret < 0)
		ret = utrace_error_set(err, ret, "%s: out of memory for the imports", path);
	else if (!(tab = calloc(1, sizeof(*tab))))
		ret = utrace_error_set(err, -ENOMEM, "%s: out of memory for the imports", path);
	if (ret >= 0) {
		if (t.n)
			qsort(t.c, t.n, sizeof(*t.c), cand_cmp);
		ret = build(tab, t.c, t.n, path, err); /* copies the names */
	}
	utrace_elf_close(elf);
	free(t.c);
	if (ret < 0) {
		utrace_symtab_free(tab);
		return ret;
	}
	*out = tab;
	return 0;
}

int utrace_symtab_load(const char *path, struct utrace_symtab **out, struct utrace_error *err)
{
	struct utrace_elf *elf;
	int ret;

	*out = NULL;
	ret = utrace_elf_open_err(path, &elf, err);
	if (ret < 0)
		return ret;
	ret = utrace_symtab_load_elf(elf, out, err);
	utrace_elf_close(elf);
	return ret;
}

size_t utrace_symtab_count(const struct utrace_symtab *tab)
{
	return tab->n;
}

const struct utrace_sym *utrace_symtab_get(const struct utrace_symtab *tab, size_t i)
{
	return i < tab->n ? &tab->syms[i] : NULL;
}

/* Does symbol i contain vaddr (which is >= its address)? */
static int covers(const struct utrace_symtab *tab, size_t i, uint64_t vaddr)
{
	const struct utrace_sym *s = &tab->syms[i];

	if (s->size)
		return vaddr - s->vaddr < s->size;
	return i + 1 == tab->n || vaddr < tab->syms[i + 1].vaddr;
}

const struct utrace_sym *utrace_symtab_lookup(const struct utrace_symtab *tab, uint64_t vaddr,
					      uint64_t *offset)
{
	size_t lo = 0, hi = tab->n;

	/* Find the last symbol at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->syms[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* It may be a small symbol nested in a larger one (e.g. a local
	 * label typed FUNC): look a few entries back for an enclosing one. */
	for (size_t k = 0; k < 8 && k < lo; k++) {
		size_t i = lo - 1 - k;

		if (covers(tab, i, vaddr)) {
			if (offset)
				*offset = vaddr - tab->syms[i].vaddr;
			return &tab->syms[i];
		}
	}
	return NULL;
}
