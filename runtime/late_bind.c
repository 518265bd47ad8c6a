/* SPDX-License-Identifier: MIT */
/*
 * late_bind.c - the runtime's interposers made to apply in a process that
 * was running before the runtime came (utrace record -P, attach.c).
 *
 * Preloaded, the runtime's clone, swapcontext, _Unwind_RaiseException,
 * sigaction, close ... come before libc's in the global scope, and every
 * object's references bind to them.  dlopen'ed by an attach, they come
 * after: every GOT slot of the program and its libraries holds libc's
 * (libgcc_s's, libstdc++'s) already, and the interposers never run: a raw
 * clone() thread shares its creator's buffer and shadow stack unseen, an
 * exception unwinds through function_graph's return hook.  So, as plthook
 * and uftrace's dynamic mode do, before tracing is switched on the
 * relocations that bound those names are bound again, to ours:
 *
 *   every object (dl_iterate_phdr) but ourselves: its PT_DYNAMIC's DT_RELA
 *   and DT_JMPREL tables; a JUMP_SLOT, GLOB_DAT or 64 relocation whose
 *   symbol is a name of lb_names[] and whose word holds what a lookup of
 *   that name finds after us (dlsym(RTLD_NEXT): libc's) gets our function
 *   instead (dlsym of our own handle, which finds ours first).
 *
 * Not rebound, as LD_PRELOAD would not either: a word that holds another
 * value (the program's own function of that name, another version), a
 * name the executable itself defines.  The interposers reach the originals
 * through dlsym(RTLD_NEXT) as when preloaded: our own GOT is never touched.
 *
 * A word is one aligned 8-byte store, so a thread calling meanwhile takes
 * libc's function or ours, both right (ours only adds bookkeeping, and
 * passes through while tracing is off).  Words in PT_GNU_RELRO are made
 * writable for the stores and read-only again (as plt.c does).  Each store
 * is logged (word, old value, ours); the detach puts back every logged
 * word that still holds ours, object by object inside dl_iterate_phdr,
 * whose lock keeps an object from being unloaded meanwhile; an object
 * dlclose'd during the attach has left the list and is skipped.
 *
 * A word that cannot be written (a text relocation, mprotect refused, an
 * unaligned word) is said with its name and object, and the attach goes
 * no further: the process runs on untraced, never with an interposer that
 * half applies.  dlopen and dlclose are not rebound (attach.c: objects
 * loaded while attached are not traced), nor are objects loaded later.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/rt.h"

/* Every interposer the runtime exports but dlopen/dlclose. */
static const char *const lb_names[] = {
    "clone", "fork",						   /* init.c */
    "makecontext", "swapcontext", "setcontext",			   /* ucontext.c */
    "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",	   /* unwind.c */
    "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow", "_Unwind_ForcedUnwind",
    "__cxa_begin_catch", "_Unwind_Backtrace", "backtrace", "pthread_exit",
    "sigaction", "signal", "sigprocmask", "pthread_sigmask",	   /* trap_guard.c */
    "close", "closefrom", "close_range", "dup2", "dup3",	   /* fd_guard.c */
};
#define LB_N (sizeof(lb_names) / sizeof(lb_names[0]))

struct lb_word {
	uint64_t *at, old, ours, base;
};

static struct {
	uint64_t real[LB_N], ours[LB_N]; /* 0: the name is left alone */
	bool lazy_ok[LB_N];		 /* a lazy slot would be bound to real[] */
	uint64_t self;			 /* our load address */
	struct lb_word *log;
	size_t n, cap;
	const char *why; /* why the first word that could not be bound was not */
} lb;

/*
 * What our interposers call for each name (unwind.c's rt_next: libc's,
 * libgcc_s's ...) and our own (our handle finds us first).  A name the
 * executable defines stays 0 (it wins over a preload too); so does one
 * nothing else defines.  A lazy slot is bound only where the resolver
 * would bind it to that same function (the global scope's first
 * definition), not where it would find another object's of that name.
 */
