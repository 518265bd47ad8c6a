/* SPDX-License-Identifier: MIT */
/*
 * test_uprobe.c - probe definitions (lib/probes/uprobe.h): good ones and the
 * kernel line they give, every error with its column, and SYMBOL to file
 * offset on a PIE, a non-PIE executable and a shared library whose
 * segments sit at addresses other than their file offsets.  The expected
 * offsets are computed here from `nm` and `readelf -lW`, never written in.
 * Fixtures are compiled at run time ($UTRACE_TEST_CC, default cc).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_tools.h"

static const char prog_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "int cc = 3, counter = 7;\n"
    "__attribute__((noinline)) long add3(int a, long b, const char *s)\n"
    "{ __asm__ volatile(\"\"); return a + b + s[0]; }\n"
    "__attribute__((noinline)) long many(long a1, long a2, long a3, long a4, long a5,\n"
    "                                    long a6, long a7, long a8)\n"
    "{ __asm__ volatile(\"\"); return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8; }\n"
    "static __attribute__((noinline, used)) int helper(int x) { return x * 3; }\n"
    "int call_helper2(int);\n"
    "__asm__(\".globl fakefn\\n.type fakefn,@function\\n.set fakefn, 0x7000000\\n\");\n"
    "int main(int argc, char **argv)\n"
    "{ printf(\"%ld %ld %d\\n\", add3(argc, 2, \"x\"), many(1,2,3,4,5,6,7,8),\n"
    "         helper(argc) + call_helper2(argc) + cc + counter); return 0; }\n";

static const char prog2_src[] =
    "static __attribute__((noinline, used)) int helper(int x) { return x * 5; }\n"
    "int call_helper2(int x) { return helper(x); }\n";

static const char lib_src[] =
    "int lib_data = 5;\n"
    "__attribute__((noinline)) int lib_fn(int x) { return x + lib_data; }\n"
    "int lib_other(int x) { return lib_fn(x) * 2; }\n";

static char prog[256], nopie[256], lib[256], text[256];

/* fmt with {P} -> prog, {N} -> nopie, {L} -> lib, {T} -> text file. */
static const char *expand(const char *fmt)
{
	static char buf[8192];
	size_t len = 0;

	for (const char *f = fmt; *f && len < sizeof(buf) - 300; f++) {
		const char *sub = NULL;

		if (f[0] == '{' && f[1] && f[2] == '}') {
			sub = f[1] == 'P'   ? prog
			      : f[1] == 'N' ? nopie
			      : f[1] == 'L' ? lib
			      : f[1] == 'T' ? text
					    : NULL;
		}
		if (sub) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s", sub);
			f += 2;
		} else {
			buf[len++] = *f;
		}
	}
	buf[len] = 0;
	return buf;
}

/* Parses def; the kernel line, or NULL (err filled). */
static const char *line_of(const char *def, struct utrace_error *err)
{
	static char line[4096];
	struct utrace_uprobe *p;

	if (utrace_uprobe_parse(def, &p, err) < 0)
		return NULL;
	utrace_uprobe_kernel_line(p, line, sizeof(line));
	utrace_uprobe_free(p);
	return line;
}

static void good(const char *fmt, const char *expect_fmt)
{
	struct utrace_error err = {0};
	char def[4096], expect[4096];
	const char *line;

	snprintf(def, sizeof(def), "%s", expand(fmt));
	snprintf(expect, sizeof(expect), "%s", expand(expect_fmt));
	line = line_of(def, &err);
	check(line && !strcmp(line, expect), "'%s' -> '%s' (got '%s'%s%s)", fmt, expect_fmt,
	      line ? line : "", line ? "" : ", ", line ? "" : err.msg);
}

