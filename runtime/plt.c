/* SPDX-License-Identifier: MIT */
/*
 * plt.c - library calls (--libcall): the calls an object makes into shared
 * libraries, hooked at their GOT slots, as uftrace does by default.
 *
 * A call to printf goes through the caller's PLT, `jmp *GOT[printf]`, whose
 * slot the dynamic linker filled with printf's address (R_X86_64_JUMP_SLOT).
 * We put the address of a stub of our own in the slot instead; the stub
 * loads the old address into r11, pushes printf's function id and jumps to
 * the tracer's PLT trampoline (arch/x86_64/plt_tramp.S), which runs the
 * tracer's entry handler and jumps on to printf with every argument
 * register as it was.  function_graph hooks printf's return as it does any
 * traced function's, so printf nests under its caller with its duration.
 *
 *   GOT slot ---> stub i: endbr64; push $id_i; mov real[i](%rip),%r11;
 *                         jmp *tramp(%rip)
 *   region:  [ tramp ][ real[0] ... real[n-1] ][ stub 0 ][ stub 1 ] ...
 *
 * The imports are numbered by utrace_elf_imports (lib/elf/elf.h), which the
 * recorder reads too: they form a part of their own of the object
 * (UTRACE_OBJ_LIBCALL, after the object's own registration), whose "sites"
 * are the slots' vaddrs and whose names the recorder gives from .dynsym.
 * Sent through the same OBJECT/SITES/SELECT messages, the -l/-n filters
 * select among them as among functions.
 *
 * Which objects: the main program, and every object dlopen'ed later (a
 * plugin's calls); not the libraries loaded with the program, whose calls
 * among themselves (libstdc++ into libc) would be noise, nor ourselves:
 * the runtime's own calls into libc go through our own GOT, never hooked,
 * so the tracer never records itself.
 *
 * Binding: the recorder starts the command with LD_BIND_NOW=1, so every
 * slot holds its final target when we read it.  A slot still holding its
 * lazy-binding value (the file's, the PLT's resolver entry: LD_BIND_NOW
 * removed by the program for a child, say) is left alone: the resolver
 * would overwrite our stub with the target on the first call anyway.  A
 * slot of 0 (an unresolved weak symbol) is left alone too.
 *
 * A call into a function that is traced already (a library built with
 * `utrace cflags`, a shared library's call to its own exported function
 * through its PLT) is left alone as well, or it would show twice, nested
 * in itself: the target starts with a call site of a registered object,
 * still a NOP or patched into a call to its object's stubs, or is a
 * selected entry of an object without sites (func_patch.c patches it,
 * with a jmp, an int3, or a jmp still to come).
 *
 * Full RELRO (-z now): the GOT is read-only once relocated; the pages of
 * PT_GNU_RELRO are made writable for the few stores, then read-only again
 * (glibc protects [start, end) rounded down to pages).  Other threads
 * only ever read them.  A slot is one aligned 8-byte store: a thread
 * calling meanwhile takes the old target or the stub, both right.
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "lib/elf/elf.h"
#include "runtime/rt.h"

#define PLT_STUB 32		/* bytes per stub (22 used, int3 padding) */
#define PLT_MAX_IDS (1u << 24) /* as ftrace.c's: rt.site_flags' size */

static bool plt_first_done; /* the program's own libraries were scanned */

struct plt_imports {
	uint64_t *slot, *initial;
	size_t n, cap;
};

static int plt_import_add(void *arg, const struct utrace_elf_import *imp)
{
	struct plt_imports *a = arg;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint64_t *s = realloc(a->slot, cap * sizeof(*s));
		uint64_t *i = s ? realloc(a->initial, cap * sizeof(*i)) : NULL;

		if (s)
			a->slot = s;
		if (!i)
			return -ENOMEM;
		a->initial = i;
		a->cap = cap;
	}
	a->slot[a->n] = imp->slot;
	a->initial[a->n++] = imp->initial;
	return 0;
}

/* Whether code at v is the call site of a function of a registered
 * object: the tracer sees its calls already. */
