/* SPDX-License-Identifier: MIT */
/*
 * bt_libpath.c - a uprobe target named "libNAME" (uprobe:libc:fread) is
 * the library the dynamic linker would load for it, as bpftrace finds it
 * (bcc_procutils_which_so): the first entry of /etc/ld.so.cache whose
 * name starts with "libNAME.so" and that is a 64-bit x86-64 libc6
 * library.  The cache is glibc's "glibc-ld.so.cache1.1" format (the only
 * one glibc 2.32+ writes): a header, then entries of flags, the name's
 * and the path's offsets in the file, OS version and hwcaps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt_ast.h"

#define CACHE_MAGIC "glibc-ld.so.cache1.1"
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_X8664_LIB64 0x0300
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_REQUIRED_MASK 0xff00

struct cache_head {
	char magic[20];
	uint32_t nlibs, len_strings;
	uint8_t flags, pad[3];
	uint32_t ext_offset, unused[3];
};

struct cache_entry {
	int32_t flags;
	uint32_t key, value; /* the name's and the path's offsets in the file */
	uint32_t osversion;
	uint64_t hwcap;
};

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

char *bt_which_so(const char *name, const char *cache)
{
	const struct cache_head *h;
	char want[256], *buf, *path = NULL;
	size_t len = 0, wlen;

	if (!(buf = read_all(cache ? cache : "/etc/ld.so.cache", &len)))
		return NULL;
	snprintf(want, sizeof(want), "lib%s.so", name);
	wlen = strlen(want);
	h = (const struct cache_head *)buf;
	if (len < sizeof(*h) || memcmp(h->magic, CACHE_MAGIC, sizeof(h->magic)) ||
	    h->nlibs > (len - sizeof(*h)) / sizeof(struct cache_entry)) {
		free(buf);
		return NULL;
	}
	for (uint32_t i = 0; i < h->nlibs && !path; i++) {
		struct cache_entry e;

		memcpy(&e, buf + sizeof(*h) + i * sizeof(e), sizeof(e));
		if (e.key >= len || e.value >= len ||
		    (e.flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (e.flags & FLAG_REQUIRED_MASK) != FLAG_X8664_LIB64)
			continue;
		/* the file ends in a NUL (read_all): a string at an offset ends */
		if (!strncmp(buf + e.key, want, wlen))
			path = strdup(buf + e.value);
	}
	free(buf);
	return path;
}
