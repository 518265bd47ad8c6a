/* SPDX-License-Identifier: MIT */
/*
 * recorder_funcrange.c - the functions of an event filter's FIELD.function
 * (lib/events/event_filter.h) in one traced process: its filter is
 * compiled for each process, with that process's addresses.
 *
 * A name is the first function of that symbol in the process's objects
 * (the kernel's kallsyms_lookup_name); an address is one of
 * utrace.kallsyms (the first process that has an object: the tracefs's
 * listing), so it names a function of an object, wherever this process
 * has that object.
 */
#include <errno.h>
#include <string.h>

#include "common/proto.h"
#include "lib/elf/symtab.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_live.h"
#include "lib/record/recorder_symtab.h"

static const struct utrace_symtab *obj_syms(struct utrace_recorder *r, struct rec_object *o)
{
	if (o->flags & UTRACE_OBJ_LIBCALL)
		return NULL;
	if (!o->syms)
		o->syms = rec_symtab_get(r, o->path);
	return o->syms ? o->syms->tab : NULL;
}

static void range_of(uint64_t bias, const struct utrace_sym *s, uint64_t *start, uint64_t *end)
{
	*start = bias + s->vaddr;
	*end = *start + (s->size ? s->size : 1);
}

/* The object (its path) and the function that hold addr in the first
 * process that has an object there. */
static const struct utrace_sym *addr_holder(struct utrace_recorder *r, uint64_t addr,
					    const char **path)
{
	for (uint32_t ci = 0; ci < r->nr_conns; ci++)
		for (uint32_t oi = 0; oi < r->conns[ci]->nr_objs; oi++) {
			struct rec_object *o = &r->conns[ci]->objs[oi];
			const struct utrace_symtab *tab = obj_syms(r, o);
			const struct utrace_sym *s;
			uint64_t off;

			if (!tab || addr < o->bias ||
			    !(s = utrace_symtab_lookup(tab, addr - o->bias, &off)) ||
			    (!s->size && s == utrace_symtab_get(tab, utrace_symtab_count(tab) - 1)))
				continue;
			*path = o->path;
			return s;
		}
	return NULL;
}

int rec_func_range(void *arg, const char *name, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct rec_func_ctx *x = arg;
	const struct utrace_sym *s = NULL;
	const char *path = NULL;

	if (!name && !(s = addr_holder(x->r, addr, &path)))
		return -ENOENT;
	for (uint32_t oi = 0; oi < x->c->nr_objs; oi++) {
		struct rec_object *o = &x->c->objs[oi];
		const struct utrace_symtab *tab = obj_syms(x->r, o);
		const struct utrace_sym *t;

		if (!tab || (path && strcmp(o->path, path)))
			continue;
		if (path) {
			range_of(o->bias, s, start, end);
			return 0;
		}
		for (size_t i = 0; (t = utrace_symtab_get(tab, i)); i++)
			if (!strcmp(t->raw, name)) {
				range_of(o->bias, t, start, end);
				return 0;
			}
	}
	return -ENOENT;
}
