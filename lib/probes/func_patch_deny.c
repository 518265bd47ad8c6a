/* SPDX-License-Identifier: MIT */
/*
 * func_patch_deny.c - the functions of an uninstrumented object that no
 * detour may take, whatever their bytes say, and the language runtimes
 * whose return addresses function_graph must leave alone
 * (lib/probes/func_patch.h, enum utrace_fpatch_runtime).
 *
 * The detour runs the tracer's C code on the thread's stack before the
 * function's first instruction, and function_graph replaces its return
 * address.  Both assume the C calling convention and a stack that nobody
 * but the program's own code reads.  Some runtimes break that:
 *
 *   Go       Every function of Go's text (the entries its .gopclntab
 *            lists: Go and Go assembly) runs on a goroutine stack of a
 *            few KiB that the runtime checks in each prologue, grows by
 *            copying and walks by return address (tracebacks, GC, stack
 *            copy); its calling convention keeps the goroutine in R14 and
 *            a zero X15 and calls code at goexit+1.  No C code can run
 *            there: those functions are left out (RUNTIME), the C code of
 *            cgo (on the thread's system stack) is not.
 *   V8       Its builtins (Builtins_*, the embedded blob) are assembled
 *            with V8's own register conventions, entered at computed
 *            offsets, and the blob may be copied elsewhere at run time
 *            (with our jmp inside): left out (RUNTIME).  V8 walks the
 *            frames of its stack by return address, C++ ones called from
 *            its builtins included.
 *   HotSpot  The JVM walks its own stack (frame::sender), C++ frames
 *            included; its functions follow the C convention and are
 *            detoured like any other's.
 *
 * For all three the plan's runtime is set, and function_graph traces the
 * object's functions at their entry only (UTRACE_SITE_ENTRY_ONLY).
 *
 * One pattern is refused in any object (INSIDE): a function whose first
 * instruction is a nop followed by a call.  The nop exists only to give
 * the call an address of its own that code jumps or returns to (Go's
 * goexit: every goroutine "returns" to goexit+1); no branch in the file
 * names it, so the target check of func_patch.c cannot see it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/probes/func_patch.h"
#include "lib/probes/func_patch_deny.h"
#include "lib/probes/inproc_probe_internal.h"

/* .gopclntab's pcHeader magics: Go 1.16-1.17, 1.18-1.19, 1.20+ */
#define GO_PCLN_116 0xfffffffau
#define GO_PCLN_118 0xfffffff0u
#define GO_PCLN_120 0xfffffff1u

/*
 * Go's function table, read from the file (funcs NULL: none readable):
 * nfunc {entry, funcoff} pairs by address, funcoff the offset of the
 * function's _func from the table's start.  Internal linking lists the
 * C functions of cgo there too, with no pc tables (pcsp, pcfile, pcln 0):
 * those are C.
 */
struct go_tab {
	const uint8_t *funcs; /* nfunc entries of esz bytes */
	uint64_t nfunc, text; /* text: what entries are relative to (1.18+) */
	uint64_t vaddr;	      /* of funcs */
	unsigned esz;	      /* 8 (uint32 pairs, 1.18+) or 16 (uintptr pairs) */
	unsigned pcsp;	      /* offset of pcsp, pcfile, pcln in a _func */
};

static const uint8_t *fd_bytes(const struct upr_file *f, uint64_t vaddr, uint64_t size)
{
	uint64_t off;

	if (upr_vaddr_to_offset(f, vaddr, &off) < 0)
		return NULL;
	return utrace_elf_data(f->elf, off, size);
}

static uint64_t fd_word(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);
	return v;
}

/* Whether the object was made by Go's linker. */
static bool fd_is_go(const struct upr_file *f)
{
	struct utrace_elf_section sec;
	uint64_t v, size;

	return utrace_elf_find_section(f->elf, ".note.go.buildid", &sec) == 0 ||
	       utrace_elf_find_section(f->elf, ".go.buildinfo", &sec) == 0 ||
	       upr_find_symbol(f, "runtime.pclntab", false, &v, &size) > 0;
}

/* The function table of runtime.pclntab; false if it cannot be read. */
static bool fd_go_tab(const struct upr_file *f, struct go_tab *g)
{
	uint64_t pcln, size, off, text_sym = 0, tsize;
	const uint8_t *h;
	uint32_t magic;

	if (upr_find_symbol(f, "runtime.pclntab", false, &pcln, &size) <= 0 ||
	    !(h = fd_bytes(f, pcln, 72)))
		return false;
	upr_find_symbol(f, "runtime.text", false, &text_sym, &tsize);
	magic = (uint32_t)fd_word(h, 4);
	if (h[7] != 8)
		return false; /* ptrSize */
	g->nfunc = fd_word(h + 8, 8);
	if (magic == GO_PCLN_118 || magic == GO_PCLN_120) {
		g->text = fd_word(h + 24, 8);
		if (!g->text) /* a position-independent file: relocated at load */
			g->text = text_sym;
		off = fd_word(h + 64, 8);
		g->esz = 8;
		g->pcsp = 16;
	} else if (magic == GO_PCLN_116) {
		g->text = 0;
		off = fd_word(h + 56, 8);
		g->esz = 16;
		g->pcsp = 20;
	} else {
		return false;
	}
	if (!g->nfunc || g->nfunc > (1u << 24))
		return false;
	g->vaddr = pcln + off;
	g->funcs = fd_bytes(f, g->vaddr, g->nfunc * g->esz);
	return g->funcs != NULL;
}