static void test_good(void)
{
	uint64_t add3 = readelf_offset(prog, nm_addr(prog, "add3"));
	uint64_t many = readelf_offset(prog, nm_addr(prog, "many"));
	uint64_t main_ = readelf_offset(prog, nm_addr(prog, "main"));
	uint64_t cc = nm_addr(prog, "cc"), mainv = nm_addr(prog, "main");
	char e[1024], f[1024];

	snprintf(e, sizeof(e),
		 "p:utrace/add3 {P}:0x%" PRIx64 " a=%%di:s32 b=%%si:s64 "
		 "s=+0(%%dx):string c=$comm:string",
		 add3);
	good("p {P}:add3 a=$arg1:s32 b=$arg2:s64 s=+0($arg3):string c=$comm", e);
	snprintf(e, sizeof(e), "r:utrace/add3__return {P}:0x%" PRIx64 " r=$retval:s64", add3);
	good("r {P}:add3 r=$retval:s64", e);
	good("p {P}:add3%return r=$retval:s64", e);
	snprintf(e, sizeof(e),
		 "p:grp/ev {P}:0x%" PRIx64 " arg1=%%di:x64 arg2=$stack1:x64 "
		 "arg3=$stack2:s32",
		 many);
	good("p:grp/ev {P}:many $arg1 $arg7:x64 $arg8:s32", e);
	snprintf(e, sizeof(e), "p:grp/ev {P}:0x%" PRIx64, add3 + 4);
	good("p:grp.ev {P}:add3+4", e);
	snprintf(e, sizeof(e), "p:grp/add3_4 {P}:0x%" PRIx64, add3 + 4);
	good("p:grp/ {P}:add3+4", e);
	snprintf(e, sizeof(e), "p:utrace/p_prog_0x%" PRIx64 " {P}:0x%" PRIx64 "(0x40)", main_,
		 main_);
	snprintf(f, sizeof(f), "p {P}:0x%" PRIx64 "(0x40)", main_);
	good(f, e);
	/* @SYMBOL: relative to the probe's segment, which for main is 0 */
	snprintf(e, sizeof(e),
		 "p:utrace/main {P}:0x%" PRIx64 " v=@+0x%" PRIx64 ":s32 w=@+0x%" PRIx64
		 ":u8[4] s=\\\"hi\":string x=\\-5:s16 y=+u8(-16(%%sp)):b3@2/8",
		 main_, cc - (mainv - main_), cc + 4 - (mainv - main_));
	good("p {P}:main v=@cc:s32 w=@cc+4:u8[4] s=\\\"hi\" x=\\-5:s16 y=+u8(-16(%sp)):b3@2/8", e);
	snprintf(e, sizeof(e),
		 "p:utrace/main {P}:0x%" PRIx64 " arg1=@0x1000:x64 arg2=@+0x10:ustring "
		 "arg3=$stack:x64 arg4=%%orig_ax:x64",
		 main_);
	good("p {P}:main @0x1000 @+0x10:ustring $stack %orig_ax:x64", e);
	/* $argN at a file offset that is a function's first instruction */
	snprintf(f, sizeof(f), "p:g/e {P}:0x%" PRIx64 " a=$arg2", add3);
	snprintf(e, sizeof(e), "p:g/e {P}:0x%" PRIx64 " a=%%si:x64", add3);
	good(f, e);
	/* blanks around words, as the kernel's argv_split */
	snprintf(e, sizeof(e), "p:utrace/add3 {P}:0x%" PRIx64 " x=%%ax:x64", add3);
	good("  p\t{P}:add3   x=%ax  ", e);
}

