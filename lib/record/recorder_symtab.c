/* SPDX-License-Identifier: MIT */
/*
 * recorder_symtab.c - the objects' symbol tables, loaded once per path
 * (the cache), and a SYMTAB record written: the function symbols of
 * one object (recorder.c) or the names of its library calls
 * (recorder_libcall.c), as the reader's symbol tables read them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "lib/elf/symtab.h"
#include "lib/probes/dwarf.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_symtab.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_writer.h"

int rec_symtab_write(struct utrace_recorder *r, struct utrace_dat_symtab *h,
		     struct utrace_dat_sym *ents, size_t n, char *strs, size_t strsz,
		     struct utrace_error *err)
{
	struct iovec iov[3] = {{h, sizeof(*h)}, {ents, n * sizeof(*ents)}, {strs, strsz}};
	int ret;

	h->nr_syms = (uint32_t)n;
	h->str_size = (uint32_t)strsz;
	ret = utrace_dat_write(r->w, UTRACE_DAT_SYMTAB, iov, 3, err);
	free(ents);
	free(strs);
	return ret;
}

struct rec_symtab *rec_symtab_get(struct utrace_recorder *r, const char *path)
{
	struct rec_symtab *s;
	struct utrace_error e;

	for (s = r->symtabs; s; s = s->next)
		if (!strcmp(s->path, path))
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->path = strdup(path);
	if (utrace_symtab_load(path, &s->tab, &e) < 0)
		s->tab = NULL;
	s->next = r->symtabs;
	r->symtabs = s;
	return s;
}

void rec_symtab_free_all(struct utrace_recorder *r)
{
	while (r->symtabs) {
		struct rec_symtab *s = r->symtabs;

		r->symtabs = s->next;
		if (s->tab)
			utrace_symtab_free(s->tab);
		utrace_dwarf_close(s->dwarf);
		utrace_symtab_free(s->imports);
		free(s->path);
		free(s);
	}
}

const struct utrace_sym *rec_sym_at(struct utrace_recorder *r, struct rec_conn *c, uint64_t addr,
				    uint64_t *off, const struct rec_object **obj)
{
	const struct utrace_sym *best = NULL;
	uint64_t best_off = 0;

	for (uint32_t i = 0; c && i < c->nr_objs; i++) {
		struct rec_object *o = &c->objs[i];
		const struct utrace_sym *s;
		uint64_t o_off;

		if (o->flags & UTRACE_OBJ_LIBCALL || addr < o->bias)
			continue;
		if (!o->syms)
			o->syms = rec_symtab_get(r, o->path);
		if (!o->syms || !o->syms->tab ||
		    !(s = utrace_symtab_lookup(o->syms->tab, addr - o->bias, &o_off)))
			continue;
		if ((s->size && o_off >= s->size) || (best && o_off >= best_off))
			continue;
		best = s;
		best_off = o_off;
		*obj = o;
	}
	*off = best_off;
	return best;
}

const char *rec_object_module(const struct rec_object *o)
{
	const char *slash = strrchr(o->path, '/');

	return o->flags & UTRACE_OBJ_MAIN || !slash ? NULL : slash + 1;
}
