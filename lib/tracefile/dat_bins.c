/* SPDX-License-Identifier: MIT */
/*
 * dat_bins.c - what the objects of a utrace.dat share by binary: their
 * site lists, symbol tables and name caches, kept once however many
 * processes mapped the same file.
 *
 * A recording writes an OBJECT, its SITES and its SYMTAB for every
 * process image, so a shell loop that ran one small traced program 800
 * times holds 800 copies of the same libc symbol table, and a reader
 * that kept each grew with the processes (issue 25: 103 processes 14 MB,
 * 803 processes 83 MB).  As perf's dso cache keys a binary by build-id,
 * this keys a SITES or SYMTAB payload by its content (everything after
 * the image and object ids): the first copy is kept, every later one is
 * freed as soon as it is read, and the objects point into the one kept.
 * Content rather than path: two files of one path (a program rebuilt
 * while traced) stay apart, and a file cut short needs nothing the
 * records do not say.  What differs by process stays in struct
 * dat_object: the ids, the load bias, the path.
 *
 * Tables read from disk (a file without SYMTAB records, dat_syms.c) are
 * kept once per path, and the name cache once per (site list, table)
 * pair: an object's names depend on nothing else.  A site with no symbol
 * is named by its runtime address, which depends on the bias; those
 * names are made once per address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/tracefile/dat_internal.h"

enum bin_kind {
	BIN_SITES = UTRACE_DAT_SITES,
	BIN_SYMTAB = UTRACE_DAT_SYMTAB,
	BIN_DISK = 1000, /* a table read from a file: key the path */
	BIN_NAMES,	 /* a name cache: key (sites, table) */
	BIN_MADE,	 /* a made-up name: key its kind and value */
};

struct dat_bin {
	struct dat_bin *next; /* hash chain */
	uint64_t hash;
	uint32_t kind, len;
	char *data; /* SITES/SYMTAB: the payload (len bytes + NUL); DISK: the path;
		     * MADE: the name */
	uint64_t key[2];   /* NAMES: (sites, table), n; MADE: (kind, value) */
	int prepared;	   /* SYMTAB: tab checked and sorted */
	struct dat_symtab tab; /* SYMTAB and DISK */
	char *own_syms, *own_strs; /* DISK: the table's storage */
	const char **names;	   /* NAMES: n entries, one per site */
	uint32_t n;
};

struct dat_bins {
	struct dat_bin **slot;
	size_t size, n;
};

static const struct dat_symtab empty_tab = {.strs = ""};

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(uint64_t h, const char *p, size_t len)
{
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w);
	}
	w = 0;
	memcpy(&w, p, len);
	return mix(h, w ^ ((uint64_t)len << 56));
}

static int bins_grow(struct dat_bins *t)
{
	size_t size = t->size ? t->size * 2 : 256;
	struct dat_bin **slot = calloc(size, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->size; i++) {
		for (struct dat_bin *b = t->slot[i], *next; b; b = next) {
			next = b->next;
			b->next = slot[b->hash & (size - 1)];
			slot[b->hash & (size - 1)] = b;
		}
	}
	free(t->slot);
	t->slot = slot;
	t->size = size;
	return 0;
}

/* The entry of kind and hash that eq (given the key) says is the one. */
static struct dat_bin *bins_find(struct utrace_dat *d, uint32_t kind, uint64_t hash,
				 bool (*eq)(const struct dat_bin *b, const void *key), const void *key)
{
	struct dat_bins *t = d->bins;

	if (!t || !t->size)
		return NULL;
	for (struct dat_bin *b = t->slot[hash & (t->size - 1)]; b; b = b->next)
		if (b->hash == hash && b->kind == kind && eq(b, key))
			return b;
	return NULL;
}

/* A new entry of kind and hash, in the table; NULL out of memory. */
static struct dat_bin *bins_add(struct utrace_dat *d, uint32_t kind, uint64_t hash)
{
	struct dat_bins *t = d->bins;
	struct dat_bin *b;

	if (!t && !(t = d->bins = calloc(1, sizeof(*t))))
		return NULL;
	if (t->n >= t->size && bins_grow(t) < 0)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->kind = kind;
	b->hash = hash;
	b->next = t->slot[hash & (t->size - 1)];
	t->slot[hash & (t->size - 1)] = b;
	t->n++;
	return b;
}

/* ---- SITES and SYMTAB payloads ---- */

