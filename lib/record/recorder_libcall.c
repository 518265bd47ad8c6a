/* SPDX-License-Identifier: MIT */
/*
 * recorder_libcall.c - the names of library calls (--libcall).
 *
 * The runtime (runtime/plt.c) registers the imports of an object as an
 * object of its own, UTRACE_OBJ_LIBCALL, whose sites are the vaddrs of
 * the GOT slots in utrace_elf_imports' order.  Here the recorder reads the
 * same imports from the file to name them: the filters (-l, -n, -g) match
 * those names, and the object's SYMTAB lists one 8-byte "function" per
 * slot, so the reader names a library call as any function, from its
 * site's vaddr (lib/tracefile/dat_syms.c needs nothing of its own).
 *
 * Some imports are never hooked, whatever the filters say, because a
 * hooked return would break them: functions that return twice (setjmp
 * saves the hooked return address in its jmp_buf, vfork's child returns
 * through the parent's frame), that switch stacks or threads (clone,
 * swapcontext), the unwinder's _Unwind_Resume (it unwinds from its own
 * return address, which must stay real), __libc_start_main (runs the
 * whole program) and __tls_get_addr (called with a special stack).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf.h"
#include "lib/record/recorder_internal.h"

static const char *const refused[] = {
    "setjmp",	  "_setjmp",	"sigsetjmp", "__sigsetjmp", "savectx",
    "vfork",	  "__vfork",	"clone",     "__clone",	    "clone3",
    "getcontext", "swapcontext", "_Unwind_Resume", "__libc_start_main", "__tls_get_addr",
};

bool rec_libcall_refused(const char *name)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(name, refused[i]))
			return true;
	return false;
}

struct rec_imports {
	uint64_t *slot;
	char **name;
	size_t n, cap;
};

static int imports_add(void *arg, const struct utrace_elf_import *imp)
{
	struct rec_imports *t = arg;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		uint64_t *s = realloc(t->slot, cap * sizeof(*s));
		char **nm = s ? realloc(t->name, cap * sizeof(*nm)) : NULL;

		if (s)
			t->slot = s;
		if (!nm)
			return -ENOMEM;
		t->name = nm;
		t->cap = cap;
	}
	if (!(t->name[t->n] = strdup(imp->name)))
		return -ENOMEM;
	t->slot[t->n++] = imp->slot;
	return 0;
}

void rec_imports_free(struct rec_imports *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->name);
	free(t->slot);
	free(t);
}

/* The imports of s's file, read once; NULL if it cannot be read. */
static struct rec_imports *imports_get(struct rec_symtab *s)
{
	struct utrace_elf *elf;
	struct rec_imports *t;

	if (s->imports_tried)
		return s->imports;
	s->imports_tried = true;
	if (utrace_elf_open(s->path, &elf) < 0)
		return NULL;
	if ((t = calloc(1, sizeof(*t))) && utrace_elf_imports(elf, imports_add, t) < 0) {
		rec_imports_free(t);
		t = NULL;
	}
	utrace_elf_close(elf);
	return s->imports = t;
}

/* The name of site i of the libcall object o (slot vaddr va), NULL if
 * the runtime left it alone or the file does not say. */
const char *rec_libcall_name(struct rec_symtab *s, uint32_t i, uint64_t va)
{
	struct rec_imports *t = s ? imports_get(s) : NULL;

	if (!t || !va)
		return NULL;
	if (i < t->n && t->slot[i] == va)
		return t->name[i];
	for (size_t k = 0; k < t->n; k++) /* a file changed since: by slot */
		if (t->slot[k] == va)
			return t->name[k];
	return NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct utrace_dat_sym *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The SYMTAB of libcall object idx: an 8-byte symbol per named slot. */
int rec_libcall_symtab(struct utrace_recorder *r, struct rec_conn *c, uint32_t idx,
		       struct rec_symtab *s, struct utrace_error *err)
{
	struct rec_object *o = &c->objs[idx];
	struct utrace_dat_symtab h = {.image = c->image, .obj = idx};
	struct utrace_dat_sym *ents = malloc((o->nr_sites + 1) * sizeof(*ents));
	size_t n = 0, strsz = 0, off = 0;
	char *strs = NULL;
	int ret;

	for (uint32_t i = 0; ents && i < o->nr_sites; i++) {
		const char *nm = rec_libcall_name(s, i, o->vaddrs[i]);

		if (nm) {
			ents[n].vaddr = o->vaddrs[i];
			ents[n].size = 8;
			ents[n++].name = (uint32_t)strsz;
			strsz += strlen(nm) + 1;
		}
	}
	if (!ents || !(strs = malloc(strsz + 1))) {
		free(ents);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < o->nr_sites; i++) {
		const char *nm = rec_libcall_name(s, i, o->vaddrs[i]);

		if (nm) {
			memcpy(strs + off, nm, strlen(nm) + 1);
			off += strlen(nm) + 1;
		}
	}
	qsort(ents, n, sizeof(*ents), cmp_sym);
	h.nr_syms = (uint32_t)n;
	h.str_size = (uint32_t)strsz;
	{
		struct iovec iov[3] = {{&h, sizeof(h)}, {ents, n * sizeof(*ents)}, {strs, strsz}};

		ret = utrace_dat_write(r->w, UTRACE_DAT_SYMTAB, iov, 3, err);
	}
	free(ents);
	free(strs);
	return ret;
}
