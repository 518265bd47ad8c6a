/* SPDX-License-Identifier: MIT */
/*
 * test_dwarf.c - source names to fetch-args (lib/probes/dwarf.h) on a
 * fixture built by gcc and clang at -O0 and -O2: every expression form,
 * the types from DWARF, the prologue rule, line points, -V / -L and the
 * errors with their columns.  The member offsets and bitfield positions
 * expected are the ones this file's own compiler gives the same structure
 * (offsetof, and the bits a bitfield sets), lines are checked back with
 * addr2line, addresses with nm: nothing is written in by hand but the
 * System V argument registers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_tools.h"

#define NODE_DEF                                                                                   \
	"struct node {\n"                                                                          \
	"	int id;\n"                                                                               \
	"	struct node *next;\n"                                                                    \
	"	long len;\n"                                                                             \
	"	unsigned flag : 3;\n"                                                                    \
	"	unsigned mode : 5;\n"                                                                    \
	"	int arr[4];\n"                                                                           \
	"	char name[8];\n"                                                                         \
	"};\n"

struct node {
	int id;
	struct node *next;
	long len;
	unsigned flag : 3;
	unsigned mode : 5;
	int arr[4];
	char name[8];
};

static const char fx_src[] =
    "#include <stdio.h>\n" NODE_DEF "int counter = 5;\n"
    "__attribute__((noinline)) long walk(struct node *p, int count, const char *buf)\n"
    "{\n"
    "	long total = 0;\n"
    "	int i;\n"
    "\n"
    "	for (i = 0; i < count && p; i++) {\n"
    "		total += p->len + p->arr[2];\n"
    "		p = p->next;\n"
    "	}\n"
    "	printf(\"walk %s %ld\\n\", buf, total);\n"
    "	return total;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	struct node b = {.id = 2, .len = 40};\n"
    "	struct node a = {.id = 1, .next = &b, .len = 30};\n"
    "	(void)argv;\n"
    "	return (int)walk(&a, argc + 1, \"hello\");\n"
    "}\n";
/* the fixture's lines: walk's first line and its `total += ...` line */
#define WALK_LINE 12
#define TOTAL_LINE 18

/* The bit a bitfield's lowest bit lands on, in the unsigned after len. */
static int bit_of(int which)
{
	struct node n;
	unsigned u;

	memset(&n, 0, sizeof(n));
	if (which)
		n.mode = 1;
	else
		n.flag = 1;
	memcpy(&u, (char *)&n + offsetof(struct node, len) + sizeof(long), sizeof(u));
	return __builtin_ctz(u);
}

static struct utrace_dwarf *d;
static const char *prog;
static bool optimized;

