/* SPDX-License-Identifier: MIT */
/*
 * late_bind.c - what a program sees of runtime/late_bind.c: where its own
 * GOT slots for swapcontext (the PLT's JUMP_SLOT, called once before so
 * that it is bound) and clone (never called: a lazy JUMP_SLOT, unless
 * linked with -z now) lead, printed each time that changes, as
 * "swapcontext OBJ clone OBJ" (OBJ: the file name of the object the slot
 * points into).  Runs until the file argv[1] exists (at most 120 s).
 * Attached to, the slots lead to libutrace.so; detached, back where they
 * were.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static ucontext_t main_ctx, co_ctx;
static char co_stack[16384];

static void co_fn(void)
{
	swapcontext(&co_ctx, &main_ctx);
}

/* The address of main's JUMP_SLOT for name, found from its PT_DYNAMIC. */
static int find_slot(struct dl_phdr_info *info, size_t size, void *arg)
{
	void **want = arg; /* in: the name; out: the slot */
	const ElfW(Sym) *sym = NULL;
	const ElfW(Rela) *rel = NULL;
	const char *str = NULL;
	size_t n = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *d;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		for (d = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag; d++) {
			if (d->d_tag == DT_SYMTAB)
				sym = (const void *)d->d_un.d_ptr;
			if (d->d_tag == DT_STRTAB)
				str = (const void *)d->d_un.d_ptr;
			if (d->d_tag == DT_JMPREL)
				rel = (const void *)d->d_un.d_ptr;
			if (d->d_tag == DT_PLTRELSZ)
				n = d->d_un.d_val / sizeof(*rel);
		}
	}
	for (size_t k = 0; rel && k < n; k++)
		if (!strcmp(str + sym[ELF64_R_SYM(rel[k].r_info)].st_name, *want)) {
			*want = (void *)(info->dlpi_addr + rel[k].r_offset);
			return 1;
		}
	*want = NULL;
	return 1; /* the first object is the program */
}

static const char *owner(const char *name)
{
	void *slot = (void *)name;
	Dl_info di;
	const char *f;

	dl_iterate_phdr(find_slot, &slot);
	if (!slot)
		return "none";
	if (!dladdr(*(void *volatile *)slot, &di) || !di.dli_fname)
		return "?";
	f = strrchr(di.dli_fname, '/');
	return f ? f + 1 : "program";
}

int main(int argc, char **argv)
{
	char last[256] = "", now[256];
	struct timespec ms = {0, 2000000};

	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	makecontext(&co_ctx, co_fn, 0);
	swapcontext(&main_ctx, &co_ctx); /* its slot bound to libc's */
	if (argc > 99) /* never: the slot stays lazy */
		clone(NULL, NULL, 0, NULL);
	for (int i = 0; i < 60000 && (argc < 2 || access(argv[1], F_OK)); i++) {
		snprintf(now, sizeof(now), "swapcontext %s clone %s", owner("swapcontext"),
			 owner("clone"));
		if (strcmp(now, last)) {
			printf("%s\n", now);
			fflush(stdout);
			strcpy(last, now);
		}
		nanosleep(&ms, NULL);
	}
	return 0;
}
