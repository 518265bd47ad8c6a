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
 * whole program), __tls_get_addr (called with a special stack), and
 * __cxa_begin_catch, which the runtime interposes (runtime/unwind.c) to
 * end the frames below the catch: those whose return slot lies below its
 * caller's stack pointer, as its own hooked slot would.  Nor are the
 * sanitizers' run-time entries (__asan_report_store4, __tsan_write4,
 * __ubsan_handle_*, ...): the instrumentation's calls, not the program's;
 * a sanitizer reports from its own return address (the access, the
 * caller's frame) and would name the return trampoline, and --libcall is
 * the default for every program, sanitized ones too.
 *
 * C++ names are demangled as the symbol tables' are (lib/elf/symtab.c);
 * the filters match either spelling.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_libcall.h"
#include "lib/record/recorder_symtab.h"

static const char *const refused[] = {
    "setjmp",	  "_setjmp",	"sigsetjmp", "__sigsetjmp", "savectx",
    "vfork",	  "__vfork",	"clone",     "__clone",	    "clone3",
    "getcontext", "swapcontext", "_Unwind_Resume", "__libc_start_main", "__tls_get_addr",
    "__cxa_begin_catch",
};

static const char *const refused_prefix[] = {
    "__asan_", "__hwasan_", "__lsan_", "__msan_", "__tsan_", "__ubsan_", "__sanitizer_",
};

bool rec_libcall_refused(const char *name)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(name, refused[i]))
			return true;
	for (size_t i = 0; i < sizeof(refused_prefix) / sizeof(refused_prefix[0]); i++)
		if (!strncmp(name, refused_prefix[i], strlen(refused_prefix[i])))
			return true;
	return false;
}

/* The imports of s's file as symbols, read once; NULL if it cannot be
 * read. */
static struct utrace_symtab *imports_get(struct rec_symtab *s)
{
	struct utrace_error err;

	if (!s->imports_tried) {
		s->imports_tried = true;
		if (utrace_symtab_load_imports(s->path, &s->imports, &err) < 0)
			s->imports = NULL;
	}
	return s->imports;
}

void rec_libcall_read_imports(struct rec_symtab *s)
{
	imports_get(s);
}

/* The name of the libcall site at slot vaddr va, and in *raw (if raw) its
 * mangled spelling; NULL if the runtime left it alone or the file does
 * not say. */
const char *rec_libcall_name(struct rec_symtab *s, uint64_t va, const char **raw)
{
	struct utrace_symtab *t = s ? imports_get(s) : NULL;
	const struct utrace_sym *sym;
	uint64_t off = 1;

	if (!t || !va || !(sym = utrace_symtab_lookup(t, va, &off)) || off)
		return NULL;
	if (raw)
		*raw = sym->raw;
	return sym->name;
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

	for (uint32_t i = 0; ents && i < o->nr_sites; i++) {
		const char *nm = rec_libcall_name(s, o->vaddrs[i], NULL);

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
		const char *nm = rec_libcall_name(s, o->vaddrs[i], NULL);

		if (nm) {
			memcpy(strs + off, nm, strlen(nm) + 1);
			off += strlen(nm) + 1;
		}
	}
	qsort(ents, n, sizeof(*ents), cmp_sym);
	return rec_symtab_write(r, &h, ents, n, strs, strsz, err);
}