static int lb_resolve(void)
{
	Dl_info self, di;
	void *h;

	if (!dladdr((void *)lb_resolve, &self) ||
	    !(h = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD)))
		return -ENOENT;
	lb.self = (uint64_t)(uintptr_t)self.dli_fbase;
	for (size_t i = 0; i < LB_N; i++) {
		void *real = rt_next(lb_names[i]), *ours = dlsym(h, lb_names[i]);
		struct link_map *lm = NULL;

		lb.real[i] = lb.ours[i] = 0;
		if (!real || !ours || real == ours)
			continue;
		if (dladdr1(real, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm && !lm->l_prev)
			continue;
		lb.real[i] = (uint64_t)(uintptr_t)real;
		lb.ours[i] = (uint64_t)(uintptr_t)ours;
		lb.lazy_ok[i] = dlsym(RTLD_DEFAULT, lb_names[i]) == real;
	}
	dlclose(h);
	return 0;
}

/* An object's dynamic tables, read from its PT_DYNAMIC (glibc relocates
 * the pointers in place, except where the section is read-only). */
struct lb_obj {
	const struct dl_phdr_info *info;
	const ElfW(Sym) *sym;
	const char *str;
	const ElfW(Rela) *rel[2];
	size_t nrel[2];
	uint64_t relro_lo, relro_hi;
};

static uint64_t lb_ptr(const struct dl_phdr_info *info, uint64_t v)
{
	return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

static bool lb_obj_read(const struct dl_phdr_info *info, struct lb_obj *o)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	const ElfW(Dyn) *d = NULL;

	memset(o, 0, sizeof(*o));
	o->info = info;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			d = (const ElfW(Dyn) *)(uintptr_t)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			o->relro_lo = (info->dlpi_addr + ph->p_vaddr) & ~(pg - 1);
			o->relro_hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(pg - 1);
		}
	}
	for (; d && d->d_tag != DT_NULL; d++) {
		uint64_t v = d->d_un.d_val;

		switch (d->d_tag) {
		case DT_SYMTAB: o->sym = (const void *)(uintptr_t)lb_ptr(info, v); break;
		case DT_STRTAB: o->str = (const void *)(uintptr_t)lb_ptr(info, v); break;
		case DT_RELA: o->rel[0] = (const void *)(uintptr_t)lb_ptr(info, v); break;
		case DT_RELASZ: o->nrel[0] = v / sizeof(ElfW(Rela)); break;
		case DT_JMPREL: o->rel[1] = (const void *)(uintptr_t)lb_ptr(info, v); break;
		case DT_PLTRELSZ: o->nrel[1] = v / sizeof(ElfW(Rela)); break;
		case DT_PLTREL: if (v != DT_RELA) o->nrel[1] = 0, o->rel[1] = NULL; break;
		}
	}
	return o->sym && o->str && (o->rel[0] || o->rel[1]);
}

/* Whether [at, at + 8) lies in a writable segment of the object. */
static bool lb_writable(const struct lb_obj *o, uint64_t at)
{
	for (int i = 0; i < o->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &o->info->dlpi_phdr[i];
		uint64_t lo = o->info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && at >= lo &&
		    at + 8 <= lo + ph->p_memsz)
			return true;
	}
	return false;
}

/*
 * Whether v, the word of a JUMP_SLOT, is still its lazy value: the PLT
 * entry of the object itself that calls the resolver, `push $n; jmp PLT0`
 * (or, with IBT, `endbr64; push $n; bnd jmp PLT0`).  The resolver would
 * bind it to the first definition in the scope; preloaded, that is ours.
 * (A resolver running for that slot in another thread at this instant
 * may still store libc's after us: that call is then not seen.)
 */
static bool lb_lazy(const struct lb_obj *o, uint64_t v)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	const uint8_t *p = (const uint8_t *)(uintptr_t)v;
	bool in_text = false;

	for (int i = 0; i < o->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &o->info->dlpi_phdr[i];
		uint64_t lo = o->info->dlpi_addr + ph->p_vaddr;

		in_text |= ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && v >= lo &&
			   v + 16 <= lo + ph->p_filesz;
	}
	if (!in_text)
		return false;
	if (!memcmp(p, endbr64, 4))
		p += 4;
	return p[0] == 0x68 && (p[5] == 0xe9 || (p[5] == 0xf2 && p[6] == 0xe9));
}