static uint64_t fd_go_entry(const struct go_tab *g, uint64_t i)
{
	return g->text + fd_word(g->funcs + i * g->esz, g->esz / 2);
}

/* Whether entry i has Go's pc tables (a _func that cannot be read: Go). */
static bool fd_go_tables(const struct upr_file *f, const struct go_tab *g, uint64_t i)
{
	uint64_t funcoff = fd_word(g->funcs + i * g->esz + g->esz / 2, g->esz / 2);
	const uint8_t *fn = fd_bytes(f, g->vaddr + funcoff + g->pcsp, 12);

	return !fn || fd_word(fn, 4) || fd_word(fn + 4, 4) || fd_word(fn + 8, 4);
}

/* Whether a Go function starts at vaddr (the table is by address). */
static bool fd_go_func(const struct upr_file *f, const struct go_tab *g, uint64_t vaddr)
{
	uint64_t lo = 0, hi = g->nfunc;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, e = fd_go_entry(g, mid);

		if (e == vaddr)
			return fd_go_tables(f, g, mid);
		if (e < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool fd_v8_builtin(const char *name)
{
	return !strncmp(name, "Builtins_", 9) || !strncmp(name, "v8_Default_embedded_blob", 24) ||
	       !strcmp(name, "v8_code_start_for_profiler_");
}

/* A nop, then a call: the call's own address is an entry (goexit+1). */
static bool fd_nop_then_call(const struct upr_file *f, const struct utrace_fpatch_func *fn)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint64_t size = fn->size < 32 ? fn->size : 32, at = 0;
	const uint8_t *code = fd_bytes(f, fn->func, size);

	if (!code)
		return false;
	if (size > 4 && !memcmp(code, endbr64, 4))
		at = 4;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (at >= size || ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + at, size - at, &in, ops)) ||
	    in.mnemonic != ZYDIS_MNEMONIC_NOP)
		return false;
	at += in.length;
	return at < size &&
	       ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + at, size - at, &in, ops)) &&
	       in.meta.category == ZYDIS_CATEGORY_CALL;
}

unsigned fp_runtime(const struct upr_file *f, const struct utrace_symtab *tab)
{
	uint64_t v, size;

	if (fd_is_go(f))
		return UTRACE_FPATCH_RT_GO;
	if (upr_find_symbol(f, "gHotSpotVMStructs", false, &v, &size) > 0)
		return UTRACE_FPATCH_RT_HOTSPOT;
	/* V8 itself: its builtins' symbols, or (a stripped libnode) the
	 * v8::Isolate of its API */
	for (size_t i = 0, n = tab ? utrace_symtab_count(tab) : 0; i < n; i++) {
		const char *name = utrace_symtab_get(tab, i)->name;

		if (fd_v8_builtin(name) || !strncmp(name, "v8::Isolate::", 13))
			return UTRACE_FPATCH_RT_V8;
	}
	return UTRACE_FPATCH_RT_NONE;
}

void fp_deny(const struct upr_file *f, struct utrace_fpatch_plan *plan)
{
	struct go_tab g = {0};
	bool go_all;

	plan->runtime = fp_runtime(f, plan->tab);
	/* a Go object whose table cannot be read: none of it is known C */
	go_all = plan->runtime == UTRACE_FPATCH_RT_GO && !fd_go_tab(f, &g);
	for (size_t i = 0; i < plan->n; i++) {
		struct utrace_fpatch_func *fn = &plan->f[i];

		if (fn->why == UTRACE_FPATCH_PART)
			continue;
		if (go_all || (g.funcs && fd_go_func(f, &g, fn->func)) ||
		    (plan->runtime == UTRACE_FPATCH_RT_V8 && fd_v8_builtin(fn->name)))
			fn->why = UTRACE_FPATCH_RUNTIME;
		else if (fd_nop_then_call(f, fn))
			fn->why = UTRACE_FPATCH_INSIDE;
	}
}

const char *utrace_fpatch_runtime_text(unsigned runtime)
{
	switch (runtime) {
	case UTRACE_FPATCH_RT_GO:
		return "Go";
	case UTRACE_FPATCH_RT_HOTSPOT:
		return "HotSpot (the JVM)";
	case UTRACE_FPATCH_RT_V8:
		return "V8";
	default:
		return NULL;
	}
}

unsigned utrace_fpatch_runtime_of(const char *path)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_error err;
	struct upr_file f;
	unsigned rt;

	if (upr_file_open(path, &f, NULL) < 0)
		return UTRACE_FPATCH_RT_NONE;
	if (utrace_symtab_load_elf(f.elf, &tab, &err) < 0)
		tab = NULL;
	rt = fp_runtime(&f, tab);
	utrace_symtab_free(tab);
	upr_file_close(&f);
	return rt;
}
