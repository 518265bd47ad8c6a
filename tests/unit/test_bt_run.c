/* SPDX-License-Identifier: MIT */
/*
 * test_bt_run.c - whole bpftrace programs through utrace_bt_run (lib/bt):
 * the output of programs that need no traced process (BEGIN, END,
 * printf's conversions, print() of values, scratch variables, exit())
 * byte for byte against bpftrace 0.17's own output for the same program
 * (copied from `bpftrace -e PROG`), and the error of a program through
 * the same entry point.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/bt/bt.h"
#include "tests/unit/check.h"

static char *params[] = {"IN", "ms", NULL}; /* the words after the program: $1, $2 */

static int run(const char *src, char **out, struct utrace_error *err)
{
	struct utrace_bt_opts o = {.text = src, .name = "stdin", .log = stderr, .params = params,
				   .nparams = 2};
	size_t len = 0;
	int ret;

	o.out = open_memstream(out, &len);
	if (!o.out)
		return -1;
	ret = utrace_bt_run(&o, err);
	fclose(o.out);
	return ret;
}

static const struct {
	const char *src, *want;
} golden[] = {
    {"BEGIN { printf(\"%5d|%-3s|%lld|%u|%x|%X|%o|%p|%c|%s|%%\\n\", 42, \"ab\", -1, 7, 255, 255, "
     "8, 4096, 66, \"bt\"); exit(); }",
     "Attaching 1 probe...\n   42|ab |-1|7|ff|FF|10|0x1000|B|bt|%%\n\n\n"},
    {"BEGIN { $a = 1; $a++; print($a); $s = \"x\"; print($s); printf(\"%d %d %d\\n\", 7 / 2, "
     "-7 % 3, 1 << 4); printf(\"%s|%d\\n\", 1 > 0 ? \"yes\" : \"no\", !0); exit(); } END { "
     "printf(\"end\\n\"); }",
     "Attaching 2 probes...\n2\nx\n3 0 16\nyes|1\nend\n\n\n"},
    {"BEGIN { printf(\"[%08x] [%-6d] [%.2s]\\n\", 255, 12, \"abcdef\"); exit(); }",
     "Attaching 1 probe...\n[000000ff] [12    ] [ab]\n\n\n"},
    {"BEGIN { exit(); }", "Attaching 1 probe...\n\n\n"},
    /* exit() ends the action: what follows it does not run */
    {"BEGIN { @a = 1; exit(); @a = 2; }", "Attaching 1 probe...\n\n\n@a: 1\n"},
    /* count() without keys is bpftrace's array map: never empty, zeroed by
     * clear() and delete() */
    {"BEGIN { @ = count(); @a[1] = count(); @b = count(); clear(@); delete(@a[1]); "
     "delete(@b); exit(); } END { if (0) { @c = count(); } }",
     "Attaching 2 probes...\n\n\n@: 0\n\n@b: 0\n@c: 0\n"}, /* @a: empty, a blank line */
    /* positional parameters in attach points, as bpftrace expands them */
    {"BEG$1 { printf(\"%s\\n\", probe); } i:$2:1 { printf(\"%s\\n\", probe); exit(); }",
     "Attaching 2 probes...\nBEGIN\ni:ms:1\n\n\n"},
    /* a ternary of printf()s is a statement */
    {"BEGIN { 0 ? printf(\"yes\\n\") : printf(\"no\\n\"); 1 ? printf(\"yes\\n\") : exit(); exit(); }",
     "Attaching 1 probe...\nno\nyes\n\n\n"},
    /* an interval's first hit is a period after BEGIN ran */
    {"BEGIN { @s = nsecs; } i:ms:100 { @ok = nsecs - @s >= 100000000; clear(@s); exit(); }",
     "Attaching 2 probes...\n\n\n@ok: 1\n\n"}, /* @s: cleared, a blank line */
    /* str($N + K): the word from its byte K ("positional pointer arithmetics") */
    {"BEGIN { printf(\"%s|%s|%s|%s\\n\", str($1 + 1), str(1 + $2), str($1 + 2), str($3 + 0)); "
     "exit(); }",
     "Attaching 1 probe...\nN|s||\n\n\n"},
};

/* Programs bpftrace refuses, and its error (with $1 "IN"). */
static const struct {
	const char *src, *want;
} refused[] = {
    {"BEGIN { printf(\"%s\\n\", str($1 + 3)); exit(); }",
     "stdin:1:31-34: ERROR: only addition of a single constant less or equal to the length of $1 "
     "(which is 2) is allowed inside str()\n"
     "BEGIN { printf(\"%s\\n\", str($1 + 3)); exit(); }\n"
     "                              ~~~"},
    {"BEGIN { printf(\"%s\\n\", str($1 * 1)); exit(); }",
     "stdin:1:31-34: ERROR: only addition of a single constant less or equal to the length of $1 "
     "(which is 2) is allowed inside str()\n"
     "BEGIN { printf(\"%s\\n\", str($1 * 1)); exit(); }\n"
     "                              ~~~"},
    {"BEGIN { printf(\"%s\\n\", str(($1 + 1) + 1)); exit(); }",
     "stdin:1:24-41: ERROR: str() only accepts positional parameters directly or with a single "
     "constant offset added\n"
     "BEGIN { printf(\"%s\\n\", str(($1 + 1) + 1)); exit(); }\n"
     "                       ~~~~~~~~~~~~~~~~~"},
};

