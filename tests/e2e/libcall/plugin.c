/* SPDX-License-Identifier: MIT */
/*
 * plugin.c - a plugin for --libcall (tests/e2e/t/lc-plain.sh), built plainly
 * into libplugin.so beside a plain build of tests/progs/dlopen.c: loaded
 * with dlopen after the program started, its own calls into libc must be
 * hooked and named too (its imports registered at the dlopen).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plugin_entry(int x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", x * 11);
	return (int)strlen(buf) + abs(-x);
}
