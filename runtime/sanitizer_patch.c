/* SPDX-License-Identifier: MIT */
/*
 * sanitizer_patch.c - a sanitizer runtime's empty report hook made to
 * jump to ours (sanitizer.c), where no setter exists.
 *
 * UBSan and TSan call a weak function at every report, with the report
 * current (__ubsan_on_report(), __tsan_on_report(rep)); the program may
 * define it, else the runtime's empty default runs.  A preloaded
 * definition cannot replace it in clang's runtimes, linked into the
 * program where the call binds at link time; so the default's entry is
 * patched, in gcc's shared runtimes and clang's static ones alike, into
 * `jmp stub`, a stub within rel32 reach that jumps to our hook: ours then
 * runs as the callee, with its arguments, and returns to the runtime.
 *
 * Only a function that is exactly empty is patched: `ret`, or `endbr64;
 * ret` (5 bytes, the jmp's size), or a `ret` at a 16-byte boundary
 * followed by alignment padding (nop or int3 bytes) for the jmp's other
 * four bytes.  A program's own hook has a body: it is left alone, and
 * so ours does not run.  The patch is made once, at start, through
 * text_poke.c, before the program runs a report; it is never undone.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/x86_64/insn.h"
#include "lib/elf/elf.h"
#include "runtime/rt.h"

/* An alignment padding byte: a nop's opcode, prefix or operand, or int3. */
static bool patch_padding(uint8_t b)
{
	return b == 0x90 || b == 0x66 || b == 0x2e || b == 0x0f || b == 0x1f || b == 0x84 ||
	       b == 0x00 || b == 0x44 || b == 0x40 || b == 0x80 || b == 0xcc;
}

/* Whether the 5 bytes at p are an empty function and what may follow it. */
static bool patch_empty(const uint8_t *p)
{
	static const uint8_t endbr_ret[5] = {0xf3, 0x0f, 0x1e, 0xfa, 0xc3};

	if (!memcmp(p, endbr_ret, 5))
		return true;
	if (p[0] != 0xc3 || ((uintptr_t)p & 15))
		return false;
	for (int i = 1; i < 5; i++)
		if (!patch_padding(p[i]))
			return false;
	return true;
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1; /* the first is the main program */
}

/* A function the main program defines but does not export (clang's
 * static runtime keeps some hooks out of .dynsym): from its .symtab. */
static void *patch_symtab(const char *name)
{
	struct utrace_elf *elf;
	struct utrace_elf_section symtab;
	uint64_t bias = 0, found = 0;

	if (utrace_elf_open("/proc/self/exe", &elf) < 0)
		return NULL;
	if (utrace_elf_find_section(elf, ".symtab", &symtab) == 0) {
		size_t n = utrace_elf_sym_count(elf, &symtab);

		for (size_t i = 0; i < n && !found; i++) {
			struct utrace_elf_sym s;

			if (utrace_elf_sym(elf, &symtab, i, &s) == 0 && s.shndx &&
			    s.type == STT_FUNC && !strcmp(s.name, name))
				found = s.value;
		}
	}
	utrace_elf_close(elf);
	if (found)
		dl_iterate_phdr(main_bias, &bias);
	return found ? (void *)(uintptr_t)(found + bias) : NULL;
}

void *rt_sanitizer_sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	return p ? p : patch_symtab(name);
}

int rt_sanitizer_patch(const char *name, void *hook)
{
	uint8_t *entry = rt_sanitizer_sym(name), *stub;
	struct rt_poke poke;

	if (!entry)
		return 0; /* not this sanitizer */
	if (!patch_empty(entry)) {
		rt_log("a sanitizer's report hook is the program's own: its reports are no events");
		return -1;
	}
	stub = rt_map_near((uint64_t)(uintptr_t)entry, (uint64_t)(uintptr_t)entry + 5, 64);
	if (!stub)
		return -1;
	/* jmp *0(%rip); .quad hook */
	stub[0] = 0xff;
	stub[1] = 0x25;
	memset(stub + 2, 0, 4);
	memcpy(stub + 6, &hook, sizeof(hook));
	if (mprotect(stub, 64, PROT_READ | PROT_EXEC) < 0)
		return -1;
	poke.addr = entry;
	insn_rel32(poke.bytes, INSN_JMP, (uint64_t)(uintptr_t)entry, (uint64_t)(uintptr_t)stub);
	return rt_text_poke_batch(&poke, 1) < 0 ? -1 : 1;
}