/* arg converted at vaddr, or "ERR: message" */
static const char *conv(uint64_t vaddr, const char *arg)
{
	static char buf[600];
	struct utrace_error err = {0};
	char *out;

	if (utrace_dwarf_fetcharg(d, vaddr, false, arg, 1, &out, &err) < 0) {
		snprintf(buf, sizeof(buf), "ERR: %s", err.msg);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

/* struct node's definition from DWARF, in fixed-width names, for a
 * caller that lays C structs out itself (utrace bt's casts). */
static void check_struct_def(const char *cfg)
{
	char *text = NULL;
	int ret = utrace_dwarf_struct_def(d, "node", &text);

	check(ret == 0 && text &&
		      !strcmp(text, "struct node { int32 id; struct node * next; int64 len; "
				    "uint32 flag : 3; uint32 mode : 5; int32 arr[4]; char name[8]; "
				    "};\n"),
	      "%s: struct node's definition: %s", cfg, text ? text : "none");
	free(text);
	text = NULL;
	ret = utrace_dwarf_struct_def(d, "no_such_struct", &text);
	check(ret == -ENOENT && !text, "%s: no such struct: -ENOENT (%d)", cfg, ret);
}

/* The base of walk's parameter p: %di at -O2 (in its register at entry),
 * a frame slot "-N(%bp)" at -O0. */
static void check_p_base(const char *cfg, uint64_t at, char *base, size_t size)
{
	const char *got = conv(at, "p");
	int n = 0;

	if (optimized) {
		check(!strcmp(got, "p=%di:x64"), "%s: p is %%di, a pointer as x64 (%s)", cfg, got);
		snprintf(base, size, "%%di");
	} else {
		check(sscanf(got, "p=-%d(%%bp):x64", &n) == 1 && n > 0,
		      "%s: p is in its frame slot -N(%%bp) (%s)", cfg, got);
		snprintf(base, size, "-%d(%%bp)", n);
	}
}

static void check_forms(const char *cfg, uint64_t at)
{
	char base[64], want[256];
	size_t len = offsetof(struct node, len), next = offsetof(struct node, next),
	       arr = offsetof(struct node, arr), name = offsetof(struct node, name);

	check_p_base(cfg, at, base, sizeof(base));
	snprintf(want, sizeof(want), "len=+%zu(+%zu(%s)):s64", len, next, base);
	check(!strcmp(conv(at, "p->next->len"), want), "%s: p->next->len = %s (%s)", cfg, want,
	      conv(at, "p->next->len"));
	snprintf(want, sizeof(want), "arr=+%zu(%s):s32", arr + 2 * sizeof(int), base);
	check(!strcmp(conv(at, "p->arr[2]"), want), "%s: p->arr[2] = %s (%s)", cfg, want,
	      conv(at, "p->arr[2]"));
	snprintf(want, sizeof(want), "all=+%zu(%s):s32[4]", arr, base);
	check(!strcmp(conv(at, "all=p->arr"), want), "%s: a whole array: %s (%s)", cfg, want,
	      conv(at, "all=p->arr"));
	snprintf(want, sizeof(want), "flag=+%zu(%s):b3@%d/32", len + 8, base, bit_of(0));
	check(!strcmp(conv(at, "p->flag"), want), "%s: bitfield flag = %s (%s)", cfg, want,
	      conv(at, "p->flag"));
	snprintf(want, sizeof(want), "mode=+%zu(%s):b5@%d/32", len + 8, base, bit_of(1));
	check(!strcmp(conv(at, "p->mode"), want), "%s: bitfield mode = %s (%s)", cfg, want,
	      conv(at, "p->mode"));
	snprintf(want, sizeof(want), "name=+%zu(%s):string", name, base);
	check(!strcmp(conv(at, "p->name:string"), want), "%s: char array as string = %s (%s)", cfg,
	      want, conv(at, "p->name:string"));
	snprintf(want, sizeof(want), "id=+0(%s):x32", base);
	check(!strcmp(conv(at, "p->id:x32"), want), "%s: the user's type kept: %s (%s)", cfg, want,
	      conv(at, "p->id:x32"));
	check(strstr(conv(at, "*p->next"), "fetched whole: name a member at column 1") != NULL,
	      "%s: *p->next is a structure: refused (%s)", cfg, conv(at, "*p->next"));
	check(!strcmp(conv(at, "counter"), "counter=@counter+0:s32"),
	      "%s: a global by its symbol (%s)", cfg, conv(at, "counter"));
	if (optimized) {
		check(!strcmp(conv(at, "count"), "count=%si:s32"), "%s: count in %%si (%s)", cfg,
		      conv(at, "count"));
		check(!strcmp(conv(at, "buf:string"), "buf_string=+0(%dx):string"),
		      "%s: buf:string behind %%dx (%s)", cfg, conv(at, "buf:string"));
		check(!strcmp(conv(at, "*buf"), "buf=+0(%dx):s8"), "%s: *buf, a char (%s)", cfg,
		      conv(at, "*buf"));
	} else {
		int n;

		check(sscanf(conv(at, "count"), "count=-%d(%%bp):s32", &n) == 1,
		      "%s: count in its frame slot (%s)", cfg, conv(at, "count"));
		check(sscanf(conv(at, "buf:string"), "buf_string=+0(-%d(%%bp)):string", &n) == 1,
		      "%s: buf:string behind its slot (%s)", cfg, conv(at, "buf:string"));
		check(sscanf(conv(at, "*buf"), "buf=+0(-%d(%%bp)):s8", &n) == 1,
		      "%s: *buf, a char (%s)", cfg, conv(at, "*buf"));
	}
}

static void check_errors(const char *cfg, uint64_t at)
{
	struct utrace_error err = {0};
	char *out = NULL;
	static const struct {
		const char *arg, *text;
		int column;
	} bad[] = {
	    {"cnt", "Failed to find the variable in this function at column 1", 1},
	    {"p->nope", "No such member at column 4", 4},
	    {"p.len", "A pointer must be referred by '->' at column 2", 2},
	    {"count->x", "Not a pointer at column 6", 6},
	    {"count:string", "Only a char pointer or a char array can be a string at column 1", 1},
	    {"p->next->", "Invalid variable expression at column 10", 10},
	    {"x=p->arr[a]", "Invalid variable expression at column 10", 10},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(strstr(conv(at, bad[i].arg), bad[i].text) != NULL, "%s: '%s': %s (%s)", cfg,
		      bad[i].arg, bad[i].text, conv(at, bad[i].arg));
	check(utrace_dwarf_fetcharg(d, at, true, "count", 5, &out, &err) == -EINVAL &&
		  strstr(err.msg, "return probe") && err.column == 5,
	      "%s: no names on a return probe, column 5 (%s)", cfg, err.msg);
}

/* addr2line's line for vaddr. */
static int line_of(uint64_t vaddr)
{
	char cmd[512], *out;
	int line = -1;

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' 0x%" PRIx64, prog, vaddr);
	out = run(cmd);
	if (out && strchr(out, ':'))
		line = atoi(strchr(out, ':') + 1);
	free(out);
	return line;
}

static void check_lines(const char *cfg, uint64_t entry)
{
	struct utrace_error err = {0};
	uint64_t a = 0, b = 0, off = 0;
	char *func = NULL, spec[64];

	snprintf(spec, sizeof(spec), "fx.c:%d", TOTAL_LINE);
	check(utrace_dwarf_line_addr(d, spec, 1, &a, &func, &off, &err) == 0 &&
		  line_of(a) == TOTAL_LINE && func && !strcmp(func, "walk") && a == entry + off,
	      "%s: FILE:LINE %s at walk+%" PRIu64 ", addr2line says line %d (%s)", cfg, spec, off,
	      line_of(a), err.msg);
	free(func);
	func = NULL;
	snprintf(spec, sizeof(spec), "walk:%d", TOTAL_LINE - WALK_LINE);
	check(utrace_dwarf_line_addr(d, spec, 1, &b, &func, &off, &err) == 0 && b == a,
	      "%s: SYMBOL:LINE %s is the same address (%s)", cfg, spec, err.msg);
	free(func);
	func = NULL;
	check(utrace_dwarf_line_addr(d, "walk:4", 7, &b, &func, &off, &err) == -EINVAL &&
		  err.column == 12 && strstr(err.msg, "No probe-able code"),
	      "%s: a blank line is refused at its number's column (%s)", cfg, err.msg);
	check(utrace_dwarf_line_addr(d, "nosuch.c:3", 7, &b, &func, &off, &err) == -EINVAL &&
		  err.column == 7 && strstr(err.msg, "No such source file"),
	      "%s: an unknown file is refused (%s)", cfg, err.msg);
	if (optimized) {
		snprintf(spec, sizeof(spec), "walk:%d", TOTAL_LINE - WALK_LINE + 3);
		check(utrace_dwarf_line_addr(d, spec, 1, &b, &func, &off, &err) == 0 &&
			  strstr(conv(b, "i"), "optimized out"),
		      "%s: i after the loop is optimised out (%s)", cfg, conv(b, "i"));
		free(func);
	}
}

static void check_listings(const char *cfg)
{
	struct utrace_error err = {0};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	bool ok;

	check(utrace_dwarf_list_vars(d, "walk", f, &err) == 0, "%s: -V walk (%s)", cfg, err.msg);
	fflush(f);
	ok = text && !strncmp(text, "Available variables at walk\n\t@<walk+0>\n", 39) &&
	     strstr(text, "\t\tchar*\tbuf\n\t\tint\tcount\n") &&
	     strstr(text, "\t\tstruct node*\tp\n") && !strstr(text, "total") == optimized;
	check(ok, "%s: -V lists buf, count, p (and total only at -O0)", cfg);
	if (!ok)
		printf("# %s\n", text ? text : "");
	fclose(f);
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	check(utrace_dwarf_list_lines(d, "walk", f, &err) == 0, "%s: -L walk (%s)", cfg, err.msg);
	fflush(f);
	ok = text && strstr(text, "fx.c:0>\n      0  __attribute__((noinline)) long walk(") &&
	     strstr(text, "      6  \t\ttotal += p->len + p->arr[2];\n") &&
	     strstr(text, "         \tint i;\n");
	check(ok, "%s: -L numbers walk's code lines from 0, not its declarations", cfg);
	if (!ok)
		printf("# %s\n", text ? text : "");
	fclose(f);
	free(text);
}

/* Through the definition parser (lib/probes/uprobe.c): the kernel line. */
static void check_definitions(const char *cfg, uint64_t at, uint64_t line_addr)
{
	struct utrace_error err = {0};
	struct utrace_uprobe *p;
	char def[512], line[1024], want[256];

	snprintf(def, sizeof(def), "p %s:walk count p->next->len", prog);
	if (utrace_uprobe_parse(def, &p, &err) < 0) {
		check(0, "%s: '%s' (%s)", cfg, def, err.msg);
		return;
	}
	utrace_uprobe_kernel_line(p, line, sizeof(line));
	snprintf(want, sizeof(want), "%s:0x%" PRIx64 " ", prog, readelf_offset(prog, at));
	check(strstr(line, want) && strstr(line, " count=") && strstr(line, " len=+16(+8(") &&
		  !strcmp(utrace_uprobe_event(p), "walk"),
	      "%s: names in a definition, at the probe's address (%s)", cfg, line);
	utrace_uprobe_free(p);
	snprintf(def, sizeof(def), "p %s:fx.c:%d p->len", prog, TOTAL_LINE);
	if (utrace_uprobe_parse(def, &p, &err) < 0) {
		check(0, "%s: '%s' (%s)", cfg, def, err.msg);
		return;
	}
	utrace_uprobe_kernel_line(p, line, sizeof(line));
	snprintf(want, sizeof(want), "p:utrace/walk_L%d %s:0x%" PRIx64 " len=+16(",
		 TOTAL_LINE - WALK_LINE, prog, readelf_offset(prog, line_addr));
	check(!strncmp(line, want, strlen(want)), "%s: FILE:LINE named as perf names it: %s (%s)",
	      cfg, want, line);
	utrace_uprobe_free(p);
	snprintf(def, sizeof(def), "p %s:walk cnt", prog);
	check(utrace_uprobe_parse(def, &p, &err) == -EINVAL && err.column == (int)strlen(prog) + 9 &&
		  strstr(err.msg, "Failed to find the variable"),
	      "%s: a DWARF error's column is the definition's (%s)", cfg, err.msg);
}

static void run_config(const char *cc, const char *opt)
{
	char cfg[64], flags[64], out[64];
	struct utrace_error err = {0};
	uint64_t entry, at;

	snprintf(cfg, sizeof(cfg), "%s %s", cc, opt);
	snprintf(out, sizeof(out), "fx-%s%s", cc, opt);
	snprintf(flags, sizeof(flags), "-g %s", opt);
	if (check_build(cc, out, "fx.c", fx_src, flags) < 0) {
		check(0, "%s: build the fixture", cfg);
		return;
	}
	prog = check_path(out);
	optimized = strcmp(opt, "-O0") != 0;
	entry = nm_addr(prog, "walk");
	if (utrace_dwarf_open(prog, &d, &err) < 0) {
		check(0, "%s: open its DWARF (%s)", cfg, err.msg);
		return;
	}
	at = entry;
	utrace_dwarf_skip_prologue(d, entry, &at);
	if (optimized)
		check(at == entry, "%s: optimised: the probe stays on the entry", cfg);
	else
		check(at > entry && line_of(at) == WALK_LINE + 2,
		      "%s: -O0: past the prologue, on the first line of the body (line %d)", cfg,
		      line_of(at));
	check_forms(cfg, at);
	check_errors(cfg, at);
	check_lines(cfg, entry);
	{
		uint64_t la = 0, off;
		char *fn = NULL, spec[32];

		snprintf(spec, sizeof(spec), "fx.c:%d", TOTAL_LINE);
		utrace_dwarf_line_addr(d, spec, 1, &la, &fn, &off, &err);
		free(fn);
		check_definitions(cfg, at, la);
	}
	check_listings(cfg);
	check_struct_def(cfg);
	utrace_dwarf_close(d);
	d = NULL;
}

int main(void)
{
	static const char *const ccs[] = {"gcc", "clang"}, *const opts[] = {"-O0", "-O2"};
	struct utrace_error err = {0};
	struct utrace_dwarf *none;
	char *args[2] = {strdup("count"), strdup("%di")};
	int cols[2] = {10, 16};
	uint64_t v = 0;

	check_begin("dwarf");
	for (int c = 0; c < 2; c++) {
		if (!check_have(ccs[c])) {
			check_skip(ccs[c], "not installed");
			continue;
		}
		for (int o = 0; o < 2; o++)
			run_config(ccs[c], opts[o]);
	}
	/* no -g: -ENODATA, and the hook leaves the arguments alone */
	if (check_build(check_cc(), "nodebug", "nd.c", fx_src, "-g0") == 0) {
		check(utrace_dwarf_open(check_path("nodebug"), &none, &err) == -ENODATA &&
			  strstr(err.msg, "No debug information"),
		      "no DWARF: -ENODATA (%s)", err.msg);
		check(utrace_dwarf_rewrite_args(check_path("nodebug"), &v, true, false, args, cols,
						2, &err) == -ENODATA &&
			  !strcmp(args[0], "count"),
		      "no DWARF: the rewrite says so and changes nothing");
	}
	free(args[0]);
	free(args[1]);
	check(utrace_dwarf_is_name_arg("count") && utrace_dwarf_is_name_arg("n=p->x") &&
		  utrace_dwarf_is_name_arg("*ptr") && !utrace_dwarf_is_name_arg("%di") &&
		  !utrace_dwarf_is_name_arg("x=+8(%si)") && !utrace_dwarf_is_name_arg("$arg1") &&
		  !utrace_dwarf_is_name_arg("@sym") && !utrace_dwarf_is_name_arg("\\1"),
	      "names and the kernel's fetch-args told apart");
	check(utrace_dwarf_is_line_point("walk:3") && utrace_dwarf_is_line_point("a/b.c:12") &&
		  !utrace_dwarf_is_line_point("walk") && !utrace_dwarf_is_line_point("walk+4") &&
		  !utrace_dwarf_is_line_point("0x1139"),
	      "line points told apart");
	return check_end();
}
