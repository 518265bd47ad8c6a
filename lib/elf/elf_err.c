/* SPDX-License-Identifier: MIT */
/*
 * elf_err.c - utrace_elf_open_err: an ELF file opened, or the one-line
 * error that says which and why.  Apart from elf.c because the runtime
 * links elf.c and has no struct utrace_error.
 */
#include <string.h>

#include "lib/elf/elf.h"

int utrace_elf_open_err(const char *path, struct utrace_elf **out, struct utrace_error *err)
{
	const char *why = NULL;
	int ret = utrace_elf_open_why(path, out, &why);

	if (ret < 0)
		return utrace_error_set(err, ret, "%s: %s", path, why ? why : strerror(-ret));
	return 0;
}