/* -kk: a read that faults is bpftrace's probe_read helper_error, at the
 * place of the whole access (its "(" included), as bpftrace's json line
 * (json-output.helper_error of its suite) and its text warning. */
static void helper_errors(void)
{
	static const char src[] =
	    "struct foo {int a;}; BEGIN { $tmp = ((struct foo*) 0)->a; exit(); }";
	static const char *const want[] = {
	    "{\"type\": \"helper_error\", \"helper\": \"probe_read\", \"retcode\": -14, "
	    "\"line\": 1, \"col\": 37}\n\n\n",
	    "stdin:1:37-58: WARNING: Failed to probe_read: Bad address (-14)\n"};

	for (int json = 1; json >= 0; json--) {
		struct utrace_bt_opts o = {.text = src, .name = "stdin", .quiet = true,
					   .helper_check = 2,
					   .fmt = json ? UTRACE_BT_JSON : UTRACE_BT_TEXT};
		struct utrace_error err = {0};
		char *out = NULL, *log = NULL;
		size_t len = 0, llen = 0;

		o.out = open_memstream(&out, &len);
		o.log = open_memstream(&log, &llen);
		if (!o.out || !o.log)
			return;
		utrace_bt_run(&o, &err);
		fclose(o.out);
		fclose(o.log);
		/* (text: on the output too, as bpftrace's LOG(WARNING, loc, out_)) */
		check(json ? !strcmp(out, want[1 - json])
			   : !strncmp(out, want[1], strlen(want[1])) && !strstr(log, "WARNING"),
		      "-kk %s: a faulting read is probe_read's helper_error\ngot:\n%s%s",
		      json ? "-f json" : "text", out, err.msg);
		free(out);
		free(log);
	}
	/* without -kk: nothing said, the value is 0 */
	{
		char *out = NULL;
		struct utrace_error err = {0};

		run("struct foo {int a;}; BEGIN { printf(\"%d\\n\", ((struct foo*) 0)->a); exit(); }",
		    &out, &err);
		check(out && !strcmp(out, "Attaching 1 probe...\n0\n\n\n"),
		      "without -kk a faulting read gives 0 (%s)", out ? out : err.msg);
		free(out);
	}
}

int main(void)
{
	helper_errors();
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run(golden[i].src, &out, &err);

		check(ret == 0 && out && !strcmp(out, golden[i].want), "%s\nwant:\n%sgot:\n%s%s",
		      golden[i].src, golden[i].want, out ? out : "", err.msg);
		free(out);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run(refused[i].src, &out, &err);

		check(ret == 1 && !strcmp(err.msg, refused[i].want), "error of %s\nwant:\n%s\ngot:\n%s",
		      refused[i].src, refused[i].want, err.msg);
		free(out);
	}
	{
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run("BEGIN { @x = count(1); }", &out, &err);

		check(ret == 1 && !strcmp(err.msg, "stdin:1:14-22: ERROR: count() requires no "
						   "arguments (1 provided)\n"
						   "BEGIN { @x = count(1); }\n"
						   "             ~~~~~~~~") &&
			  out && !*out,
		      "a program's error: status 1, bpftrace's lines, nothing run: %s", err.msg);
		free(out);
	}
	{
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run("uprobe:/proc/self/exe:main+10000000 { exit(); }", &out, &err);

		check(ret == 1 && !strncmp(err.msg, "Offset outside the function bounds ('main' size "
						    "is ", 51),
		      "an offset past the function's end: bpftrace's error: %s", err.msg);
		free(out);
	}
	{
		struct utrace_error err = {0};
		int ret = utrace_bt_list_pid("\\n", 0, false, stdout, &err);

		check(ret < 0 && !strcmp(err.msg, "stdin:1:1-2: ERROR: invalid character '\\'\n"
						  "\\n\n"
						  "~"),
		      "-l PATTERN with a character bpftrace's lexer refuses: its error: %s", err.msg);
	}
	{
		struct utrace_error err = {0};
		char *out = NULL;
		int ret = run("uprobe:/proc/self/exe:10 { exit(); }", &out, &err);

		check(ret == 1 && !strcmp(err.msg, "Could not resolve address: /proc/self/exe:0xa"),
		      "an address no function holds: bpftrace's error: %s", err.msg);
		free(out);
	}
	{
		/* 100 x 25 statements of 4 instructions: past UTRACE_BT_MAX_INSNS
		 * (4096), where the instructions' array would grow past it */
		char src[1024] = "BEGIN { $a = 0; unroll(100) { ";
		struct utrace_error err = {0};
		char *out = NULL;
		int ret;

		for (int i = 0; i < 25; i++)
			strcat(src, "$a = $a + 1; ");
		strcat(src, "} exit(); }");
		ret = run(src, &out, &err);
		check(ret == 1 && !strcmp(err.msg, "program too large"),
		      "a program of more than 4096 instructions: refused, nothing run: %s", err.msg);
		free(out);
	}
	return check_done();
}
