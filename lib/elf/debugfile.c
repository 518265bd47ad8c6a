/* SPDX-License-Identifier: MIT */
/*
 * debugfile.c - the separate debug file of an ELF object, found by its
 * GNU build id as gdb and bcc find it:
 * /usr/lib/debug/.build-id/NN/REST.debug (NN the id's first byte in hex,
 * REST the others).  A distribution strips its libraries down to .dynsym
 * and ships their full .symtab (the local functions, the versioned names
 * such as fopen@@GLIBC_2.2.5) there, at the same addresses (libc6-dbg for
 * glibc).  Whoever names a library's functions - bpftrace's uprobe
 * listing and attach through bcc, a stack's symbols - reads both.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "lib/elf/elf.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

int utrace_elf_debug_path(const struct utrace_elf *elf, char *buf, size_t size)
{
	struct stat self, dbg;
	uint8_t id[64];
	int len = utrace_elf_build_id(elf, id, sizeof(id));
	size_t k;

	if (len < 2 || size < sizeof(DEBUG_DIR) + 2 * sizeof(id) + 8)
		return -ENOENT;
	k = (size_t)snprintf(buf, size, DEBUG_DIR "%02x/", id[0]);
	for (int i = 1; i < len; i++)
		k += (size_t)snprintf(buf + k, size - k, "%02x", id[i]);
	snprintf(buf + k, size - k, ".debug");
	if (stat(buf, &dbg) < 0 || !S_ISREG(dbg.st_mode))
		return -ENOENT;
	/* the debug file itself has the same build id: it has none but itself */
	if (stat(utrace_elf_path(elf), &self) == 0 && self.st_dev == dbg.st_dev &&
	    self.st_ino == dbg.st_ino)
		return -ENOENT;
	return 0;
}

int utrace_elf_open_debug(const struct utrace_elf *elf, struct utrace_elf **out)
{
	char path[sizeof(DEBUG_DIR) + 160];

	*out = NULL;
	if (utrace_elf_debug_path(elf, path, sizeof(path)) < 0)
		return -ENOENT;
	return utrace_elf_open(path, out);
}
