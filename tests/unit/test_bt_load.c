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
#include "lib/bt/bt_inproc.h"
#include "tests/unit/bt_fixture.h"

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
	check(out && log && !strstr(out, "WARNING") && !strstr(log, "WARNING"),
	      "no warning without -kk: %s", log ? log : "");
	free(out);
	free(log);
	out = log = NULL;
	ret = run(WALK, 2, &out, &log, &err);
	/* (bpftrace 0.17's text for this program: its columns, its name of
	 * the read at a uprobe, on the output between the printf's) */
	check(ret == 0 && out &&
		      !strcmp(out, "Attaching 1 probe...\n/bin/true,a,bc,stdin:1:188-193: WARNING: "
				   "Failed to probe_read_user: Bad address (-14)\n" WALK "\n"
				   "                                                                  "
				   "                                                                  "
				   "                                                       ~~~~~\n"
				   "0\n\n\n") &&
		      log && !strstr(log, "WARNING"),
	      "-kk: the faulting read's warning on the output, as bpftrace's at a uprobe: %s%s",
	      out ? out : "", err.msg);
	free(out);
	free(log);
}

/* join() and str() of an array at an address computed at run time:
 * read at the hit as the rest. */
static void test_join(void)
{
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL;
	int ret = run("uprobe:" LIBC ":execve { $p = arg1 + (arg2 & 0); join($p); join($p, \",\"); "
		      "printf(\"%s|%s\\n\", str(*(uint64 *)($p + 16)), str(*(uint64 *)($p + 24))); }",
		      0, &out, &log, &err);

	check(ret == 0 && out &&
		      !strcmp(out, "Attaching 1 probe...\n/bin/true a bc\n/bin/true,a,bc\nbc|\n\n\n"),
	      "join() and str() of execve's argv at an address computed at run time: %s%s",
	      out ? out : "", err.msg);
	free(out);
	free(log);
}

/* -kk: str() of an address that faults (argv[3], NULL) reads "", with
 * bpftrace's warning at a uprobe (probe_read_user_str) on the output. */
static void test_str_kk(void)
{
	static const char src[] = "uprobe:" LIBC ":execve { $p = arg1 + (arg2 & 0); "
				  "printf(\"%s|\\n\", str(*(uint64 *)($p + 24))); }";
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL, want[512];
	int ret = run(src, 2, &out, &log, &err);

	snprintf(want, sizeof(want),
		 "Attaching 1 probe...\nstdin:1:62-87: WARNING: Failed to probe_read_user_str: "
		 "Bad address (-14)\n%s\n%61s%s\n|\n\n\n",
		 src, "", "~~~~~~~~~~~~~~~~~~~~~~~~~");
	check(ret == 0 && out && !strcmp(out, want),
	      "-kk: str() of a faulting address reads \"\", bpftrace's warning: %s%s",
	      out ? out : "", err.msg);
	free(out);
	free(log);
	out = log = NULL;
	/* BEGIN's (the tool's memory): bpftrace 0.17's text for it */
	{
		static const char begin[] =
		    "BEGIN { $p = (int32*)8; printf(\"[%s]\\n\", str($p)); exit(); }";
		struct utrace_bt_opts o = {.text = begin, .name = "stdin", .helper_check = 2,
					   .quiet = true};
		size_t len = 0, llen = 0;

		o.out = open_memstream(&out, &len);
		o.log = open_memstream(&log, &llen);
		if (!o.out || !o.log)
			return;
		ret = utrace_bt_run(&o, &err);
		fclose(o.out);
		fclose(o.log);
		snprintf(want, sizeof(want),
			 "stdin:1:42-49: WARNING: Failed to probe_read_str: Bad address (-14)\n%s\n"
			 "%41s~~~~~~~\n[]\n\n\n",
			 begin, "");
		check(ret == 0 && out && !strcmp(out, want),
		      "-kk: str() at BEGIN of a faulting address: bpftrace's probe_read_str: %s%s",
		      out ? out : "", err.msg);
		free(out);
		free(log);
	}
}

/* More reads than a record holds (about 120): those past it read 0 in
 * the tool, and utrace bt says how many. */
static void test_full(void)
{
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL;
	unsigned long long missed = 0;
	const char *m;
	int ret = run("uprobe:" LIBC ":execve { $p = arg1 + (arg2 & 0); $i = 0; $n = 0; "
		      "while ($i < 300) { $n += *(uint8 *)($p + $i) >= 0; $i++; } "
		      "printf(\"%d\\n\", $n); }",
		      0, &out, &log, &err);

	m = log ? strstr(log, "utrace bt: ") : NULL;
	if (m && sscanf(m, "utrace bt: %llu reads of the program's memory were not made at the hit",
			&missed) != 1)
		missed = 0;
	check(ret == 0 && out && !strcmp(out, "Attaching 1 probe...\n300\n\n\n") && missed > 0 &&
		      missed < 300,
	      "300 reads in a replayed action: those past the record's room counted (%llu): %s%s",
	      missed, log ? log : "", err.msg);
	free(out);
	free(log);
}

/* Without -c or -p the kernel's uprobes serve the probe: they cannot
 * read at run-time addresses, refused before anything runs. */