static bool plt_target_traced(uint64_t v)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	const uint8_t *p = (const uint8_t *)(uintptr_t)v;
	uint64_t to = 0;
	int32_t rel;

	for (const struct rt_object *o = rt.objects; o; o = o->next) {
		if (v < o->lo || v + 5 > o->hi || !o->nr_sites)
			continue;
		if (o->flags & UTRACE_OBJ_FPATCH) /* its bytes may be int3, or not yet patched */
			return rt_fpatch_traced(o, v);
		if (v + 9 <= o->hi && !memcmp(p, endbr64, 4))
			p += 4;
		if (insn_is_nop5(p) || insn_is_nop1x5(p))
			return true;
		if (p[0] != INSN_CALL)
			return false;
		memcpy(&rel, p + 1, 4);
		to = (uint64_t)(uintptr_t)p + 5 + (uint64_t)(int64_t)rel;
		return to >= (uint64_t)(uintptr_t)o->stubs &&
		       to < (uint64_t)(uintptr_t)o->stubs + o->stubs_size;
	}
	return false;
}

/* The runtime address of import i's slot if we may hook it, else 0. */
static uint64_t plt_slot_ok(const struct rt_object *obj, const struct plt_imports *a, size_t i)
{
	uint64_t at = obj->bias + a->slot[i], v;

	if (at < obj->lo || at + 8 > obj->hi || (at & 7))
		return 0;
	v = __atomic_load_n((uint64_t *)(uintptr_t)at, __ATOMIC_RELAXED);
	if (!v || (a->initial[i] && v == obj->bias + a->initial[i]))
		return 0; /* unresolved weak, or still lazy */
	return plt_target_traced(v) ? 0 : at;
}

/* One stub: see the picture above.  rel32s are from the next instruction. */
static void plt_make_stub(uint8_t *p, uint32_t id, const uint64_t *real, const uint64_t *tramp)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	int32_t rel;

	memset(p, 0xcc, PLT_STUB);
	memcpy(p, endbr64, 4);
	p[4] = 0x68; /* push $imm32 (ids < 2^24: no sign extension) */
	memcpy(p + 5, &id, 4);
	p[9] = 0x4c; /* mov rel32(%rip), %r11 */
	p[10] = 0x8b;
	p[11] = 0x1d;
	rel = (int32_t)((intptr_t)real - (intptr_t)(p + 16));
	memcpy(p + 12, &rel, 4);
	p[16] = 0xff; /* jmp *rel32(%rip) */
	p[17] = 0x25;
	rel = (int32_t)((intptr_t)tramp - (intptr_t)(p + 22));
	memcpy(p + 18, &rel, 4);
}

/* The stub region of the libcall part lc: targets read from the slots. */
static int plt_stubs(struct rt_object *lc)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t head = (8 + 8 * (uint64_t)lc->nr_sites + PLT_STUB - 1) & ~(uint64_t)(PLT_STUB - 1);
	uint64_t size = (head + (uint64_t)lc->nr_sites * PLT_STUB + pg - 1) & ~(pg - 1);
	uint8_t *r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *tramp = (uint64_t *)(void *)r, *real = tramp + 1;

	if (r == MAP_FAILED)
		return -ENOMEM;
	*tramp = rt.cfg.tracer == UTRACE_TRACER_FUNCTION ? (uint64_t)(uintptr_t)utrace_plt_func_tramp
							  : (uint64_t)(uintptr_t)utrace_plt_graph_tramp;
	for (uint32_t i = 0; i < lc->nr_sites; i++) {
		real[i] = lc->sites[i] ? *(uint64_t *)(uintptr_t)lc->sites[i] : 0;
		plt_make_stub(r + head + (uint64_t)i * PLT_STUB, lc->id_base + i, &real[i], tramp);
	}
	/* Written once, before any slot leads here; then R-X. */
	if (mprotect(r, size, PROT_READ | PROT_EXEC) < 0) {
		munmap(r, size);
		return -errno;
	}
	lc->stubs = r + head;
	lc->stubs_size = size - head;
	return 0;
}