static void test_accessors(void)
{
	struct utrace_error err = {0};
	struct utrace_uprobe *p;
	char small[8];
	uint64_t off = 1;
	int len;

	if (utrace_uprobe_parse(expand("r:g/e {P}:add3 r=$retval:s64 $comm"), &p, &err) < 0) {
		check(0, "accessors: parse: %s", err.msg);
		return;
	}
	check(!strcmp(utrace_uprobe_group(p), "g") && !strcmp(utrace_uprobe_event(p), "e"),
	      "group and event");
	check(!strcmp(utrace_uprobe_path(p), prog), "absolute path");
	check(utrace_uprobe_is_return(p) && utrace_uprobe_ref_ctr_offset(p) == 0, "return, no ref");
	check(!strcmp(utrace_uprobe_symbol(p, &off), "add3") && off == 0, "symbol and offset");
	check(utrace_uprobe_offset(p) == readelf_offset(prog, nm_addr(prog, "add3")),
	      "offset is the file offset");
	check(utrace_uprobe_nargs(p) == 2 && !strcmp(utrace_uprobe_arg_name(p, 1), "arg2") &&
		  !strcmp(utrace_uprobe_arg_type(p, 1), "string") &&
		  !strcmp(utrace_uprobe_arg_fetch(p, 0), "$retval") &&
		  !strcmp(utrace_uprobe_arg_type(p, 0), "s64") && !utrace_uprobe_arg_name(p, 2),
	      "arguments: names, fetchargs, types");
	len = utrace_uprobe_kernel_line(p, small, sizeof(small));
	check(len > (int)sizeof(small) && strlen(small) == sizeof(small) - 1,
	      "kernel line: truncated, returns the length it needs (%d)", len);
	check(utrace_uprobe_set_name(p, "utrace_42", NULL, &err) == 0 &&
		  !strcmp(utrace_uprobe_group(p), "utrace_42") &&
		  !strcmp(utrace_uprobe_event(p), "e"),
	      "set_name: group only");
	check(utrace_uprobe_set_name(p, NULL, "bad-name", &err) == -EINVAL &&
		  strstr(err.msg, "Event name must follow the same rules as C identifiers"),
	      "set_name: a bad event name: %s", err.msg);
	utrace_uprobe_free(p);
}

/* Symbol -> file offset where vaddr and offset differ. */
static void test_offsets(void)
{
	static const struct {
		const char **path;
		const char *sym;
	} cases[] = {{(const char **)0, "add3"},
		     {(const char **)1, "main"},
		     {(const char **)2, "lib_fn"},
		     {(const char **)2, "lib_other"}};
	const char *paths[] = {prog, nopie, lib};
	bool moved = false;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = paths[(uintptr_t)cases[i].path];
		uint64_t vaddr = nm_addr(path, cases[i].sym), expect = readelf_offset(path, vaddr);
		struct utrace_error err = {0};
		struct utrace_uprobe *p;
		char def[600];

		snprintf(def, sizeof(def), "p %s:%s", path, cases[i].sym);
		if (utrace_uprobe_parse(def, &p, &err) < 0) {
			check(0, "%s: %s", def, err.msg);
			continue;
		}
		check(vaddr && utrace_uprobe_offset(p) == expect,
		      "%s: %s at vaddr 0x%" PRIx64 " is at file offset 0x%" PRIx64
		      " (got 0x%" PRIx64 ")",
		      strrchr(path, '/') + 1, cases[i].sym, vaddr, expect, utrace_uprobe_offset(p));
		moved |= vaddr != expect;
		utrace_uprobe_free(p);
	}
	check(moved, "the fixtures have symbols whose vaddr is not their file offset");
}

struct bad {
	const char *fmt;
	int code;
	const char *at; /* where the caret goes; NULL: just past the end */
	int plus;
};

