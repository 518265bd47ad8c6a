/* SPDX-License-Identifier: MIT */
/*
 * elf_tools.h - what binutils says about a fixture, for tests that must
 * not take lib/elf/elf.c's word for it: a symbol's address from nm(1), the
 * file offset of an address from the LOAD lines of readelf -lW, and any
 * command's output.  Header-only, like check.h.
 */
#ifndef UTRACE_TESTS_ELF_TOOLS_H
#define UTRACE_TESTS_ELF_TOOLS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The output of a shell command (malloc'ed), or NULL. */
static inline char *run(const char *cmd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	FILE *p = popen(cmd, "r");
	size_t n;

	if (!buf || !p) {
		free(buf);
		if (p)
			pclose(p);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = 0;
	pclose(p);
	return buf;
}

/* A symbol's vaddr from nm; 0 if absent. */
static inline uint64_t nm_addr(const char *path, const char *sym)
{
	char cmd[512], *out, *line, *save = NULL;
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	out = run(cmd);
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line && !v;
	     line = strtok_r(NULL, "\n", &save)) {
		char type, name[256];
		unsigned long long a;

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, sym))
			v = a;
	}
	free(out);
	return v;
}

/* vaddr -> file offset from readelf -lW's LOAD lines; ~0 if none. */
static inline uint64_t readelf_offset(const char *path, uint64_t vaddr)
{
	char cmd[512], *out, *line, *save = NULL;
	uint64_t off = ~0ull;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' 2>/dev/null", path);
	out = run(cmd);
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long o, va, pa, fsz, msz;

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx", &o, &va, &pa, &fsz,
			   &msz) == 5 &&
		    vaddr >= va && vaddr < va + fsz)
			off = vaddr - va + o;
	}
	free(out);
	return off;
}

#endif