/* The libcall part of obj (NULL: it has no import we may hook). */
static int plt_part(struct rt_object *obj, struct rt_object **out)
{
	struct plt_imports a = {0};
	struct utrace_elf *elf;
	struct rt_object *lc = NULL;
	int ret;

	*out = NULL;
	if (utrace_elf_open(obj->path, &elf) < 0)
		return 0;
	ret = utrace_elf_imports(elf, plt_import_add, &a);
	utrace_elf_close(elf);
	if (ret <= 0 || rt.next_id + a.n > PLT_MAX_IDS)
		goto out;
	ret = -ENOMEM;
	if (!(lc = calloc(1, sizeof(*lc))) || !(lc->path = strdup(obj->path)) ||
	    !(lc->sites = calloc(a.n, sizeof(uint64_t))))
		goto out;
	lc->bias = obj->bias; /* lo = hi = 0: no code of its own */
	lc->flags = UTRACE_OBJ_LIBCALL;
	lc->nr_sites = (uint32_t)a.n;
	lc->id_base = rt.next_id;
	for (size_t i = 0; i < a.n; i++)
		lc->sites[i] = plt_slot_ok(obj, &a, i);
	if ((ret = plt_stubs(lc)) < 0)
		goto out;
	rt.next_id += lc->nr_sites;
	*out = lc;
	lc = NULL;
	ret = 0;
out:
	if (lc) {
		free(lc->sites);
		free(lc->path);
		free(lc);
	}
	free(a.slot);
	free(a.initial);
	return ret;
}

struct plt_relro {
	uint64_t bias, lo, hi;
};

static int plt_relro_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct plt_relro *r = data;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	if (info->dlpi_addr != r->bias)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_GNU_RELRO)
			continue;
		r->lo = (info->dlpi_addr + ph->p_vaddr) & ~(pg - 1);
		r->hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(pg - 1);
	}
	return 1;
}

/* Points the selected slots of lc at their stubs. */
static int plt_hook(struct rt_object *lc)
{
	struct plt_relro relro = {.bias = lc->bias};
	bool ro = false;
	int ret = 0;

	dl_iterate_phdr(plt_relro_one, &relro);
	for (uint32_t i = 0; i < lc->nr_sites && !ro; i++)
		ro = lc->sites[i] && (rt.site_flags[lc->id_base + i] & UTRACE_SITE_TRACE) &&
		     lc->sites[i] >= relro.lo && lc->sites[i] < relro.hi;
	if (ro && mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo,
			   PROT_READ | PROT_WRITE) < 0)
		return -errno;
	for (uint32_t i = 0; i < lc->nr_sites; i++) {
		uint64_t *slot = (uint64_t *)(uintptr_t)lc->sites[i];

		if (slot && (rt.site_flags[lc->id_base + i] & UTRACE_SITE_TRACE))
			__atomic_store_n(slot, (uint64_t)(uintptr_t)(lc->stubs + (uint64_t)i * PLT_STUB),
					 __ATOMIC_RELEASE);
	}
	if (ro && mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo, PROT_READ) < 0)
		ret = -errno;
	return ret;
}

/*
 * A live change.  The region's trampoline word (the first 8 bytes of its
 * page-aligned start) is one aligned store, as stubs_retarget's far jump
 * target in ftrace.c, with the page RWX meanwhile (threads run the stubs
 * after it).  Each slot then gets its stub or, unselected or under nop,
 * the target it had (real[i]): one aligned store each, a thread calling
 * meanwhile taking the old one or the new one, both right; function_graph
 * frames hooked before go on returning through the hook.
 */
