/* SPDX-License-Identifier: MIT */
/*
 * runtime_path.c - libutrace.so lives next to the utrace binary (the
 * build tree), in ../lib (an installed tree: PREFIX/bin/utrace,
 * PREFIX/lib/libutrace.so), or where UTRACE_LIB says.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/runtime_path.h"

int utrace_runtime_path(char *out, size_t len)
{
	static const char *const rel[] = {"/libutrace.so", "/../lib/libutrace.so",
					  "/../lib/utrace/libutrace.so"};
	const char *env = getenv("UTRACE_LIB");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, R_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if ((size_t)snprintf(out, len, "%s%s", self, rel[i]) < len && !access(out, R_OK))
			return 0;
	return -1;
}
