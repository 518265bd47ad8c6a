/* SPDX-License-Identifier: MIT */
/*
 * syscall_names.c - system call numbers to names.  The table is made by the
 * build from <asm/unistd.h> (the Makefile's build-gen/syscall_table.h: one
 * `[NR] = "name",` line per __NR_ macro the preprocessor defines), as perf
 * makes its own from the kernel's syscall table: never typed by hand, and
 * always the architecture the tool is built for.
 */
#include <stddef.h>

#include "lib/base/syscall_names.h"

static const char *const names[] = {
#include "syscall_table.h"
};

const char *utrace_syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[nr];
}