static int plt_live(struct rt_object *lc, uint32_t tracer)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t head = (8 + 8 * (uint64_t)lc->nr_sites + PLT_STUB - 1) & ~(uint64_t)(PLT_STUB - 1);
	uint8_t *base = lc->stubs - head;
	uint64_t *tramp = (uint64_t *)(void *)base, *real = tramp + 1;
	struct plt_relro relro = {.bias = lc->bias};
	bool ro = false;
	int ret = 0;

	if (tracer != UTRACE_TRACER_NOP) {
		if (mprotect(base, pg, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
			return -errno;
		__atomic_store_n(tramp,
				 tracer == UTRACE_TRACER_FUNCTION
				     ? (uint64_t)(uintptr_t)utrace_plt_func_tramp
				     : (uint64_t)(uintptr_t)utrace_plt_graph_tramp,
				 __ATOMIC_RELEASE);
		if (mprotect(base, pg, PROT_READ | PROT_EXEC) < 0)
			return -errno;
	}
	dl_iterate_phdr(plt_relro_one, &relro);
	for (uint32_t i = 0; i < lc->nr_sites && !ro; i++)
		ro = lc->sites[i] && lc->sites[i] >= relro.lo && lc->sites[i] < relro.hi;
	if (ro && mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo,
			   PROT_READ | PROT_WRITE) < 0)
		return -errno;
	for (uint32_t i = 0; i < lc->nr_sites; i++) {
		uint64_t *slot = (uint64_t *)(uintptr_t)lc->sites[i];
		bool on = tracer != UTRACE_TRACER_NOP &&
			  (rt.site_flags[lc->id_base + i] & UTRACE_SITE_TRACE);

		if (slot)
			__atomic_store_n(slot,
					 on ? (uint64_t)(uintptr_t)(lc->stubs + (uint64_t)i * PLT_STUB)
					    : real[i],
					 __ATOMIC_RELEASE);
	}
	if (ro && mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo, PROT_READ) < 0)
		ret = -errno;
	return ret;
}

/* rt_objects_added_hook: the main program's imports, then those of every
 * object loaded later.  Each part is registered after the objects of the
 * scan (their indices follow), as an object of its own. */
static int plt_register(struct rt_object *added)
{
	struct rt_object *last = added, *tail, *o = added, *lc;
	int ret = 0;

	while (last->next)
		last = last->next;
	tail = last;
	for (;; o = o->next) {
		bool want = plt_first_done || (o->flags & UTRACE_OBJ_MAIN);

		if (want && (ret = plt_part(o, &lc)) >= 0 && lc) {
			lc->index = rt.nr_objects++;
			tail->next = lc; /* appended: the list stays in index order */
			tail = lc;
			ret = rt_object_send(lc);
			if (ret >= 0)
				ret = rt_object_select(lc);
			/* not fatal: its calls just go unrecorded */
			if (ret >= 0 && plt_hook(lc) < 0)
				rt_log("cannot make a GOT writable: an object's library calls are "
				       "not traced");
		}
		if (o == last || ret < 0)
			break;
	}
	plt_first_done = true;
	return ret;
}

void rt_plt_init(void)
{
	plt_first_done = false; /* attached again: the main program's imports first */
	rt_objects_added_hook = rt.cfg.flags & UTRACE_CFG_LIBCALL ? plt_register : NULL;
	rt_objects_libcall_live_hook = rt.cfg.flags & UTRACE_CFG_LIBCALL ? plt_live : NULL;
}

/* The libcall part lc's slots that lead to its stubs get the targets the
 * stubs jump to (real[], in front of the stubs) back: the program's own
 * values, which it reads again at its next call. */
static int plt_unhook_one(struct rt_object *lc)
{
	uint64_t head = (8 + 8 * (uint64_t)lc->nr_sites + PLT_STUB - 1) & ~(uint64_t)(PLT_STUB - 1);
	const uint64_t *real = (const uint64_t *)(const void *)(lc->stubs - head) + 1;
	struct plt_relro relro = {.bias = lc->bias};
	int ret = 0;

	dl_iterate_phdr(plt_relro_one, &relro);
	if (relro.hi > relro.lo &&
	    mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo, PROT_READ | PROT_WRITE) < 0)
		return -errno;
	for (uint32_t i = 0; i < lc->nr_sites; i++) {
		uint64_t *slot = (uint64_t *)(uintptr_t)lc->sites[i];
		uint64_t stub = (uint64_t)(uintptr_t)(lc->stubs + (uint64_t)i * PLT_STUB);

		if (slot && __atomic_load_n(slot, __ATOMIC_RELAXED) == stub)
			__atomic_store_n(slot, real[i], __ATOMIC_RELEASE);
	}
	if (relro.hi > relro.lo &&
	    mprotect((void *)(uintptr_t)relro.lo, relro.hi - relro.lo, PROT_READ) < 0)
		ret = -errno;
	return ret;
}

int rt_plt_unhook(void)
{
	int ret = 0;

	for (struct rt_object *o = rt.objects; o; o = o->next)
		if ((o->flags & UTRACE_OBJ_LIBCALL) && o->stubs && plt_unhook_one(o) < 0)
			ret = -EPERM;
	return ret;
}