/* the image and object ids open both payloads: the rest is the content */
#define BIN_IDS 8

struct payload {
	const char *p;
	uint32_t len;
};

static bool payload_eq(const struct dat_bin *b, const void *key)
{
	const struct payload *k = key;

	return b->len == k->len && !memcmp(b->data + BIN_IDS, k->p + BIN_IDS, k->len - BIN_IDS);
}

struct dat_bin *dat_bin_intern(struct utrace_dat *d, uint32_t type, char *p, uint32_t len)
{
	struct payload k = {p, len};
	uint64_t hash;
	struct dat_bin *b;

	if (len < BIN_IDS) {
		/* too short to name an object: kept as it is, to be
		 * reported malformed where it is applied */
		hash = hash_bytes(type, p, len);
		b = bins_add(d, type, hash);
		if (!b) {
			free(p);
			return NULL;
		}
		b->kind = ~0u; /* never found again */
	} else {
		hash = hash_bytes(type, p + BIN_IDS, len - BIN_IDS);
		b = bins_find(d, type, hash, payload_eq, &k);
		if (b) {
			free(p);
			return b;
		}
		b = bins_add(d, type, hash);
		if (!b) {
			free(p);
			return NULL;
		}
	}
	b->data = p;
	b->len = len;
	return b;
}

const char *dat_bin_payload(const struct dat_bin *b, uint32_t *len)
{
	*len = b->len;
	return b->data;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct utrace_dat_sym *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Checks names and order, and computes the covered range. */
static void symtab_prepare(struct dat_symtab *t, struct utrace_dat_sym *syms)
{
	int sorted = 1;

	t->sym_lo = UINT64_MAX;
	t->sym_hi = 0;
	for (uint32_t i = 0; i < t->nr_syms; i++) {
		struct utrace_dat_sym *s = &syms[i];
		uint64_t end = s->vaddr + (s->size ? s->size : 1);

		if (s->name >= t->str_size)
			s->name = t->str_size; /* the final NUL: "" */
		if (i && s->vaddr < syms[i - 1].vaddr)
			sorted = 0;
		if (end < s->vaddr)
			end = UINT64_MAX;
		if (s->vaddr < t->sym_lo)
			t->sym_lo = s->vaddr;
		if (end > t->sym_hi)
			t->sym_hi = end;
	}
	if (!sorted)
		qsort(syms, t->nr_syms, sizeof(*syms), sym_cmp);
	t->syms = syms;
}

const struct dat_symtab *dat_bin_symtab(struct dat_bin *b)
{
	struct utrace_dat_symtab hdr;
	uint64_t at;

	if (b->prepared)
		return &b->tab;
	memcpy(&hdr, b->data, sizeof(hdr));
	at = sizeof(hdr) + (uint64_t)hdr.nr_syms * sizeof(struct utrace_dat_sym);
	/* the caller checked that the record holds both parts; the names
	 * end with a NUL (the payload is followed by one) */
	b->data[at + hdr.str_size] = '\0';
	b->tab.nr_syms = hdr.nr_syms;
	b->tab.strs = b->data + at;
	b->tab.str_size = hdr.str_size;
	/* the payload is malloc'ed: the array after the 16-byte header is
	 * aligned for its 8-byte fields */
	symtab_prepare(&b->tab, (struct utrace_dat_sym *)(void *)(b->data + sizeof(hdr)));
	b->prepared = 1;
	return &b->tab;
}

/* ---- tables read from disk ---- */

static bool path_eq(const struct dat_bin *b, const void *key)
{
	return !strcmp(b->data, key);
}

static int disk_fill(struct dat_bin *b, struct utrace_symtab *tab)
{
	size_t n = utrace_symtab_count(tab), strsz = 0, pos = 0;
	struct utrace_dat_sym *syms;

	for (size_t i = 0; i < n; i++)
		strsz += strlen(utrace_symtab_get(tab, i)->name) + 1;
	if (n > UINT32_MAX || strsz >= UINT32_MAX)
		return 0;
	syms = malloc((n ? n : 1) * sizeof(*syms));
	b->own_strs = malloc(strsz + 1);
	if (!syms || !b->own_strs) {
		free(syms);
		return -ENOMEM;
	}
	b->own_syms = (char *)syms;
	for (size_t i = 0; i < n; i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);
		size_t len = strlen(s->name) + 1;

		syms[i].vaddr = s->vaddr;
		syms[i].size = s->size > UINT32_MAX ? UINT32_MAX : (uint32_t)s->size;
		syms[i].name = (uint32_t)pos;
		memcpy(b->own_strs + pos, s->name, len);
		pos += len;
	}
	b->own_strs[strsz] = '\0';
	b->tab.strs = b->own_strs;
	b->tab.str_size = (uint32_t)strsz;
	b->tab.nr_syms = (uint32_t)n;
	symtab_prepare(&b->tab, syms);
	return 0;
}

