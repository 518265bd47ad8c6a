/* SPDX-License-Identifier: MIT */
/*
 * plugin.c - built into libplugin.so (next to the dlopen binary) with the
 * same instrumentation flags plus -fPIC -shared; loaded by dlopen.c.
 * (The gcc mcount configuration builds it with the patchable-entry flags,
 * since gcc cannot combine -mnop-mcount with -fPIC.)
 */
#include "progs.h"

TRACED int plugin_helper(int x)
{
	BARRIER();
	return x * 11;
}

TRACED int plugin_entry(int x)
{
	int r = plugin_helper(x) + plugin_helper(x + 1);

	BARRIER();
	return r;
}
