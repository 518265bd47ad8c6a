/* SPDX-License-Identifier: MIT */
/*
 * samples_frames.c - a sampled address named and interned as a frame.
 *
 * The address is looked up in the process's mappings (the kernel's MMAP
 * records), its file loaded once (a small cache by path: sections and
 * the symbol table, the debug file's when the file has none) and the
 * function found; each (file, function) is interned once in a hash of
 * frames, so that a call chain is an array of small ids (struct frame,
 * samples_internal.h).  samples.c accounts the frames into entries.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/report/samples.h"
#include "lib/report/samples_internal.h"
#include "lib/tracefile/dat_samples.h"

/* perf's Shared Object of the kernel's addresses */
#define KERNEL_DSO "[kernel.kallsyms]"

/* ---- naming addresses ---- */

static void load_sections(struct dso *o, const struct utrace_elf *elf)
{
	size_t n = utrace_elf_section_count(elf);

	o->secs = calloc(n ? n : 1, sizeof(*o->secs));
	for (size_t i = 0; o->secs && i < n; i++) {
		struct utrace_elf_section sec;

		/* SHF_ALLOC and not SHT_NOBITS: bytes of the file in memory */
		if (utrace_elf_section(elf, i, &sec, NULL) == 0 && (sec.flags & 2) && sec.type != 8)
			o->secs[o->nr_secs++] = sec;
	}
}

/*
 * Distributions strip .symtab from their libraries (libc's static
 * functions then have no name) and ship it in a separate file found by
 * the build id, /usr/lib/debug/.build-id/NN/REST.debug, which perf reads
 * too: without it the frames under main would print in hex where perf
 * names them.  The debug file's symbols have the library's addresses.
 */
static struct utrace_symtab *debug_symtab(const struct utrace_elf *elf)
{
	struct utrace_elf_section sec;
	struct utrace_symtab *tab = NULL;
	struct utrace_elf *dbg;
	struct utrace_error err;
	uint8_t id[64];
	char path[256];
	int len, n;

	if (utrace_elf_find_section(elf, ".symtab", &sec) == 0 ||
	    (n = utrace_elf_build_id(elf, id, sizeof(id))) < 0)
		return NULL;
	len = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < n; i++)
		len += snprintf(path + len, sizeof(path) - (size_t)len, "%02x", id[i]);
	snprintf(path + len, sizeof(path) - (size_t)len, ".debug");
	if (utrace_elf_open(path, &dbg) < 0)
		return NULL;
	if (utrace_symtab_load_elf(dbg, &tab, &err) < 0)
		tab = NULL;
	utrace_elf_close(dbg);
	return tab;
}

static struct dso *get_dso(struct report *r, const char *path)
{
	struct utrace_elf *elf;
	const char *slash;
	struct dso *o;

	for (o = *r->dsos; o; o = o->next)
		if (!strcmp(o->path, path))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return NULL;
	}
	slash = strrchr(o->path, '/');
	o->base = slash && slash[1] ? slash + 1 : o->path;
	if (path[0] == '/' && utrace_elf_open(path, &elf) == 0) {
		struct utrace_error err;

		load_sections(o, elf);
		o->tab = debug_symtab(elf);
		if (!o->tab && utrace_symtab_load_elf(elf, &o->tab, &err) < 0)
			o->tab = NULL;
		utrace_elf_close(elf);
	}
	o->next = *r->dsos;
	*r->dsos = o;
	return o;
}

/* The function at file offset off of o, NULL if none. */
/* The function at file offset off of o, NULL if none. */
static const struct utrace_sym *dso_symbol(const struct dso *o, uint64_t off)
{
	for (size_t i = 0; o->tab && i < o->nr_secs; i++) {
		const struct utrace_elf_section *s = &o->secs[i];

		if (off >= s->offset && off - s->offset < s->size)
			return utrace_symtab_lookup(o->tab, off - s->offset + s->vaddr, NULL);
	}
	return NULL;
}

/* ---- frames ---- */

static size_t frame_slot(const struct dso *o, uint64_t addr, size_t cap)
{
	uint64_t h = ((uint64_t)(uintptr_t)o ^ addr) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static int frames_grow(struct report *r)
{
	size_t cap = r->cap_fslot ? r->cap_fslot * 2 : 1024;
	uint32_t *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_frames; i++) {
		size_t s = frame_slot(r->frames[i].o, r->frames[i].addr, cap);

		while (v[s])
			s = (s + 1) & (cap - 1);
		v[s] = (uint32_t)i + 1;
	}
	free(r->fslot);
	r->fslot = v;
	r->cap_fslot = cap;
	return 0;
}

int64_t samples_frame_of(struct report *r, int32_t pid, uint64_t ip)
{
	uint64_t off = 0, kstart = 0;
	bool kernel = (int64_t)ip < 0; /* the upper half: the kernel's */
	const char *kname = !kernel    ? NULL
			    : r->names ? r->names->ksym(r->names_arg, ip, &kstart)
				       : utrace_dat_sample_ksym(r->d, ip, &kstart);
	const char *path = kernel     ? KERNEL_DSO
			   : r->names ? r->names->map(r->names_arg, pid, ip, &off)
				      : utrace_dat_sample_map(r->d, pid, ip, &off);
	struct dso *o = path ? get_dso(r, path) : NULL;
	const struct utrace_sym *sym = o && !kernel ? dso_symbol(o, off) : NULL;
	struct frame f = {o, o ? o->path : NULL, sym ? sym->vaddr : ip, sym ? sym->name : NULL,
			  kernel};
	size_t s;

	if (kname) {
		f.addr = kstart;
		f.name = kname;
	}
	if ((path && !o) || ((r->nr_frames + 1) * 2 > r->cap_fslot && frames_grow(r) < 0))
		return -ENOMEM;
	for (s = frame_slot(o, f.addr, r->cap_fslot); r->fslot[s];
	     s = (s + 1) & (r->cap_fslot - 1)) {
		const struct frame *g = &r->frames[r->fslot[s] - 1];

		if (g->o == o && g->addr == f.addr)
			return r->fslot[s] - 1;
	}
	if (UTRACE_GROW(r->frames, r->cap_frames, r->nr_frames + 1) < 0)
		return -ENOMEM;
	r->frames[r->nr_frames] = f;
	r->fslot[s] = (uint32_t)++r->nr_frames;
	return r->fslot[s] - 1;
}

void samples_dsos_free(struct dso *o)
{
	while (o) {
		struct dso *next = o->next;

		utrace_symtab_free(o->tab);
		free(o->secs);
		free(o->path);
		free(o);
		o = next;
	}
}