static void test_bad(void)
{
	static char long_group[80], long_event[80], long_arg[120], nest15[80], nest_long[90],
	    trans_long[90];
	const struct bad cases[] = {
	    {"p /nonexistent/x:0x10", UTRACE_UPROBE_ERR_FILE_NOT_FOUND, "/nonexistent", 0},
	    {"p /tmp:0x10", UTRACE_UPROBE_ERR_NO_REGULAR_FILE, "/tmp", 0},
	    {"p {P}:0x10(zz)", UTRACE_UPROBE_ERR_BAD_REFCNT, "zz", 0},
	    {"p {P}:0x10(0x4", UTRACE_UPROBE_ERR_REFCNT_OPEN_BRACE, NULL, 0},
	    {"p {P}:0x10(0x4)x", UTRACE_UPROBE_ERR_BAD_REFCNT_SUFFIX, ")x", 1},
	    {"p {P}:0x1g", UTRACE_UPROBE_ERR_BAD_UPROBE_OFFS, "0x1g", 0},
	    {"p {P}:add3+zz", UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, "zz", 0},
	    {"r {P}:add3+4", UTRACE_UPROBE_ERR_BAD_RETPROBE, "+4", 0},
	    {"p {P}:add3%ret", UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, "%ret", 0},
	    {"p:/ev {P}:add3", UTRACE_UPROBE_ERR_NO_GROUP_NAME, "/ev", 0},
	    {long_group, UTRACE_UPROBE_ERR_GROUP_TOO_LONG, "ggg", 0},
	    {"p:1g/ev {P}:add3", UTRACE_UPROBE_ERR_BAD_GROUP_NAME, "1g", 0},
	    {"p: {P}:add3", UTRACE_UPROBE_ERR_NO_EVENT_NAME, ":", 1},
	    {long_event, UTRACE_UPROBE_ERR_EVENT_TOO_LONG, "eee", 0},
	    {"p:g/e-v {P}:add3", UTRACE_UPROBE_ERR_BAD_EVENT_NAME, "e-v", 0},
	    {"p {P}:add3 r=$retval", UTRACE_UPROBE_ERR_RETVAL_ON_PROBE, "$retval", 0},
	    {"p {P}:add3 a=$arg0", UTRACE_UPROBE_ERR_BAD_ARG_NUM, "$arg0", 0},
	    {"p {P}:add3 a=$foo", UTRACE_UPROBE_ERR_BAD_VAR, "$foo", 0},
	    {"p {P}:add3 a=$stackx", UTRACE_UPROBE_ERR_BAD_VAR, "$stackx", 0},
	    {"p {P}:add3 a=%foo", UTRACE_UPROBE_ERR_BAD_REG_NAME, "%foo", 0},
	    {"p {P}:add3 a=%eax", UTRACE_UPROBE_ERR_BAD_REG_NAME, "%eax", 0},
	    /* an index register: in-process only, the kernel has no such form */
	    {"p {P}:add3 a=+8(%di,%cx,8)", UTRACE_UPROBE_ERR_BAD_REG_NAME, "%di,", 0},
	    {"p {P}:add3 a=@0xzz", UTRACE_UPROBE_ERR_BAD_MEM_ADDR, "@0xzz", 0},
	    {"p {P}:add3 a=\\zz", UTRACE_UPROBE_ERR_BAD_IMM, "zz", 0},
	    {"p {P}:add3 a=\\\"abc", UTRACE_UPROBE_ERR_IMMSTR_NO_CLOSE, NULL, 0},
	    {"p {P}:add3 a=@+zz", UTRACE_UPROBE_ERR_BAD_FILE_OFFS, "@+zz", 0},
	    {nest15, UTRACE_UPROBE_ERR_TOO_MANY_OPS, "a=+0(", 5},
	    {"p {P}:add3 a=+0", UTRACE_UPROBE_ERR_DEREF_NEED_BRACE, "+0", 0},
	    {"p {P}:add3 a=+zz(%di)", UTRACE_UPROBE_ERR_BAD_DEREF_OFFS, "+zz", 0},
	    {"p {P}:add3 a=+0(%di", UTRACE_UPROBE_ERR_DEREF_OPEN_BRACE, NULL, 0},
	    /* the outer dereference takes the last ')', the inner has none */
	    {"p {P}:add3 a=+8(+0(%di)", UTRACE_UPROBE_ERR_DEREF_OPEN_BRACE, "di)", 2},
	    {"p {P}:add3 a=+0($comm)", UTRACE_UPROBE_ERR_COMM_CANT_DEREF, "$comm", 0},
	    {"p {P}:add3 a=123", UTRACE_UPROBE_ERR_BAD_FETCH_ARG, "123", 0},
	    {"p {P}:add3 a=+0()", UTRACE_UPROBE_ERR_BAD_FETCH_ARG, ")", 0},
	    {"p {P}:add3 a=+0(%di):u8[4", UTRACE_UPROBE_ERR_ARRAY_NO_CLOSE, NULL, 0},
	    {"p {P}:add3 a=+0(%di):u8[4]x", UTRACE_UPROBE_ERR_BAD_ARRAY_SUFFIX, "]x", 1},
	    {"p {P}:add3 a=+0(%di):u8[0]", UTRACE_UPROBE_ERR_BAD_ARRAY_NUM, "0]", 0},
	    {"p {P}:add3 a=+0(%di):u8[65]", UTRACE_UPROBE_ERR_ARRAY_TOO_BIG, "65", 0},
	    {"p {P}:add3 a=%di:u7", UTRACE_UPROBE_ERR_BAD_TYPE, "u7", 0},
	    {"p {P}:add3 a=%di:symbol", UTRACE_UPROBE_ERR_BAD_TYPE, "symbol", 0},
	    {"p {P}:add3 a=%di:b4@2/12", UTRACE_UPROBE_ERR_BAD_TYPE, "b4", 0},
	    {"p {P}:add3 a=%di:string", UTRACE_UPROBE_ERR_BAD_STRING, "string", 0},
	    {"p {P}:add3 a=%di:u8[2]", UTRACE_UPROBE_ERR_BAD_STRING, "u8", 0},
	    {"p {P}:add3 a=%di:b4@30/32", UTRACE_UPROBE_ERR_BAD_BITFIELD, "b4", 0},
	    {"p {P}:add3 a=%di:b0@1/32", UTRACE_UPROBE_ERR_BAD_BITFIELD, "b0", 0},
	    {long_arg, UTRACE_UPROBE_ERR_ARG_NAME_TOO_LONG, "nnn", 0},
	    {"p {P}:add3 =%di", UTRACE_UPROBE_ERR_NO_ARG_NAME, "=%di", 0},
	    {"p {P}:add3 1a=%di", UTRACE_UPROBE_ERR_BAD_ARG_NAME, "1a", 0},
	    {"p {P}:add3 a=%di a=%si", UTRACE_UPROBE_ERR_USED_ARG_NAME, "a=%si", 0},
	    {"p {P}:add3 common_pid=%di", UTRACE_UPROBE_ERR_USED_ARG_NAME, "common_pid", 0},
	    {"p {P}:add3 arg2=%di %si", UTRACE_UPROBE_ERR_USED_ARG_NAME, "%si", 0},
	    {nest_long, UTRACE_UPROBE_ERR_ARG_TOO_LONG, "a=", 2},
	    {"p {P}:add3 a=", UTRACE_UPROBE_ERR_NO_ARG_BODY, NULL, 0},
	    {"p {P}:add3 a=foo", UTRACE_UPROBE_ERR_NOSUP_BTFARG, "foo", 0},
	    {"p {P}:add3+4 a=$arg1", UTRACE_UPROBE_ERR_NOFENTRY_ARGS, "$arg1", 0},
	    {"p {P}:add3 c=$comm:u8", UTRACE_UPROBE_ERR_NEED_STRING_TYPE, "u8", 0},
	    {"p {P}:add3 c=\\\"x\":string[2]", UTRACE_UPROBE_ERR_NEED_STRING_TYPE, "string", 0},
	    {"   ", UTRACE_UPROBE_ERR_NO_DEFINITION, NULL, -3},
	    {"x {P}:add3", UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, "x", 0},
	    {"r2:g/e {P}:add3", UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, "r2", 0},
	    {"p:g/e", UTRACE_UPROBE_ERR_NO_PROBE_POINT, NULL, 1},
	    {"p {P}", UTRACE_UPROBE_ERR_NO_PROBE_POINT, "#", 0},
	    {"p :add3", UTRACE_UPROBE_ERR_NO_PATH, ":add3", 0},
	    {"p {T}:main", UTRACE_UPROBE_ERR_NOT_ELF, "#", 0},
	    {"p {P}:nosuchfn", UTRACE_UPROBE_ERR_NO_SYMBOL, "nosuchfn", 0},
	    {"p {P}:helper", UTRACE_UPROBE_ERR_AMBIGUOUS_SYMBOL, "helper", 0},
	    {"p {P}:add3+100000", UTRACE_UPROBE_ERR_OFFS_BEYOND_SYMBOL, "100000", 0},
	    {"p {P}:fakefn", UTRACE_UPROBE_ERR_NOT_LOADED, "fakefn", 0},
	    {"r {P}:add3 a=$arg1", UTRACE_UPROBE_ERR_ARG_ON_RETPROBE, "$arg1", 0},
	    {"p {P}:add3 a=+0(%di)x", UTRACE_UPROBE_ERR_DEREF_SUFFIX, ")x", 1},
	    {trans_long, UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG, "a=", 2},
	    {"p {P}:add3 a=@nosuchsym", UTRACE_UPROBE_ERR_NO_SYMBOL, "nosuchsym", 0},
	};
	bool tested[UTRACE_UPROBE_ERR_ARG_TRANSLATED_TOO_LONG + 1] = {false};
	char *many;
	size_t len;
	int all = 1;

	snprintf(long_group, sizeof(long_group), "p:%.*s/e {P}:add3", 64,
		 "gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg");
	snprintf(long_event, sizeof(long_event), "p:g/%.*s {P}:add3", 64,
		 "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
	snprintf(long_arg, sizeof(long_arg), "p {P}:add3 %.*s=%%di", 33,
		 "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
	/* 15 nested dereferences: one too many for the kernel's 16 slots */
	snprintf(nest15, sizeof(nest15), "p {P}:add3 a=%s%%di%s",
		 "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(", ")))))))))))))))");
	snprintf(nest_long, sizeof(nest_long), "p {P}:add3 a=%s%%di%s",
		 "+0x100(+0x100(+0x100(+0x100(+0x100(+0x100(+0x100(+0x100(", "))))))))");
	/* 62 characters with "@cc", 67 once it is "@+0x...." */
	snprintf(trans_long, sizeof(trans_long), "p {P}:add3 a=%s@cc%s:u8",
		 "+0x10(+0x10(+0x10(+0x10(+0x10(+0x10(+0x10(+0x10(", "))))))))");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char def[4096], masked[4096];
		struct utrace_error err = {0};
		struct utrace_uprobe *p = NULL;
		const char *at;
		int code = -1, ret, col;

		snprintf(def, sizeof(def), "%s", expand(cases[i].fmt));
		/* find the caret's place outside the fixture's path (now #...) */
		snprintf(masked, sizeof(masked), "%s", def);
		for (char *m = strstr(masked, check_tmpdir()); m && *m && *m != ':' && *m != ' ';
		     m++)
			*m = '#';
		at = cases[i].at ? strstr(masked, cases[i].at) : NULL;
		col = (at ? (int)(at - masked) + 1 : (int)strlen(def) + 1) + cases[i].plus;
		ret = utrace_uprobe_parse_code(def, &p, &code, &err);
		check(ret == -EINVAL && code == cases[i].code && err.column == col &&
			  strstr(err.msg, utrace_uprobe_error_text(cases[i].code)),
		      "'%s': %s at column %d (got %d at %d: %s)", cases[i].fmt,
		      utrace_uprobe_error_text(cases[i].code), col, code, err.column, err.msg);
		check(!p, "'%s': no probe on error", cases[i].fmt);
		utrace_uprobe_free(p);
		if (cases[i].code >= 0 && cases[i].code < (int)(sizeof(tested) / sizeof(tested[0])))
			tested[cases[i].code] = true;
	}

	/* MAX_TRACE_ARGS + 1 arguments: the caret on the first, as the kernel's */
	many = malloc(1024 + 5 * (UTRACE_UPROBE_MAX_ARGS + 1));
	if (many) {
		struct utrace_error err = {0};
		struct utrace_uprobe *p = NULL;
		int code = -1, first;

		len = (size_t)sprintf(many, "p %s:add3", prog);
		first = (int)len + 2;
		for (int i = 0; i <= UTRACE_UPROBE_MAX_ARGS; i++)
			len += (size_t)sprintf(many + len, " %%ax");
		utrace_uprobe_parse_code(many, &p, &code, &err);
		check(code == UTRACE_UPROBE_ERR_TOO_MANY_ARGS && err.column == first,
		      "129 arguments: %s", err.msg);
		tested[UTRACE_UPROBE_ERR_TOO_MANY_ARGS] = true;
		many[len - 4] = 0; /* 128 is fine */
		check(utrace_uprobe_parse(many, &p, &err) == 0 && utrace_uprobe_nargs(p) == 128,
		      "128 arguments are fine");
		utrace_uprobe_free(p);
		free(many);
	}
	/* not a parse error: utrace_inproc_probe_locate's, test_inproc_probe.c tests it */
	tested[UTRACE_UPROBE_ERR_BAD_INSN_BNDRY] = true;
	/* event probes' (lib/probes/eprobe.c): test_eprobe.c tests them */
	tested[UTRACE_UPROBE_ERR_NO_EVENT_INFO] = true;
	tested[UTRACE_UPROBE_ERR_BAD_ATTACH_EVENT] = true;
	tested[UTRACE_UPROBE_ERR_NO_EP_FILTER] = true;
	/* the kernel's BTF arguments from DWARF (inproc_probe_btf.c): test_btfarg.c */
	tested[UTRACE_UPROBE_ERR_NO_RETVAL] = true;
	tested[UTRACE_UPROBE_ERR_NO_BTFARG] = true;
	tested[UTRACE_UPROBE_ERR_NO_BTF_ENTRY] = true;
	tested[UTRACE_UPROBE_ERR_DOUBLE_ARGS] = true;
	tested[UTRACE_UPROBE_ERR_ARGS_2LONG] = true;
	tested[UTRACE_UPROBE_ERR_NO_PTR_STRCT] = true;
	tested[UTRACE_UPROBE_ERR_NOSUP_DAT_ARG] = true;
	tested[UTRACE_UPROBE_ERR_BAD_HYPHEN] = true;
	tested[UTRACE_UPROBE_ERR_NO_BTF_FIELD] = true;
	tested[UTRACE_UPROBE_ERR_BAD_BTF_TID] = true;
	tested[UTRACE_UPROBE_ERR_BAD_TYPE4STR] = true;
	/* the live tracefs's (session_eprobe.c): tests/kernel/tracefs_eprobe.sh */
	tested[UTRACE_UPROBE_ERR_EVENT_EXIST] = true;
	for (int c = 1; c < (int)(sizeof(tested) / sizeof(tested[0])); c++) {
		if (!tested[c]) {
			printf("# untested: %s\n", utrace_uprobe_error_text(c));
			all = 0;
		}
	}
	check(all, "every error of UTRACE_UPROBE_ERRORS is tested");
	check(!strcmp(utrace_uprobe_error_text(0), "No error") &&
		  !strcmp(utrace_uprobe_error_text(9999), "Unknown error"),
	      "error_text out of range");
}

static int build_fixtures(void)
{
	char flags[600];

	if (check_write_file("prog2.c", prog2_src, strlen(prog2_src)) < 0 ||
	    check_write_file("notelf", "hello\n", 6) < 0)
		return -1;
	snprintf(flags, sizeof(flags), "-fPIE -pie prog2.c");
	if (check_build(check_cc(), "prog", "prog.c", prog_src, flags) < 0)
		return -1;
	if (check_build(check_cc(), "nopie", "prog.c", prog_src, "-fno-pie -no-pie prog2.c") < 0)
		return -1;
	/* a library whose segments start at 0x200000, far from offset 0 */
	if (check_build(check_cc(), "libfoo.so", "lib.c", lib_src,
			"-shared -fPIC -Wl,-Ttext-segment=0x200000") < 0)
		return -1;
	snprintf(prog, sizeof(prog), "%s", check_path("prog"));
	snprintf(nopie, sizeof(nopie), "%s", check_path("nopie"));
	snprintf(lib, sizeof(lib), "%s", check_path("libfoo.so"));
	snprintf(text, sizeof(text), "%s", check_path("notelf"));
	return 0;
}

int main(void)
{
	if (!check_have("nm") || !check_have("readelf")) {
		check_skip("uprobe definitions", "nm or readelf (binutils) missing");
		return 0;
	}
	if (check_tmpdir_init("uprobe") < 0 || build_fixtures() < 0) {
		check(0, "fixtures build in %s", check_tmpdir());
		check_tmpdir_cleanup();
		return check_done();
	}
	test_good();
	test_accessors();
	test_offsets();
	test_bad();
	check_tmpdir_cleanup();
	return check_done();
}
