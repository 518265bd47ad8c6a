/* SPDX-License-Identifier: MIT */
/*
 * test_nearest.c - lib/base/nearest.h: distances of typos (swap, missing,
 * extra, wrong letter), the nearest command, and no hint when two are
 * as near or none is near enough.
 */
#include <stdint.h>

#include "lib/base/nearest.h"
#include "check.h"

static const char *const cmds[] = {"record", "report", "graph", "dump", "list", "stat",
				   "start", "stop", "restart", "show", "reset"};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void test_distance(void)
{
	check(utrace_edit_distance("record", "record") == 0, "equal names: 0");
	check(utrace_edit_distance("reocrd", "record") == 1, "a swap costs 1");
	check(utrace_edit_distance("recrd", "record") == 1, "a missing letter costs 1");
	check(utrace_edit_distance("recorrd", "record") == 1, "an extra letter costs 1");
	check(utrace_edit_distance("rexord", "record") == 1, "a wrong letter costs 1");
	check(utrace_edit_distance("", "dump") == 4, "from nothing: the length");
	check(utrace_edit_distance("x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") ==
		      SIZE_MAX,
	      "an over-long name is far");
}

static void test_nearest(void)
{
	const char *r = utrace_nearest("reocrd", cmds, NCMDS, 2);

	check(r && !strcmp(r, "record"), "reocrd -> record (got %s)", r ? r : "none");
	r = utrace_nearest("grpah", cmds, NCMDS, 2);
	check(r && !strcmp(r, "graph"), "grpah -> graph (got %s)", r ? r : "none");
	/* "sta" is 1 from stat and 2 from start and stop: stat */
	r = utrace_nearest("sta", cmds, NCMDS, 2);
	check(r && !strcmp(r, "stat"), "sta -> stat (got %s)", r ? r : "none");
	/* "stot" is 1 from stop and from stat: no hint */
	check(!utrace_nearest("stot", cmds, NCMDS, 2), "two as near: no hint");
	check(!utrace_nearest("frobnicate", cmds, NCMDS, 2), "none near: no hint");
}

int main(void)
{
	test_distance();
	test_nearest();
	return check_done();
}