const struct dat_symtab *dat_bin_disk(struct utrace_dat *d, const char *path, bool imports,
				      bool *loaded)
{
	uint32_t kind = BIN_DISK + (imports ? 0x100 : 0);
	uint64_t hash = hash_bytes(kind, path, strlen(path));
	struct dat_bin *b = bins_find(d, kind, hash, path_eq, path);
	struct utrace_symtab *tab;
	struct utrace_error err;

	*loaded = false;
	if (b)
		return b->tab.strs ? &b->tab : &empty_tab;
	b = bins_add(d, kind, hash);
	if (!b)
		return &empty_tab;
	if (!(b->data = strdup(path))) {
		b->kind = ~0u; /* never found: the next call tries again */
		return &empty_tab;
	}
	if (!path[0] || (imports ? utrace_symtab_load_imports(path, &tab, &err)
				 : utrace_symtab_load(path, &tab, &err)) < 0)
		return &empty_tab;
	if (disk_fill(b, tab) == 0 && b->tab.strs)
		*loaded = true;
	utrace_symtab_free(tab);
	return b->tab.strs ? &b->tab : &empty_tab;
}

const struct dat_symtab *dat_symtab_empty(void)
{
	return &empty_tab;
}

/* ---- name caches and made-up names ---- */

static bool key_eq(const struct dat_bin *b, const void *key)
{
	const uint64_t *k = key;

	return b->key[0] == k[0] && b->key[1] == k[1];
}

static bool names_eq(const struct dat_bin *b, const void *key)
{
	const uint64_t *k = key;

	return b->key[0] == k[0] && b->key[1] == k[1] && b->n == k[2];
}

const char **dat_bin_names(struct utrace_dat *d, const uint64_t *sites,
			   const struct dat_symtab *tab, uint32_t n)
{
	uint64_t key[3] = {(uintptr_t)sites, (uintptr_t)tab, n};
	uint64_t hash = mix(mix(mix(BIN_NAMES, key[0]), key[1]), key[2]);
	struct dat_bin *b = bins_find(d, BIN_NAMES, hash, names_eq, key);

	if (b)
		return b->names;
	b = bins_add(d, BIN_NAMES, hash);
	if (!b)
		return NULL;
	b->key[0] = key[0];
	b->key[1] = key[1];
	b->n = n;
	b->names = calloc(n ? n : 1, sizeof(*b->names));
	if (!b->names)
		b->kind = ~0u; /* never found: the next call tries again */
	return b->names;
}

const char *dat_bin_made_name(struct utrace_dat *d, enum dat_made kind, uint64_t v)
{
	uint64_t key[2] = {kind, v};
	uint64_t hash = mix(mix(BIN_MADE, key[0]), key[1]);
	struct dat_bin *b = bins_find(d, BIN_MADE, hash, key_eq, key);
	char tmp[48];
	int len;

	if (b)
		return b->data;
	if (kind == DAT_MADE_ID)
		len = snprintf(tmp, sizeof(tmp), "<id %" PRIu64 ">", v);
	else
		len = snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);
	b = bins_add(d, BIN_MADE, hash);
	if (!b)
		return NULL;
	if (!(b->data = malloc((size_t)len + 1))) {
		b->kind = ~0u;
		return NULL;
	}
	memcpy(b->data, tmp, (size_t)len + 1);
	b->key[0] = key[0];
	b->key[1] = key[1];
	return b->data;
}

void dat_bins_free(struct utrace_dat *d)
{
	struct dat_bins *t = d->bins;

	if (!t)
		return;
	for (size_t i = 0; i < t->size; i++) {
		for (struct dat_bin *b = t->slot[i], *next; b; b = next) {
			next = b->next;
			free(b->data);
			free(b->own_syms);
			free(b->own_strs);
			free(b->names);
			free(b);
		}
	}
	free(t->slot);
	free(t);
	d->bins = NULL;
}