static void test_kernel_refused(void)
{
	static const char src[] = "uprobe:/lib/x86_64-linux-gnu/libc.so.6:execve "
				  "{ $p = arg1 + (arg2 & 0); printf(\"%s\\n\", str(*(uint64 *)$p)); }";
	struct utrace_bt_opts o = {.text = src, .name = "stdin"};
	struct utrace_error err = {0};
	char *out = NULL, *log = NULL;
	size_t len = 0, llen = 0;
	int ret;

	o.out = open_memstream(&out, &len);
	o.log = open_memstream(&log, &llen);
	if (!o.out || !o.log)
		return;
	ret = utrace_bt_run(&o, &err);
	fclose(o.out);
	fclose(o.log);
	check(ret != 0 && !strcmp(out, "") &&
		      !strcmp(err.msg, "uprobe:/lib/x86_64-linux-gnu/libc.so.6:execve: a read of "
				       "memory at an address computed at run time needs -c or -p (an "
				       "in-process probe): the kernel's uprobes read only at addresses "
				       "the arguments give"),
	      "without -c or -p a run-time read is refused before anything runs: %s|%s", out,
	      err.msg);
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

/* How many of op the code has. */
static unsigned count_op(const struct bt_code *c, unsigned op)
{
	const struct utrace_bt_hdr *h = c->prog;
	unsigned n = 0;

	for (uint32_t i = 0; h && i < h->nr_insns; i++)
		n += utrace_bt_insns(h)[i].op == op;
	return n;
}

/* Which reads compile to LOAD (made at the hit) and which stay the
 * probe's fetch-args (FIELD: no system call), and where the action runs. */
static void test_compile(void)
{
	static const struct {
		const char *src;
		unsigned loads, strs, fields;
		bool hit_reads, at_hit;
	} cases[] = {
	    /* the address the arguments give: a fetch-arg, as before */
	    {"uprobe:/bin/true:main { @x = sum(*(int32 *)(arg0 + 4)); }", 0, 0, 1, false, false},
	    {"uprobe:/bin/true:main { @[str(arg0)] = count(); }", 0, 1, 0, false, false},
	    /* computed at run time: LOAD at the hit, the action with it */
	    {"uprobe:/bin/true:main { $i = arg1; @x = sum(*((int32 *)arg0 + $i)); }", 1, 0, 0, true,
	     true},
	    {"uprobe:/bin/true:main { @a[0] = (int32 *)arg0; delete(@a[0]); @x = *@a[0]; }", 1, 0,
	     0, true, false},
	    {"uprobe:/bin/true:main { @[str(*(uint64 *)(arg0 + arg1))] = count(); }", 1, 1, 0, true,
	     true},
	    {"struct C { int a; long b; } uprobe:/bin/true:main { $c = (struct C *)arg0; $i = 0; "
	     "while ($i < 3) { @b += ($c++)->b; $i++; } }",
	     1, 0, 0, true, false},
	    /* a read that faults reported (-kk): from the tool's run */
	    {"uprobe:/bin/true:main { $i = arg1; @x = sum(*((int32 *)arg0 + $i)); } //kk", 1, 0, 0,
	     true, false},
	    /* BEGIN reads the tool's memory, as bpftrace's reads its own */
	    {"BEGIN { $p = (int32 *)0; @x = *($p + 1); }", 1, 0, 0, false, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bt_program p;
		struct bt_code c = {0};
		struct utrace_error err = {0};
		bool kk = strstr(cases[i].src, "//kk") != NULL;
		int ret;

		p = (struct bt_program){.src = cases[i].src, .name = "stdin"};
		p.helper_check = kk ? 2 : 0;
		ret = bt_parse(&p, &err);
		if (!ret)
			ret = bt_check(&p, &err);
		if (!ret) {
			struct bt_formats fmts = {0};

			ret = bt_compile(&p, &p.probes[p.nprobes - 1], &p.probes[p.nprobes - 1].aps[0],
					 "main", &fmts, &c, &err);
			bt_formats_free(&fmts);
		}
		check(ret == 0 && count_op(&c, UTRACE_BOP_LOAD) == cases[i].loads &&
			      count_op(&c, UTRACE_BOP_STR) == cases[i].strs &&
			      count_op(&c, UTRACE_BOP_FIELD) == cases[i].fields &&
			      c.hit_reads == cases[i].hit_reads &&
			      (!c.prog || (bt_inproc_refusal(&c) == NULL) == cases[i].at_hit),
		      "%s: %u LOAD, %u STR, %u FIELD, %s, %s: %s", cases[i].src, cases[i].loads,
		      cases[i].strs, cases[i].fields,
		      cases[i].hit_reads ? "reads at the hit" : "no read at the hit",
		      cases[i].at_hit ? "runs at the hit" : "replayed", err.msg);
		bt_fixture_code_free(&c);
		bt_program_free(&p);
	}
}

int main(void)
{
	runtime_beside();
	test_compile();
	test_walk();
	test_join();
	test_str_kk();
	test_full();
	test_kernel_refused();
	test_at_hit();
	return check_done();
}
