/* SPDX-License-Identifier: MIT */
/*
 * test_bt_parse.c - `utrace bt`'s parser and checker (lib/bt): programs
 * that parse, and bpftrace's error messages with their caret lines.  The
 * expected texts are what bpftrace 0.17 prints for the same program
 * (`bpftrace -e PROG`), copied from its output.
 */
#include <errno.h>
#include <string.h>

#include "lib/bt/bt_ast.h"
#include "tests/unit/check.h"

static int parse_check(const char *src, struct utrace_error *err)
{
	struct bt_program p = {.src = src, .name = "stdin"};
	int ret = bt_parse(&p, err);

	if (!ret)
		ret = bt_check(&p, err);
	bt_program_free(&p);
	return ret;
}

static const struct {
	const char *src, *want;
} errors[] = {
    {"BEGIN { @x = ; }", "stdin:1:14-15: ERROR: syntax error, unexpected ;\n"
			 "BEGIN { @x = ; }\n"
			 "             ~"},
    {"BEGIN { printf(\"%d\\n\"); }",
     "stdin:1:9-23: ERROR: printf: Not enough arguments for format string (0 supplied, 1 expected)\n"
     "BEGIN { printf(\"%d\\n\"); }\n"
     "        ~~~~~~~~~~~~~~"},
    {"BEGIN { $x = 1; $x = \"a\"; }",
     "stdin:1:20-21: ERROR: Type mismatch for $x: trying to assign value of type 'string[2]' when "
     "variable already contains a value of type 'int64'\n"
     "BEGIN { $x = 1; $x = \"a\"; }\n"
     "                   ~"},
    /* bpftrace's bounds of unroll, its caret under `unroll (N)` */
    {"BEGIN { unroll (101) { @a = 1; } }", "stdin:1:9-21: ERROR: unroll maximum value is 100\n"
					   "BEGIN { unroll (101) { @a = 1; } }\n"
					   "        ~~~~~~~~~~~~"},
    {"BEGIN { unroll (0) { @a = 1; } }", "stdin:1:9-19: ERROR: unroll minimum value is 1\n"
					 "BEGIN { unroll (0) { @a = 1; } }\n"
					 "        ~~~~~~~~~~"},
    {"BEGIN { foo(); }", "stdin:1:9-12: ERROR: Unknown function: foo\n"
			 "BEGIN { foo(); }\n"
			 "        ~~~"},
    {"BEGIN { @x = count(1); }", "stdin:1:14-22: ERROR: count() requires no arguments (1 provided)\n"
				 "BEGIN { @x = count(1); }\n"
				 "             ~~~~~~~~"},
    {"BEGIN { print($y); }", "stdin:1:9-17: ERROR: Undefined or undeclared variable: $y\n"
			     "BEGIN { print($y); }\n"
			     "        ~~~~~~~~"},
    {"BEGIN { @a = 1 }  }", "stdin:1:19-20: ERROR: syntax error, unexpected }, expecting {\n"
			    "BEGIN { @a = 1 }  }\n"
			    "                  ~"},
    {"BEGIN { exit() ", "stdin:1:16-16: ERROR: syntax error, unexpected end of file, expecting }\n"
		       "BEGIN { exit() \n"
		       "               "},
    {"BEGIN { @x = 1 2; }", "stdin:1:16-17: ERROR: syntax error, unexpected integer, expecting }\n"
			    "BEGIN { @x = 1 2; }\n"
			    "               ~"},
    {"BEGIN { @x = 1 foo; }",
     "stdin:1:16-19: ERROR: syntax error, unexpected identifier, expecting }\n"
     "BEGIN { @x = 1 foo; }\n"
     "               ~~~"},
    {"BEGIN { @x = 1 $y; }", "stdin:1:16-18: ERROR: syntax error, unexpected variable, expecting }\n"
			     "BEGIN { @x = 1 $y; }\n"
			     "               ~~"},
    {"BEGIN { if 1 { } }", "stdin:1:12-13: ERROR: syntax error, unexpected integer, expecting (\n"
			   "BEGIN { if 1 { } }\n"
			   "           ~"},
    {"BEGIN { @x = 1; @x = \"s\"; }",
     "stdin:1:17-19: ERROR: Type mismatch for @x: trying to assign value of type 'string[2]' when "
     "map already contains a value of type 'int64\n"
     "BEGIN { @x = 1; @x = \"s\"; }\n"
     "                ~~"},
    {"BEGIN { @x = count(); @x = sum(1); }",
     "stdin:1:23-25: ERROR: Type mismatch for @x: trying to assign value of type 'sum' when map "
     "already contains a value of type 'count\n"
     "BEGIN { @x = count(); @x = sum(1); }\n"
     "                      ~~"},
    {"BEGIN { $x = count(); }", "stdin:1:14-21: ERROR: count() should be directly assigned to a map\n"
				"BEGIN { $x = count(); }\n"
				"             ~~~~~~~"},
    {"BEGIN { printf(\"%d\\n\", \"s\"); }",
     "stdin:1:9-28: ERROR: printf: %d specifier expects a value of type integer (string supplied)\n"
     "BEGIN { printf(\"%d\\n\", \"s\"); }\n"
     "        ~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = hist(); }", "stdin:1:13-19: ERROR: hist() requires one argument (0 provided)\n"
			      "BEGIN { @ = hist(); }\n"
			      "            ~~~~~~"},
    {"BEGIN { @ = lhist(1, 0, 10); }",
     "stdin:1:13-28: ERROR: lhist() requires 4 arguments (3 provided)\n"
     "BEGIN { @ = lhist(1, 0, 10); }\n"
     "            ~~~~~~~~~~~~~~~"},
    {"BEGIN { print(retval); }",
     "stdin:1:9-21: ERROR: The retval builtin can only be used with 'kretprobe' and 'uretprobe' "
     "and 'kfunc' probes\n"
     "BEGIN { print(retval); }\n"
     "        ~~~~~~~~~~~~"},
    {"BEGIN { print(arg0); }",
     "stdin:1:9-19: ERROR: The arg0 builtin can only be used with 'kprobes', 'uprobes' and 'usdt' "
     "probes\n"
     "BEGIN { print(arg0); }\n"
     "        ~~~~~~~~~~"},
    {"BEGIN { if (\"a\") { } }", "stdin:1:1-1: ERROR: Invalid condition in if(): string\n"
				 "BEGIN { if (\"a\") { } }\n"},
    {"BEGIN { @x = \"a\" + 1; }",
     "stdin:1:14-21: ERROR: Type mismatch for '+': comparing 'string[2]' with 'int64'\n"
     "BEGIN { @x = \"a\" + 1; }\n"
     "             ~~~~~~~"},
    {"BEGIN { printf(1); }", "stdin:1:9-18: ERROR: printf() expects a string literal (integer provided)\n"
			     "BEGIN { printf(1); }\n"
			     "        ~~~~~~~~~"},
    {"BEGIN { clear(1); }", "stdin:1:9-17: ERROR: clear() expects a map to be provided\n"
			    "BEGIN { clear(1); }\n"
			    "        ~~~~~~~~"},
    {"BEGIN { system(\"ls\"); }",
     "stdin:1:9-21: ERROR: system() is an unsafe function being used in safe mode\n"
     "BEGIN { system(\"ls\"); }\n"
     "        ~~~~~~~~~~~~"},
    {"BEGIN { @ = count(); @++;}",
     "stdin:1:22-25: ERROR: The ++ operator can not be used on expressions of type 'count'\n"
     "BEGIN { @ = count(); @++;}\n"
     "                     ~~~"},
    {"BEGIN { print(1, 2); }", "stdin:1:9-20: ERROR: Non-map print() only takes 1 argument, 2 found\n"
			       "BEGIN { print(1, 2); }\n"
			       "        ~~~~~~~~~~~"},
    {"BEGIN { exit(1); }", "stdin:1:9-16: ERROR: exit() requires no arguments (1 provided)\n"
			   "BEGIN { exit(1); }\n"
			   "        ~~~~~~~"},
    {"BEGIN { str(1, 2, 3); }", "stdin:1:9-21: ERROR: str() takes up to 2 arguments (3 provided)\n"
				"BEGIN { str(1, 2, 3); }\n"
				"        ~~~~~~~~~~~~"},
    {"BEGIN { @x = 1; @x++; @y[1]++; @z += 2; $a++; }",
     "stdin:1:41-43: ERROR: Undefined or undeclared variable: $a\n"
     "BEGIN { @x = 1; @x++; @y[1]++; @z += 2; $a++; }\n"
     "                                        ~~"},
    {"interval:ms:10 { @n = count(); if (@n == 3) { exit(); } }",
     "stdin:1:35-43: ERROR: Type mismatch for '==': comparing 'count' with 'int64'\n"
     "interval:ms:10 { @n = count(); if (@n == 3) { exit(); } }\n"
     "                                  ~~~~~~~~"},
    {"BEGIN { @x = 1 ? 1 : \"a\"; }",
     "stdin:1:14-25: ERROR: Ternary operator must return the same type: have 'integer' and "
     "'string'\n"
     "BEGIN { @x = 1 ? 1 : \"a\"; }\n"
     "             ~~~~~~~~~~~"},
    {"BEGIN { @x = \"a\" ? 1 : 2; }", "stdin:1:14-25: ERROR: Invalid condition in ternary: string\n"
				      "BEGIN { @x = \"a\" ? 1 : 2; }\n"
				      "             ~~~~~~~~~~~"},
    {"BEGIN { @x = -\"a\"; }",
     "stdin:1:14-15: ERROR: The - operator can not be used on expressions of type 'string[2]'\n"
     "BEGIN { @x = -\"a\"; }\n"
     "             ~"},
    {"BEGIN { $x = 1; $x += \"a\"; }",
     "stdin:1:17-26: ERROR: Type mismatch for '+': comparing 'int64' with 'string[2]'\n"
     "BEGIN { $x = 1; $x += \"a\"; }\n"
     "                ~~~~~~~~~"},
    {"BEGIN { @x = 1; @x += \"a\"; }",
     "stdin:1:17-26: ERROR: Type mismatch for '+': comparing 'int64' with 'string[2]'\n"
     "BEGIN { @x = 1; @x += \"a\"; }\n"
     "                ~~~~~~~~~"},
    {"BEGIN { @x = pid /  }", "stdin:1:21-22: ERROR: syntax error, unexpected }\n"
			      "BEGIN { @x = pid /  }\n"
			      "                    ~"},
    {"uprobe:/bin/true { }", "stdin:1:1-17: ERROR: uprobe probe type requires 2 arguments\n"
			     "uprobe:/bin/true { }\n"
			     "~~~~~~~~~~~~~~~~"},
    {"interval:x:1 { }", "stdin:1:1-13: ERROR: x is not an accepted unit of time\n"
			 "interval:x:1 { }\n"
			 "~~~~~~~~~~~~"},
    {"uprobe:/nonexist:f { }",
     "stdin:1:1-19: ERROR: uprobe target file '/nonexist' does not exist or is not executable\n"
     "uprobe:/nonexist:f { }\n"
     "~~~~~~~~~~~~~~~~~~"},
    {"uretprobe:/bin/true:main+4 { }", "stdin:1:1-27: ERROR: Offset not allowed\n"
				       "uretprobe:/bin/true:main+4 { }\n"
				       "~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    /* a field of no struct: bpftrace's text, its a.f ending at the '.' */
    {"uprobe:/bin/true:main { @ = arg0.x; }",
     "stdin:1:29-34: ERROR: Can not access field 'x' on expression of type 'unsigned int64'\n"
     "uprobe:/bin/true:main { @ = arg0.x; }\n"
     "                            ~~~~~"},
    {"uprobe:/bin/true:main { @ = arg0->x; }",
     "stdin:1:29-36: ERROR: Can not access field 'x' on expression of type 'unsigned int64'\n"
     "uprobe:/bin/true:main { @ = arg0->x; }\n"
     "                            ~~~~~~~"},
    {"BEGIN { @ = comm.x; }",
     "stdin:1:13-18: ERROR: Can not access field 'x' on expression of type 'string[16]'\n"
     "BEGIN { @ = comm.x; }\n"
     "            ~~~~~"},
    /* lhist's bounds, as bpftrace 0.17 prints them (its first error) */
    {"BEGIN { @ = lhist(1, 0, 80, 0); }",
     "stdin:1:13-31: ERROR: lhist() step must be >= 1 (0 provided)\n"
     "BEGIN { @ = lhist(1, 0, 80, 0); }\n"
     "            ~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = lhist(1, 0, 20000, 10); }",
     "stdin:1:13-35: ERROR: lhist() too many buckets, must be <= 1000 (would need 2000)\n"
     "BEGIN { @ = lhist(1, 0, 20000, 10); }\n"
     "            ~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = lhist(1, -20, 80, 10); }",
     "stdin:1:13-34: ERROR: lhist() min must be non-negative (provided min -20)\n"
     "BEGIN { @ = lhist(1, -20, 80, 10); }\n"
     "            ~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = lhist(1, 50, 20, 10); }",
     "stdin:1:13-33: ERROR: lhist() min must be less than max (provided min 50 and max 20)\n"
     "BEGIN { @ = lhist(1, 50, 20, 10); }\n"
     "            ~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = lhist(1, 0, 20, 30); }",
     "stdin:1:13-32: ERROR: lhist() step is too large for the given range (provided step 30 for "
     "range 20)\n"
     "BEGIN { @ = lhist(1, 0, 20, 30); }\n"
     "            ~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @ = lhist(1, pid, 20, 30); }",
     "stdin:1:13-34: ERROR: lhist() expects a integer literal (integer provided)\n"
     "BEGIN { @ = lhist(1, pid, 20, 30); }\n"
     "            ~~~~~~~~~~~~~~~~~~~~~"},
    /* a tuple's type: its integers' widths and signs, not its strings' sizes */
    {"BEGIN { $t = (1, 2); $t = ((int8)1, 2); }",
     "stdin:1:25-26: ERROR: Tuple type mismatch: (int64,int64) != (int8,int64).\n"
     "BEGIN { $t = (1, 2); $t = ((int8)1, 2); }\n"
     "                        ~"},
    {"BEGIN { @t = (1, (2, 3)); @t = (1, (pid, \"a\")); }",
     "stdin:1:30-31: ERROR: Tuple type mismatch: (int64,(int64,int64)) != (int64,(unsigned int64,string[2])).\n"
     "BEGIN { @t = (1, (2, 3)); @t = (1, (pid, \"a\")); }\n"
     "                             ~"},
    {"BEGIN { @t[1] = (1, 2); @t[2] = (pid, 2); }",
     "stdin:1:31-32: ERROR: Tuple type mismatch: (int64,int64) != (unsigned int64,int64).\n"
     "BEGIN { @t[1] = (1, 2); @t[2] = (pid, 2); }\n"
     "                              ~"},
    /* a tuple is no map key in bpftrace 0.17 */
    {"BEGIN { @[1, (2, \"a\")] = count(); }",
     "stdin:1:9-23: ERROR: tuple cannot be used as a map key. Try a multi-key associative array instead (eg `@map[$1, $2] = ...)`.\n"
     "BEGIN { @[1, (2, \"a\")] = count(); }\n"
     "        ~~~~~~~~~~~~~~"},
    {"BEGIN { $t = (1, 2); @x[$t] = 1; }",
     "stdin:1:22-28: ERROR: tuple cannot be used as a map key. Try a multi-key associative array instead (eg `@map[$1, $2] = ...)`.\n"
     "BEGIN { $t = (1, 2); @x[$t] = 1; }\n"
     "                     ~~~~~~"},
    /* strftime()'s value is bpftrace's timestamp: it only prints */
    {"BEGIN { if (strftime(\"%H\", nsecs) == \"x\") { exit(); } }",
     "stdin:1:12-41: ERROR: Type mismatch for '==': comparing 'timestamp' with 'string[2]'\n"
     "BEGIN { if (strftime(\"%H\", nsecs) == \"x\") { exit(); } }\n"
     "           ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @x = \"x\" != strftime(\"%H\", nsecs); }",
     "stdin:1:14-42: ERROR: Type mismatch for '!=': comparing 'string[2]' with 'timestamp'\n"
     "BEGIN { @x = \"x\" != strftime(\"%H\", nsecs); }\n"
     "             ~~~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @t = strftime(\"%H\", nsecs); @t = \"ab\"; }",
     "stdin:1:37-39: ERROR: Type mismatch for @t: trying to assign value of type 'string[3]' when map already contains a value of type 'timestamp\n"
     "BEGIN { @t = strftime(\"%H\", nsecs); @t = \"ab\"; }\n"
     "                                    ~~"},
    {"BEGIN { @t = \"ab\"; @t = strftime(\"%H\", nsecs); }",
     "stdin:1:20-22: ERROR: Type mismatch for @t: trying to assign value of type 'timestamp' when map already contains a value of type 'string[3]\n"
     "BEGIN { @t = \"ab\"; @t = strftime(\"%H\", nsecs); }\n"
     "                   ~~"},
    {"BEGIN { $t = strftime(\"%H\", nsecs); $t = \"ab\"; }",
     "stdin:1:40-41: ERROR: Type mismatch for $t: trying to assign value of type 'string[3]' when variable already contains a value of type 'timestamp'\n"
     "BEGIN { $t = strftime(\"%H\", nsecs); $t = \"ab\"; }\n"
     "                                       ~"},
    {"BEGIN { $t = strftime(\"%H\", nsecs); @x = $t + 1; }",
     "stdin:1:42-48: ERROR: Type mismatch for '+': comparing 'timestamp' with 'int64'\n"
     "BEGIN { $t = strftime(\"%H\", nsecs); @x = $t + 1; }\n"
     "                                         ~~~~~~"},
    {"BEGIN { @t = 1 ? strftime(\"%H\", nsecs) : \"ab\"; }",
     "stdin:1:14-46: ERROR: Ternary return type unsupported timestamp\n"
     "BEGIN { @t = 1 ? strftime(\"%H\", nsecs) : \"ab\"; }\n"
     "             ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @t = 1 ? \"ab\" : strftime(\"%H\", nsecs); }",
     "stdin:1:14-46: ERROR: Ternary operator must return the same type: have 'string' and 'timestamp'\n"
     "BEGIN { @t = 1 ? \"ab\" : strftime(\"%H\", nsecs); }\n"
     "             ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @x = !strftime(\"%H\", nsecs); }",
     "stdin:1:14-15: ERROR: The ! operator can not be used on expressions of type 'timestamp'\n"
     "BEGIN { @x = !strftime(\"%H\", nsecs); }\n"
     "             ~"},
    {"BEGIN { if (strftime(\"%H\", nsecs)) { exit(); } }",
     "stdin:1:1-1: ERROR: Invalid condition in if(): timestamp\n"
     "BEGIN { if (strftime(\"%H\", nsecs)) { exit(); } }\n"},
    {"BEGIN { @x = str(strftime(\"%H\", nsecs)); }",
     "stdin:1:14-40: ERROR: str() expects an integer or a pointer type as first argument (timestamp provided)\n"
     "BEGIN { @x = str(strftime(\"%H\", nsecs)); }\n"
     "             ~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @x = strncmp(strftime(\"%H\", nsecs), \"1\", 1); }",
     "stdin:1:14-52: ERROR: strncmp() only supports string arguments (timestamp provided)\n"
     "BEGIN { @x = strncmp(strftime(\"%H\", nsecs), \"1\", 1); }\n"
     "             ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"},
    {"BEGIN { @x = strcontains(1, \"ab\"); }",
     "stdin:1:14-34: ERROR: strcontains() only supports string arguments (integer provided)\n"
     "BEGIN { @x = strcontains(1, \"ab\"); }\n"
     "             ~~~~~~~~~~~~~~~~~~~~"},
};

static const char *const good[] = {
    "BEGIN { printf(\"hello\\n\"); exit(); }",
    "uprobe:/bin/true:main /arg0 > 10/ { @[ustack] = count(); } END { print(@); }",
    "uretprobe:/bin/true:main { @h = hist(retval); @l = lhist(retval, 0, 100, 10); }",
    "BEGIN { @l = lhist(-5, 0, 10, 10); @n = -9223372036854775807 - 1; $x = - 3; }",
    "uprobe:/bin/true:ma* , uprobe:/bin/true:exit { @c[comm, pid] = count(); @s = sum(arg1); "
    "@a = avg(arg1); @m = min(arg2); @M = max(arg2); @st = stats(arg0); }",
    "BEGIN { $x = 1; $x += 2; $x++; @v = $x > 2 ? 1 : 0; if ($x == 4) { @y = 1 } else if ($x) "
    "{ @y = 2 } else { @y = 3; } }",
    "interval:ms:100 { print(@n); clear(@n); zero(@n); } BEGIN { @n[1] = 1; delete(@n[1]); }",
    "uprobe:/bin/true:main { @s[str(arg0)] = count(); printf(\"%s %d %-5s\\n\", comm, pid, "
    "str(arg1)); time(\"%H:%M:%S\\n\"); }",
    "BEGIN { @a = strftime(\"%H\", nsecs); @b[strftime(\"%H\", nsecs)] = 1; $t = "
    "strftime(\"%H\", nsecs); printf(\"%s\\n\", $t); print(strftime(\"%H\", nsecs)); "
    "@x = (strftime(\"%H\", nsecs), 1); @y = strftime(\"%H\", nsecs) == $t; }",
    "BEGIN { $t = (1, \"a\"); $t = (2, \"abc\"); @t = (pid, \"ab\"); @t = (tid, \"abcd\"); }",
    "// comment\nBEGIN /* block */ { @x = (1 + 2) * 3 - 4 / 2 % 3 << 1 >> 1 & 7 | 8 ^ 1; @y = !0 "
    "&& ~1 || -1; }",
};

/* An error far along a long line (a one-liner with struct definitions):
 * its carets under it, as bpftrace draws them past column 160. */
static void test_long_line(void)
{
	char src[200], want[600], spaces[180];
	struct utrace_error err = {0};

	memset(spaces, ' ', sizeof(spaces));
	snprintf(src, sizeof(src), "BEGIN {%.170sfoo(); }", spaces);
	snprintf(want, sizeof(want),
		 "stdin:1:178-181: ERROR: Unknown function: foo\n%s\n%.177s~~~", src, spaces);
	check(parse_check(src, &err) == -EINVAL && !strcmp(err.msg, want),
	      "the carets at column 178:\n%s", err.msg);
}

/* bpftrace's columns after a cast to a struct: one more a cast (its
 * lexer reads the '*' or ')' after `struct NAME` twice), back to the
 * text's on the next line; a definition's braces (a member that is a
 * struct pointer among them) move nothing.  Texts from bpftrace 0.17. */
static void test_struct_columns(void)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
	    {"BEGIN { $s = (struct A *)0; $t = (struct A *)0; foo(); }",
	     "stdin:1:51-54: ERROR: Unknown function: foo"},
	    {"BEGIN { $s = sizeof(struct A); foo(); }", "stdin:1:33-36: ERROR: Unknown function: foo"},
	    {"struct A { int a; struct A *n; }; BEGIN { foo(); }",
	     "stdin:1:43-46: ERROR: Unknown function: foo"},
	    {"struct A { int a; }; BEGIN { $s = (struct A *)0;\n foo(); }",
	     "stdin:2:2-5: ERROR: Unknown function: foo"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_error err = {0};
		int ret = parse_check(cases[i].src, &err);

		check(ret == -EINVAL && !strncmp(err.msg, cases[i].want, strlen(cases[i].want)),
		      "%s\nwant: %s\ngot:  %s", cases[i].src, cases[i].want, err.msg);
	}
}

int main(void)
{
	test_long_line();
	test_struct_columns();
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		struct utrace_error err = {0};
		int ret = parse_check(errors[i].src, &err);

		check(ret == -EINVAL && !strcmp(err.msg, errors[i].want), "error of %s\nwant:\n%s\ngot:\n%s",
		      errors[i].src, errors[i].want, err.msg);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct utrace_error err = {0};

		check(parse_check(good[i], &err) == 0, "parses: %s: %s", good[i], err.msg);
	}
	return check_done();
}
