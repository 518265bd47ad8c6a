/* SPDX-License-Identifier: MIT */
/*
 * cc_probe.h - what a C compiler is and does, for `utrace cflags`: its
 * family and version from "CC --version", whether gcc links its call-site
 * records per file (the COMDAT problem of docs/utrace-cflags.md), and
 * where utrace's own files are relative to the running tool.
 */
#ifndef UTRACE_LIB_CC_PROBE_H
#define UTRACE_LIB_CC_PROBE_H

#include <stdbool.h>
#include <stddef.h>

enum utrace_cc_family { UTRACE_CC_UNKNOWN, UTRACE_CC_GCC, UTRACE_CC_CLANG };

struct utrace_cc_info {
	enum utrace_cc_family family;
	int major; /* 0 if unknown */
};

/* Runs "CC --version" (through the shell: CC may be "ccache gcc"); 0, or
 * -1 if it could not run. */
int utrace_cc_probe(const char *cc, struct utrace_cc_info *info);
/* Whether gcc, given flags, writes every __patchable_function_entries
 * record of a file into one section linked to the file's first function
 * (gcc 12): compiles two functions in sections of their own and looks. */
bool utrace_cc_links_one_section(const char *cc, const char *flags);
/* The first of the folders rel[] (relative to the running tool's own
 * folder, /proc/self/exe) that holds leaf (access mode), resolved into
 * out. */
bool utrace_find_near_self(const char *const *rel, size_t nrel, const char *leaf, int mode,
			   char *out, size_t len);

#endif
