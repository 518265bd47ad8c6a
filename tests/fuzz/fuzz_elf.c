/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.c - the ELF readers on arbitrary files: sections, symbols,
 * relocations, the instrumented call sites (lib/elf/elf.h, callsite.h),
 * the function table (symtab.h), the static tracepoints of the
 * __utrace_events section (lib/events/event_format.h) and the USDT notes
 * with the uprobes made from them (lib/probes/usdt.h), the FDE ranges of
 * .eh_frame (lib/elf/eh_frame.h) and the entry-patching plan with its
 * relocated detours (lib/probes/func_patch.h).  `utrace list` and
 * `utrace record` read whatever file they are given, and libutrace.so
 * reads every object the program loads: a corrupt file must be refused
 * with an error, never read out of bounds.
 */
#include <elf.h>

#include "lib/elf/callsite.h"
#include "lib/elf/eh_frame.h"
#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/events/event_format.h"
#include "lib/probes/func_patch.h"
#include "lib/probes/usdt.h"
#include "tests/fuzz/fuzz.h"

/* Reading every symbol of a huge table is slow, not wrong: cap it. */
#define MAX_ITEMS 4096

static void section(const struct utrace_elf *elf, const struct utrace_elf_section *sec)
{
	struct utrace_elf_rela r;
	struct utrace_elf_sym sym;
	size_t n;

	(void)utrace_elf_section_data(elf, sec);
	if (sec->type == SHT_SYMTAB || sec->type == SHT_DYNSYM) {
		n = utrace_elf_sym_count(elf, sec);
		for (size_t i = 0; i < n && i < MAX_ITEMS; i++)
			if (utrace_elf_sym(elf, sec, i, &sym) == 0 && !sym.name)
				abort();
	} else if (sec->type == SHT_RELA) {
		n = utrace_elf_rela_count(elf, sec);
		for (size_t i = 0; i < n && i < MAX_ITEMS; i++)
			(void)utrace_elf_rela(elf, sec, i, &r);
	}
}

static void nop_entry(void *arg, uint64_t vaddr)
{
	++*(size_t *)arg;
}

/* an import always has a name (utrace_elf_imports skips nameless ones) */
static int import_one(void *arg, const struct utrace_elf_import *imp)
{
	if (!imp->name || !imp->name[0])
		abort();
	++*(size_t *)arg;
	return 0;
}

/* The FDE ranges: sorted, one per start. */
static void fde_ranges(const struct utrace_elf *elf)
{
	struct utrace_fde_range *r;
	size_t n;

	if (utrace_elf_fde_ranges(elf, &r, &n) < 0)
		return;
	for (size_t i = 1; i < n; i++)
		if (r[i - 1].start >= r[i].start)
			abort();
	free(r);
}

/* The plan, and the detour of every patchable entry (slot near it). */
static void fpatch(const char *path)
{
	struct utrace_fpatch_plan p;
	struct utrace_error err = {0};
	uint8_t xol[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len;

	if (utrace_fpatch_plan(path, &p, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	for (size_t i = 0; i < p.n && i < MAX_ITEMS; i++) {
		const struct utrace_fpatch_func *f = &p.f[i];

		if (f->why >= UTRACE_FPATCH_NWHY || f->int3 >= UTRACE_FPATCH_NWHY ||
		    (f->int3 && f->why != UTRACE_FPATCH_OK))
			abort();
		/* an int3 entry displaces its first instruction, a jmp 5+ bytes */
		if (f->why == UTRACE_FPATCH_OK &&
		    ((f->int3 ? f->len == 0 : f->len < 5) || f->len > UTRACE_FPATCH_CODE ||
		     utrace_fpatch_relocate(f, 0, f->addr + 4096, xol, sizeof(xol), cfi, &cfi_len) >
			 sizeof(xol) ||
		     (cfi_len != UINT32_MAX && cfi_len > UTRACE_FPATCH_CFI)))
			abort();
	}
	utrace_fpatch_plan_free(&p);
}

static void elf_file(const char *path)
{
	struct utrace_elf_section sec;
	struct utrace_symtab *tab;
	struct utrace_error err = {0};
	struct utrace_elf *elf;
	const char *why = NULL, *name;
	uint64_t *sites = NULL, off;
	size_t n = 0, extra = 0, count = 0;
	unsigned kind;

	if (utrace_elf_open_why(path, &elf, &why) < 0)
		return;
	for (size_t i = 0; i < utrace_elf_section_count(elf); i++)
		if (utrace_elf_section(elf, i, &sec, &name) == 0 && name)
			section(elf, &sec);
	(void)utrace_elf_find_section(elf, ".text", &sec);
	(void)utrace_elf_nop_entries(elf, nop_entry, &count);
	if (utrace_elf_imports(elf, import_one, &count) < 0)
		abort(); /* only the callback may fail it */
	if (utrace_elf_call_sites(elf, &sites, &n, &kind, &extra, &err) < 0 && !err.msg[0])
		abort();
	free(sites);
	fde_ranges(elf);
	if (utrace_symtab_load_elf(elf, &tab, &err) == 0) {
		for (size_t i = 0; i < utrace_symtab_count(tab) && i < MAX_ITEMS; i++) {
			const struct utrace_sym *s = utrace_symtab_get(tab, i);

			if (utrace_symtab_lookup(tab, s->vaddr, &off) == NULL)
				abort(); /* a function must contain its own start */
		}
		utrace_symtab_free(tab);
	} else if (!err.msg[0]) {
		abort();
	}
	utrace_elf_close(elf);
}

static void events(const char *path)
{
	struct utrace_event_list *l;
	struct utrace_error err = {0};
	char *text;

	if (utrace_event_list_load(path, &l, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	for (unsigned i = 0; i < utrace_event_list_count(l); i++) {
		text = utrace_event_format_text(utrace_event_list_get(l, i), (int)i);
		if (!text)
			abort();
		free(text);
	}
	utrace_event_list_free(l);
}

static void usdt(const char *path)
{
	struct utrace_usdt_list *l;
	struct utrace_uprobe *p;
	struct utrace_error err = {0};
	char buf[512];

	if (utrace_usdt_load(path, &l, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	for (size_t i = 0; i < utrace_usdt_count(l) && i < 64; i++) {
		(void)utrace_usdt_fetchargs(l, i, buf, sizeof(buf), &err);
		if (utrace_usdt_to_uprobe(l, i, NULL, NULL, &p, &err) == 0)
			utrace_uprobe_free(p);
	}
	utrace_usdt_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);

	elf_file(path);
	fpatch(path);
	events(path);
	usdt(path);
	return 0;
}
