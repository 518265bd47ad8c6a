/* SPDX-License-Identifier: MIT */
/*
 * cc_probe.c - what a C compiler is and does (cc_probe.h), moved from
 * cmds/cflags.c so that the command only parses and prints.  The compiler
 * is run through popen(): CC may be a command line ("ccache gcc").
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/cc_probe.h"

/* First number after marker in text, 0 if none. */
static int version_after(const char *text, const char *marker)
{
	const char *p = strstr(text, marker);

	if (!p)
		return 0;
	p += strlen(marker);
	return atoi(p);
}

/* gcc's first line ends with its version: "gcc (Debian 12.2.0-14) 12.2.0". */
static int gcc_major(const char *text)
{
	size_t len = strcspn(text, "\n");

	while (len > 0 && text[len - 1] != ' ')
		len--;
	return atoi(text + len);
}

/* Runs "CC --version"; 0, or -1 if it could not run. */
int utrace_cc_probe(const char *cc, struct utrace_cc_info *info)
{
	char cmd[4096], out[4096];
	size_t len = 0, r;
	FILE *p;
	int status;

	info->family = UTRACE_CC_UNKNOWN;
	info->major = 0;
	if (snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", cc) >= (int)sizeof(cmd))
		return -1;
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len < sizeof(out) - 1 && (r = fread(out + len, 1, sizeof(out) - 1 - len, p)) > 0)
		len += r;
	out[len] = '\0';
	/* Drain the rest so the compiler does not die of SIGPIPE. */
	while (fread(cmd, 1, sizeof(cmd), p) > 0)
		;
	status = pclose(p);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0)
		return -1;
	if (strstr(out, "clang")) {
		info->family = UTRACE_CC_CLANG;
		info->major = version_after(out, "clang version ");
	} else if (strstr(out, "Free Software Foundation") || !strncmp(out, "gcc", 3)) {
		info->family = UTRACE_CC_GCC;
		info->major = gcc_major(out);
	}
	return 0;
}

/*
 * Whether gcc writes every __patchable_function_entries record of a file
 * into one section linked to the file's first function (gcc 12; the
 * linker then drops or keeps them all with that function): compiles two
 * functions in sections of their own and looks at the links.
 */
bool utrace_cc_links_one_section(const char *cc, const char *flags)
{
	char cmd[4096], line[1024], first[256] = "";
	bool one = true;
	int n = 0;
	FILE *p;

	if (snprintf(cmd, sizeof(cmd),
		     "printf 'void utrace_a(void){}\\nvoid utrace_b(void){}\\n' | %s -x c -S "
		     "-O1 -ffunction-sections %s -o - - 2>/dev/null",
		     cc, flags) >= (int)sizeof(cmd) ||
	    !(p = popen(cmd, "r")))
		return false;
	while (fgets(line, sizeof(line), p)) {
		const char *l = strstr(line, "__patchable_function_entries,\"awo\",@progbits,");
		char sym[256];

		if (!l || sscanf(strrchr(l, ',') + 1, "%255[A-Za-z0-9_.$]", sym) != 1)
			continue;
		/* a unique id after the symbol: a section per function */
		if (strstr(l, ",unique,") || (n++ && strcmp(sym, first)))
			one = false;
		if (n == 1)
			snprintf(first, sizeof(first), "%s", sym);
	}
	pclose(p);
	return one && n > 1;
}

/* The first of the folders rel[] (relative to utrace's own folder) that
 * holds leaf, resolved into out. */
bool utrace_find_near_self(const char *const *rel, size_t nrel, const char *leaf, int mode,
			   char *out, size_t len)
{
	char self[4096], dir[4200], real[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return false;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	for (size_t i = 0; i < nrel; i++) {
		snprintf(dir, sizeof(dir), "%s%s", self, rel[i]);
		if (!realpath(dir, real))
			continue;
		snprintf(path, sizeof(path), "%s/%s", real, leaf);
		if (!access(path, mode))
			return (size_t)snprintf(out, len, "%s", real) < len;
	}
	return false;
}

