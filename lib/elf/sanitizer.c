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

static const char *const sanitizer_hooks[] = {
    "__asan_set_error_report_callback",
    "__ubsan_get_current_report_data",
    "__tsan_get_report_data",
    "__msan_init",
    "__lsan_do_leak_check",
};

static bool sanitizer_in_table(struct utrace_elf *elf, const char *name)
{
	struct utrace_elf_section tab;
	size_t n;

	if (utrace_elf_find_section(elf, name, &tab) < 0)
		return false;
	n = utrace_elf_sym_count(elf, &tab);
	for (size_t i = 0; i < n; i++) {
		struct utrace_elf_sym s;

		if (utrace_elf_sym(elf, &tab, i, &s) < 0 || s.shndx == SHN_UNDEF ||
		    strncmp(s.name, "__", 2))
			continue;
		for (size_t k = 0; k < sizeof(sanitizer_hooks) / sizeof(sanitizer_hooks[0]); k++)
			if (!strcmp(s.name, sanitizer_hooks[k]))
				return true;
	}
	return false;
}

static bool sanitizer_in_file(const char *path)
{
	struct utrace_elf *elf;
	bool found;

	if (utrace_elf_open(path, &elf) < 0)
		return false;
	found = sanitizer_in_table(elf, ".dynsym") || sanitizer_in_table(elf, ".symtab");
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