/* The index in lb_names of relocation r's symbol if it is one we bind. */
static int lb_which(const struct lb_obj *o, const ElfW(Rela) *r)
{
	uint32_t type = ELF64_R_TYPE(r->r_info), s = ELF64_R_SYM(r->r_info);
	const char *name;

	if (!s || (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64))
		return -1;
	name = o->str + o->sym[s].st_name;
	for (size_t i = 0; i < LB_N; i++)
		if (lb.ours[i] && !strcmp(name, lb_names[i]))
			return (int)i;
	return -1;
}

/* The first word that cannot be bound stops the attach: said once. */
static void lb_fail(const char *why, size_t i, const struct dl_phdr_info *info)
{
	const char *obj = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the program";
	char msg[200];

	if (lb.why)
		return;
	lb.why = why;
	snprintf(msg, sizeof(msg), "attach: cannot bind the runtime's %s in %s (%s): tracing is off",
		 lb_names[i], obj, why);
	rt_log(msg);
}

/* Calls fn(o, r, i, at) for every relocation of o that binds name i at at. */
static size_t lb_each(const struct lb_obj *o,
		      bool (*fn)(const struct lb_obj *, const ElfW(Rela) *, int, uint64_t))
{
	size_t n = 0;

	for (int t = 0; t < 2; t++)
		for (size_t k = 0; k < o->nrel[t]; k++) {
			const ElfW(Rela) *r = &o->rel[t][k];
			int i = lb_which(o, r);

			if (i >= 0 && fn(o, r, i, o->info->dlpi_addr + r->r_offset))
				n++;
		}
	return n;
}

static bool lb_in_relro(const struct lb_obj *o, uint64_t at)
{
	return at >= o->relro_lo && at < o->relro_hi;
}

/* Whether the word at at is libc's function i, to be bound: one we can
 * write, or a failure said. */
static bool lb_wanted(const struct lb_obj *o, const ElfW(Rela) *r, int i, uint64_t at)
{
	uint64_t v;

	if (!lb_writable(o, at)) {
		bool in_load = false;

		for (int k = 0; k < o->info->dlpi_phnum; k++) {
			const ElfW(Phdr) *ph = &o->info->dlpi_phdr[k];
			uint64_t lo = o->info->dlpi_addr + ph->p_vaddr;

			in_load |= ph->p_type == PT_LOAD && at >= lo && at + 8 <= lo + ph->p_memsz;
		}
		if (in_load && !memcmp((const void *)(uintptr_t)at, &lb.real[i], 8))
			lb_fail("a relocation in read-only code", (size_t)i, o->info);
		return false;
	}
	memcpy(&v, (const void *)(uintptr_t)at, 8);
	if (v != lb.real[i] &&
	    !(ELF64_R_TYPE(r->r_info) == R_X86_64_JUMP_SLOT && lb.lazy_ok[i] && lb_lazy(o, v)))
		return false;
	if (at & 7) {
		lb_fail("an unaligned word", (size_t)i, o->info);
		return false;
	}
	return true;
}

static bool lb_store(const struct lb_obj *o, const ElfW(Rela) *r, int i, uint64_t at)
{
	uint64_t *w = (uint64_t *)(uintptr_t)at;

	if (!lb_wanted(o, r, i, at) || lb.n == lb.cap)
		return false;
	lb.log[lb.n++] = (struct lb_word){w, __atomic_load_n(w, __ATOMIC_RELAXED), lb.ours[i],
					  o->info->dlpi_addr};
	__atomic_store_n(w, lb.ours[i], __ATOMIC_RELEASE);
	return true;
}

static bool lb_count_relro(const struct lb_obj *o, const ElfW(Rela) *r, int i, uint64_t at)
{
	return lb_in_relro(o, at) && lb_wanted(o, r, i, at);
}

