/* SPDX-License-Identifier: MIT */
/*
 * test_bt_load.c - a uprobe's action that reads the traced program's
 * memory at addresses computed at run time (a while loop walking a
 * pointer, str() of what it reads, a pointer into nothing), as whole
 * programs through utrace_bt_run on a command: the reads are made at
 * the hit in the program (runtime/bt_probe.c), the action run there
 * (aggregations) or in the tool from what the hit read (printf); a read
 * that faults gives 0, and -kk says so as bpftrace 0.17 does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bt/bt.h"
#include "tests/unit/check.h"

#define LIBC "libc"

static int run(const char *src, unsigned kk, char **out, char **log, struct utrace_error *err)
{
	char *argv[] = {"/bin/sh", "-c", "/bin/true a bc", NULL};
	struct utrace_bt_opts o = {.text = src, .name = "stdin", .argv = argv, .helper_check = kk};
	size_t len = 0, llen = 0;
	int ret;

	o.out = open_memstream(out, &len);
	o.log = open_memstream(log, &llen);
	if (!o.out || !o.log)
		return -1;
	ret = utrace_bt_run(&o, err);
	fclose(o.out);
	fclose(o.log);
	return ret;
}

/* The runtime the command is started with: build/libutrace.so, beside
 * build/tests/. */
static void runtime_beside(void)
{
	char exe[4096];
	ssize_t n;

	if (getenv("UTRACE_LIB"))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n > 0) {
		exe[n] = 0;
		strcpy(strrchr(exe, '/'), "/../libutrace.so");
		setenv("UTRACE_LIB", exe, 1);
	}
}

/* execve's argv walked in a while loop ($w++ read each time: an address
 * the arguments do not give), then a read at 8 (the NULL's + 8): unmapped. */
#define WALK                                                                                      \
	"struct W { long s; } uprobe:" LIBC ":execve { $w = (struct W *)arg1; $n = 0; "            \
	"while ($n < 9 && $w->s) { printf(\"%s,\", str($w->s)); $w++; $n++; } "                   \
	"$w = (struct W *)($w->s + 8); printf(\"%d\\n\", $w->s); }"

static void test_walk(void)
{
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL;
	int ret = run(WALK, 0, &out, &log, &err);

	check(ret == 0 && out && !strcmp(out, "Attaching 1 probe...\n/bin/true,a,bc,0\n\n\n"),
	      "a while loop walks execve's argv at the hit, a bad pointer reads 0: %s%s",
	      out ? out : "", err.msg);
	check(log && !strstr(log, "WARNING"), "no warning without -kk: %s", log ? log : "");
	free(out);
	free(log);
	out = log = NULL;
	ret = run(WALK, 2, &out, &log, &err);
	check(ret == 0 && out && !strcmp(out, "Attaching 1 probe...\n/bin/true,a,bc,0\n\n\n"),
	      "-kk: the same output: %s%s", out ? out : "", err.msg);
	/* (bpftrace 0.17's text for this program: its columns, its name of
	 * the read at a uprobe) */
	check(log && strstr(log, "stdin:1:188-193: WARNING: Failed to probe_read_user: Bad address "
				 "(-14)\n" WALK "\n") && strstr(log, "\n" WALK "\n") &&
		      strstr(log, "   ~~~~~\n"),
	      "-kk: the faulting read's warning, as bpftrace's at a uprobe: %s", log ? log : "");
	free(out);
	free(log);
}

/* An action that only aggregates runs at the hit: its reads there too. */
static void test_at_hit(void)
{
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL;
	int ret = run("uprobe:" LIBC ":execve { "
		      "@[str(*(uint64 *)(arg1 + (arg2 & 0) + 8))] = count(); "
		      "@z = sum(*(uint64 *)((arg2 & 0) + 8)); }",
		      0, &out, &log, &err);

	check(ret == 0 && out && !strcmp(out, "Attaching 1 probe...\n\n\n@[a]: 1\n@z: 0\n"),
	      "an aggregation reads at the hit, a bad pointer reads 0: %s%s", out ? out : "",
	      err.msg);
	free(out);
	free(log);
}

int main(void)
{
	runtime_beside();
	test_walk();
	test_at_hit();
	return check_done();
}
