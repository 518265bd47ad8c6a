/* SPDX-License-Identifier: MIT */
/*
 * sanitizer.c - a program's sanitizer runtime, found as the runtime
 * (runtime/sanitizer.c) finds it in the process: the hook defined in the
 * dynamic symbols of the program or of a library it loads at start.
 */
#include <elf.h>
#include <string.h>

#include "lib/elf/elf.h"
#include "lib/elf/sanitizer.h"

static bool sanitizer_in_file(const char *path)
{
	struct utrace_elf *elf;
	struct utrace_elf_section dynsym;
	bool found = false;

	if (utrace_elf_open(path, &elf) < 0)
		return false;
	if (utrace_elf_find_section(elf, ".dynsym", &dynsym) == 0) {
		size_t n = utrace_elf_sym_count(elf, &dynsym);

		for (size_t i = 0; i < n && !found; i++) {
			struct utrace_elf_sym s;

			found = utrace_elf_sym(elf, &dynsym, i, &s) == 0 && s.shndx != SHN_UNDEF &&
				!strcmp(s.name, UTRACE_SANITIZER_HOOK);
		}
	}
	utrace_elf_close(elf);
	return found;
}

bool utrace_sanitizer_find(const char *exe, const struct utrace_libdeps *deps)
{
	if (exe && sanitizer_in_file(exe))
		return true;
	for (size_t i = 0; deps && i < deps->n; i++)
		if (sanitizer_in_file(deps->paths[i]))
			return true;
	return false;
}