static bool lb_grow(size_t more)
{
	struct lb_word *g;
	size_t cap = lb.cap ? lb.cap : 64;

	while (cap < lb.n + more)
		cap *= 2;
	if (cap == lb.cap)
		return true;
	if (!(g = realloc(lb.log, cap * sizeof(*g))))
		return false;
	lb.log = g;
	lb.cap = cap;
	return true;
}

static int lb_mprotect(const struct lb_obj *o, int prot)
{
	return mprotect((void *)(uintptr_t)o->relro_lo, o->relro_hi - o->relro_lo, prot);
}

/* dl_iterate_phdr: binds one object's words; 1 (stop) on a failure. */
static int lb_bind_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lb_obj o;
	size_t want, ro;

	(void)size;
	(void)arg;
	if (info->dlpi_addr == lb.self || !lb_obj_read(info, &o))
		return 0;
	want = lb_each(&o, lb_wanted);
	if (lb.why || !want)
		return lb.why != NULL;
	ro = lb_each(&o, lb_count_relro);
	if (!lb_grow(want)) {
		lb.why = "out of memory";
		rt_log("attach: no memory to bind the runtime's interposers: tracing is off");
		return 1;
	}
	if (ro && lb_mprotect(&o, PROT_READ | PROT_WRITE) < 0) {
		for (size_t i = 0; i < LB_N; i++)
			if (lb.ours[i]) {
				lb_fail("its RELRO pages cannot be made writable", i, info);
				break;
			}
		return 1;
	}
	lb_each(&o, lb_store);
	if (ro)
		lb_mprotect(&o, PROT_READ);
	return 0;
}

/* dl_iterate_phdr: puts back the logged words of one object that still
 * hold ours (the object is loaded, and stays so while this runs). */
static int lb_unbind_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	size_t *left = arg;
	struct lb_obj o;
	bool ro = false;

	(void)size;
	if (info->dlpi_addr == lb.self || !lb_obj_read(info, &o))
		return 0;
	for (size_t k = 0; k < lb.n; k++)
		ro |= lb.log[k].base == info->dlpi_addr &&
		      lb_in_relro(&o, (uint64_t)(uintptr_t)lb.log[k].at);
	if (ro && lb_mprotect(&o, PROT_READ | PROT_WRITE) < 0)
		return 0;
	for (size_t k = 0; k < lb.n; k++) {
		struct lb_word *w = &lb.log[k];

		if (w->base != info->dlpi_addr || !w->at ||
		    !lb_writable(&o, (uint64_t)(uintptr_t)w->at))
			continue;
		if (__atomic_load_n(w->at, __ATOMIC_RELAXED) == w->ours)
			__atomic_store_n(w->at, w->old, __ATOMIC_RELEASE);
		w->at = NULL;
		--*left;
	}
	if (ro)
		lb_mprotect(&o, PROT_READ);
	return 0;
}

/* Puts every bound word back: 0, or -EPERM if some object's could not be
 * made writable (its words keep ours, which pass through while dormant). */
int rt_late_unbind(void)
{
	size_t left = 0;

	for (size_t k = 0; k < lb.n; k++)
		left += lb.log[k].at != NULL;
	if (left)
		dl_iterate_phdr(lb_unbind_one, &left);
	/* what is left belonged to objects unloaded meanwhile, or unwritable */
	free(lb.log);
	lb.log = NULL;
	lb.n = lb.cap = 0;
	return left ? -EPERM : 0;
}

/*
 * Binds the interposers in every object loaded now: 0, or -1 (said to
 * the recorder, and every word bound so far put back) if one could not.
 * Called by the attach thread after its connection and before tracing
 * is switched on.
 */
int rt_late_bind(void)
{
	lb.why = NULL;
	if (lb_resolve() < 0) {
		rt_log("attach: the runtime cannot find its own interposers: tracing is off");
		return -1;
	}
	dl_iterate_phdr(lb_bind_one, NULL);
	if (lb.why) {
		rt_late_unbind();
		return -1;
	}
	return 0;
}
