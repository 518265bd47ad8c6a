/* SPDX-License-Identifier: MIT */
/*
 * test_btfarg.c - the kernel's BTF arguments on in-process probes, from
 * DWARF (lib/probes/inproc_probe_btf.c, lib/probes/dwarf_btfarg.c), on a
 * fixture built by gcc and clang at -O0 and -O2: parameter names, $argN
 * and $arg* given their names, fields through "->" and ".", $retval and
 * its fields on a return, a tracepoint probe's prototype, the kernel's
 * default types, the names and texts dynamic_events lists, and every
 * error with its column.  The fetch programs run on made-up registers
 * and memory holding the fixture's structures as this file's own compiler
 * lays them out (the same definitions, offsetof): nothing is written in
 * by hand but the System V argument registers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fetch_prog.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"

/* the fixture's types, compiled here and there */
#define FX_TYPES                                                                                   \
	struct list_head {                                                                         \
		struct list_head *next, *prev;                                                     \
	};                                                                                         \
	struct entity {                                                                            \
		unsigned long load;                                                                \
		struct list_head group_node;                                                       \
	};                                                                                         \
	enum color { RED = 1, GREEN = 2 };                                                         \
	struct task {                                                                              \
		int state;                                                                         \
		struct entity se;                                                                  \
		char comm[16];                                                                     \
		unsigned flag : 3;                                                                 \
		unsigned mode : 5;                                                                 \
		struct {                                                                           \
			short anon_a, anon_b;                                                      \
		};                                                                                 \
		enum color col;                                                                    \
		const char *name;                                                                  \
	};                                                                                         \
	struct filename {                                                                          \
		const char *name;                                                                  \
		int refcnt;                                                                        \
	};                                                                                         \
	struct pair {                                                                              \
		long a, b;                                                                         \
	};
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
FX_TYPES

static const char fx_src[] =
    STR(FX_TYPES) "\n"
		  "volatile long sink;\n"
		  "#define NI __attribute__((noinline))\n"
		  "NI struct filename *getname_flags(const char *filename, int flags)\n"
		  "{ static struct filename fn; fn.name = filename; fn.refcnt = flags; sink++; "
		  "return &fn; }\n"
		  "NI void wake(struct task *p, int n, unsigned char c, long long big, enum color col,\n"
		  "	const char *s, short seventh)\n"
		  "{ sink += p->state + n + c + big + col + s[0] + seventh; }\n"
		  "NI int after_float(double d, int after) { sink += (long)d + after; return after; }\n"
		  "NI void after_pair(struct pair pr, int after) { sink += pr.a + pr.b + after; }\n"
		  "NI void nothing(void) { sink++; }\n"
		  "NI void __utrace_do_tp1(int a, struct task *p) { sink += a + p->state; }\n"
		  "__asm__(\".globl nodw\\n.type nodw,@function\\nnodw: ret\\n.size nodw, 1\\n\");\n"
		  "int main(void)\n"
		  "{\n"
		  "	struct task t = {0};\n"
		  "	struct pair pr = {1, 2};\n"
		  "	wake(&t, 1, 2, 3, GREEN, \"x\", 7);\n"
		  "	getname_flags(\"y\", 0);\n"
		  "	after_float(1.5, 2);\n"
		  "	after_pair(pr, 3);\n"
		  "	nothing();\n"
		  "	__utrace_do_tp1(1, &t);\n"
		  "	return 0;\n"
		  "}\n";

static const char *prog; /* the fixture being tested */
static char cfg[64];

/* The made-up memory: one buffer; any other address faults. */
static uint8_t mem[512];
#define MEM_BASE 0x10000ull
#define TASK_AT 0x000 /* a struct task */
#define STR_AT 0x100  /* "hello" */
#define FN_AT 0x140   /* a struct filename */

static int fake_load(uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t v = 0;

	if (addr < MEM_BASE || addr - MEM_BASE > sizeof(mem) - size)
		return -1;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)mem[addr - MEM_BASE + i] << (8 * i);
	*out = v;
	return 0;
}

static const uint64_t entry_args[6] = {MEM_BASE + TASK_AT, 102, 103, 104, 105, 106};

static uint64_t get(const uint8_t *rec, unsigned off, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)rec[off + i] << (8 * i);
	return v;
}

static const char *str(const uint8_t *rec, unsigned off)
{
	return (const char *)rec + (get(rec, off, 4) & 0xffff);
}

/* Parses def against the fixture (the code and column of a failure in
 * *code and *col); NULL if it fails. */
static struct utrace_inproc_probe *parse(const char *def, int *code, int *col)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;

	*code = 0;
	*col = 0;
	if (utrace_inproc_probe_parse(def, prog, &p, code, &err) < 0) {
		*col = err.column;
		return NULL;
	}
	return p;
}

/* Parses, compiles and runs def on regs; the record in rec. */
static struct utrace_inproc_probe *run(const char *def, const struct utrace_fetch_regs *regs,
				       uint8_t *rec)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	uint32_t len = 0;
	void *fp;
	int code, col;

	memset(rec, 0xee, UTRACE_FETCH_REC_MAX);
	if (!(p = parse(def, &code, &col))) {
		check(0, "%s: parse '%s': %s at %d", cfg, def, utrace_uprobe_error_text(code), col);
		return NULL;
	}
	if (utrace_inproc_probe_compile(p, NULL, NULL, &fp, &len, &err) < 0 ||
	    utrace_fetch_check(fp, len) < 0) {
		check(0, "%s: compile '%s': %s", cfg, def, err.msg);
		utrace_inproc_probe_free(p);
		return NULL;
	}
	utrace_fetch_run(fp, regs, entry_args, "comm", rec, UTRACE_FETCH_REC_MAX, fake_load);
	free(fp);
	return p;
}

/* The arguments as dynamic_events lists them: " NAME=TEXT..." */
static const char *listed(const struct utrace_inproc_probe *p)
{
	static char buf[512];
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < utrace_inproc_probe_nargs(p) && len < sizeof(buf); i++) {
		const char *comm = "", *name = utrace_inproc_probe_arg(p, i, &comm);

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s=%s", name, comm);
	}
	return buf;
}

static bool has_field(const struct utrace_inproc_probe *p, const char *field)
{
	return strstr(utrace_inproc_probe_format_text(p), field) != NULL;
}

static void setup_memory(struct utrace_fetch_regs *r)
{
	struct task t = {.state = -3, .flag = 5, .mode = 21, .anon_b = -9, .col = GREEN};
	struct filename fn = {.name = (const char *)(uintptr_t)(MEM_BASE + STR_AT), .refcnt = 7};
	uint64_t node = MEM_BASE + TASK_AT + offsetof(struct task, se.group_node);
	uint64_t sixth = 0x1234;

	memset(mem, 0, sizeof(mem));
	t.se.group_node.next = t.se.group_node.prev = (struct list_head *)(uintptr_t)node;
	t.name = (const char *)(uintptr_t)(MEM_BASE + STR_AT);
	memcpy(t.comm, "taskcomm", 9);
	memcpy(mem + TASK_AT, &t, sizeof(t));
	memcpy(mem + STR_AT, "hello", 6);
	memcpy(mem + FN_AT, &fn, sizeof(fn));
	memset(r, 0, sizeof(*r));
	r->r[UTRACE_FR_DI] = MEM_BASE + TASK_AT;
	r->r[UTRACE_FR_SI] = (uint64_t)-5;
	r->r[UTRACE_FR_DX] = 0x1ff; /* c: the low byte */
	r->r[UTRACE_FR_CX] = (uint64_t)-40000000000ll;
	r->r[UTRACE_FR_R8] = GREEN;
	r->r[UTRACE_FR_R9] = MEM_BASE + STR_AT;
	r->r[UTRACE_FR_SP] = MEM_BASE + 0x1f0; /* $stack1: seventh, at sp + 8 */
	memcpy(mem + 0x1f8, &sixth, 8);
	r->r[UTRACE_FR_AX] = MEM_BASE + FN_AT;
}

static void check_params(const struct utrace_fetch_regs *r)
{
	uint8_t rec[UTRACE_FETCH_REC_MAX];
	struct utrace_inproc_probe *p;

	p = run("f:e wake p n c big col s seventh", r, rec);
	if (p) {
		check(!strcmp(listed(p), " p=p n=n c=c big=big col=col s=s seventh=seventh"),
		      "%s: unnamed parameters are named by themselves:%s", cfg, listed(p));
		check(get(rec, 16, 8) == MEM_BASE && (int32_t)get(rec, 24, 4) == -5 &&
			  get(rec, 28, 1) == 0xff && (int64_t)get(rec, 29, 8) == -40000000000ll &&
			  get(rec, 37, 4) == GREEN && get(rec, 41, 8) == MEM_BASE + STR_AT &&
			  get(rec, 49, 2) == 0x1234,
		      "%s: each parameter from its register, the seventh from the stack", cfg);
		check(has_field(p, "field:u64 p;") && has_field(p, "field:s32 n;") &&
			  has_field(p, "field:u8 c;") && has_field(p, "field:s64 big;") &&
			  has_field(p, "field:s32 col;") && has_field(p, "field:s16 seventh;"),
		      "%s: the kernel's types: pointer x64, ints by size and sign, enum s32", cfg);
		check(strstr(utrace_inproc_probe_format_text(p), "p=0x%Lx") != NULL,
		      "%s: a pointer prints as x64", cfg);
		utrace_inproc_probe_free(p);
	}
	p = run("f:e wake $arg*", r, rec);
	if (p) {
		check(!strcmp(listed(p), " p=p n=n c=c big=big col=col s=s seventh=seventh"),
		      "%s: $arg* is every parameter by name:%s", cfg, listed(p));
		utrace_inproc_probe_free(p);
	}
	p = run("p:e wake $arg2 $arg6:string x=$arg1", r, rec);
	if (p) {
		check(!strcmp(listed(p), " n=n s=s:string x=$arg1"),
		      "%s: $argN named by its parameter, its type kept; NAME=$argN as written:%s",
		      cfg, listed(p));
		check((int32_t)get(rec, 16, 4) == -5 && !strcmp(str(rec, 20), "hello") &&
			  get(rec, 24, 8) == MEM_BASE,
		      "%s: ... a char * read as the string it points to", cfg);
		utrace_inproc_probe_free(p);
	}
	p = run("f:e after_float after", r, rec);
	if (p) {
		check(get(rec, 16, 4) == (uint32_t)MEM_BASE,
		      "%s: after a double, the first integer register", cfg);
		utrace_inproc_probe_free(p);
	}
	p = run("f:e after_pair after", r, rec);
	if (p) {
		check((int32_t)get(rec, 16, 4) == 0x1ff,
		      "%s: after a 16-byte struct by value (two registers), the third", cfg);
		utrace_inproc_probe_free(p);
	}
}

static void check_fields(const struct utrace_fetch_regs *r)
{
	uint8_t rec[UTRACE_FETCH_REC_MAX];
	struct utrace_inproc_probe *p;

	p = run("f:e wake p->se.group_node.next->prev st=p->state cm=p->comm:string fl=p->flag "
		"md=p->mode b=p->anon_b nm=p->name:string cl=p->col",
		r, rec);
	if (p) {
		check(!strcmp(listed(p), " arg1=p->se.group_node.next->prev st=p->state "
					 "cm=p->comm:string fl=p->flag md=p->mode b=p->anon_b "
					 "nm=p->name:string cl=p->col"),
		      "%s: a field path unnamed is argN, listed as written:%s", cfg, listed(p));
		check(get(rec, 16, 8) ==
			      MEM_BASE + TASK_AT + offsetof(struct task, se.group_node),
		      "%s: -> . . -> -> follows two pointers", cfg);
		check((int32_t)get(rec, 24, 4) == -3 && !strcmp(str(rec, 28), "taskcomm"),
		      "%s: an int member, a char array as a string", cfg);
		check(get(rec, 32, 4) == 5 && get(rec, 36, 4) == 21,
		      "%s: bitfields (%" PRIu64 " %" PRIu64 ")", cfg, get(rec, 32, 4),
		      get(rec, 36, 4));
		check((int16_t)get(rec, 40, 2) == -9 && !strcmp(str(rec, 42), "hello") &&
			  get(rec, 46, 4) == GREEN,
		      "%s: a member of an anonymous struct, a char * member as a string, an enum",
		      cfg);
		check(has_field(p, "field:s16 b;") && has_field(p, "field:s32 cl;"),
		      "%s: members typed by the kernel's rule", cfg);
		utrace_inproc_probe_free(p);
	}
	p = run("f:e getname_flags%return path=$retval->name:string rc=$retval->refcnt fl=flags "
		"$retval",
		r, rec);
	if (p) {
		check(!strcmp(listed(p), " path=$retval->name:string rc=$retval->refcnt fl=flags "
					 "arg4=$retval"),
		      "%s: a return's arguments listed:%s", cfg, listed(p));
		check(!strcmp(str(rec, 24), "hello") && get(rec, 28, 4) == 7 &&
			  get(rec, 32, 4) == 102 && get(rec, 36, 8) == MEM_BASE + FN_AT,
		      "%s: $retval's fields, a parameter from the entry's registers", cfg);
		check(has_field(p, "field:u64 arg4;") && has_field(p, "field:s32 fl;"),
		      "%s: $retval typed by the return type", cfg);
		utrace_inproc_probe_free(p);
	}
	p = run("t:e tp1 $arg* v=p->state", r, rec);
	if (p) {
		check(!strcmp(listed(p), " a=a p=p v=p->state"),
		      "%s: a tracepoint probe's parameters are its prototype:%s", cfg, listed(p));
		check(get(rec, 16, 4) == MEM_BASE && get(rec, 20, 8) == (uint64_t)-5,
		      "%s: ... from the stub's registers", cfg);
		utrace_inproc_probe_free(p);
	}
}

static void check_errors(void)
{
	static const struct {
		const char *def;
		int code, col;
	} cases[] = {
	    {"f wake hoge", UTRACE_UPROBE_ERR_NO_BTFARG, 8},
	    {"f wake $arg8", UTRACE_UPROBE_ERR_NO_BTFARG, 8},
	    {"f wake $arg0", UTRACE_UPROBE_ERR_BAD_ARG_NUM, 8},
	    {"f wake $arg2x", UTRACE_UPROBE_ERR_BAD_VAR, 8},
	    {"f wake $argz", UTRACE_UPROBE_ERR_BAD_VAR, 8},
	    {"f nothing%return $retval", UTRACE_UPROBE_ERR_NO_RETVAL, 18},
	    {"r nothing $retval", UTRACE_UPROBE_ERR_NO_RETVAL, 11},
	    {"f wake $arg* n $arg*", UTRACE_UPROBE_ERR_DOUBLE_ARGS, 16},
	    {"f wake x=$arg*", UTRACE_UPROBE_ERR_BAD_VAR, 10},
	    {"f wake +0($arg*)", UTRACE_UPROBE_ERR_BAD_VAR, 11},
	    {"p wake+4 $arg*", UTRACE_UPROBE_ERR_NOFENTRY_ARGS, 10},
	    {"f after_float%return $retval->x", UTRACE_UPROBE_ERR_NO_PTR_STRCT, 31},
	    {"f getname_flags%return $retval->foo", UTRACE_UPROBE_ERR_NO_BTF_FIELD, 33},
	    {"f wake p->se.nope", UTRACE_UPROBE_ERR_NO_BTF_FIELD, 14},
	    {"f wake p-.x", UTRACE_UPROBE_ERR_BAD_HYPHEN, 9},
	    {"f wake p.state", UTRACE_UPROBE_ERR_NOSUP_DAT_ARG, 10},
	    {"f wake n->x", UTRACE_UPROBE_ERR_NO_PTR_STRCT, 11},
	    {"f wake s->x", UTRACE_UPROBE_ERR_BAD_BTF_TID, 11},
	    {"f wake p->state.x", UTRACE_UPROBE_ERR_BAD_BTF_TID, 17},
	    {"f wake p:string", UTRACE_UPROBE_ERR_BAD_TYPE4STR, 8},
	    {"f wake p->se.load:string", UTRACE_UPROBE_ERR_BAD_TYPE4STR, 14},
	    {"f after_pair pr", UTRACE_UPROBE_ERR_NOSUP_DAT_ARG, 14},
	    {"f after_float d", UTRACE_UPROBE_ERR_NOT_INT_ARG, 15},
	    {"f nodw x", UTRACE_UPROBE_ERR_NO_BTF_ENTRY, 8},
	    {"f nodw $arg*", UTRACE_UPROBE_ERR_NOSUP_BTFARG, 8},
	    {"f wake n n", UTRACE_UPROBE_ERR_USED_ARG_NAME, 10},
	};
	char many[1024];
	size_t len;
	int code, col, first;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_inproc_probe *p = parse(cases[i].def, &code, &col);

		check(!p && code == cases[i].code && col == cases[i].col,
		      "%s: '%s': %s at %d (got %s at %d)", cfg, cases[i].def,
		      utrace_uprobe_error_text(cases[i].code), cases[i].col,
		      utrace_uprobe_error_text(code), col);
		utrace_inproc_probe_free(p);
	}
	/* the names $argN give: at most 128 characters (the kernel's
	 * MAX_BTF_ARGS_LEN), "big" and a blank each time */
	len = (size_t)sprintf(many, "f wake");
	first = 0;
	for (int i = 0; i < 40; i++) {
		if (i == 32)
			first = (int)len + 2;
		len += (size_t)sprintf(many + len, " $arg4");
	}
	parse(many, &code, &col);
	check(code == UTRACE_UPROBE_ERR_ARGS_2LONG && col == first,
	      "%s: names past 128 characters: %s at %d (want %d)", cfg,
	      utrace_uprobe_error_text(code), col, first);
}

static void run_config(const char *cc, const char *opt)
{
	struct utrace_fetch_regs r;
	char out[64], flags[64];

	snprintf(cfg, sizeof(cfg), "%s %s", cc, opt);
	snprintf(out, sizeof(out), "bfx-%s%s", cc, opt);
	snprintf(flags, sizeof(flags), "-g %s", opt);
	if (check_build(cc, out, "bfx.c", fx_src, flags) < 0) {
		check(0, "%s: build the fixture", cfg);
		return;
	}
	prog = check_path(out);
	setup_memory(&r);
	check_params(&r);
	check_fields(&r);
	check_errors();
}

int main(void)
{
	static const char *const ccs[] = {"gcc", "clang"}, *const opts[] = {"-O0", "-O2"};
	struct utrace_inproc_probe *p;
	int code, col;

	check_begin("btfarg");
	for (int c = 0; c < 2; c++) {
		if (!check_have(ccs[c])) {
			check_skip(ccs[c], "not installed");
			continue;
		}
		for (int o = 0; o < 2; o++)
			run_config(ccs[c], opts[o]);
	}
	/* without DWARF: $arg* and names are the kernel's NOSUP_BTFARG,
	 * $argN stays a register */
	snprintf(cfg, sizeof(cfg), "no -g");
	if (check_build(check_cc(), "bfx-nodebug", "bfxnd.c", fx_src, "-g0") == 0) {
		prog = check_path("bfx-nodebug");
		p = parse("f wake $arg*", &code, &col);
		check(!p && code == UTRACE_UPROBE_ERR_NOSUP_BTFARG && col == 8,
		      "no DWARF: $arg* is NOSUP_BTFARG at its column (%d)", col);
		p = parse("f wake x=p", &code, &col);
		check(!p && code == UTRACE_UPROBE_ERR_NOSUP_BTFARG && col == 10,
		      "no DWARF: a name is NOSUP_BTFARG (%d)", col);
		p = parse("f wake $arg2", &code, &col);
		check(p && !strcmp(listed(p), " arg1=$arg2"), "no DWARF: $arg2 stays as written:%s",
		      p ? listed(p) : "");
		utrace_inproc_probe_free(p);
	}
	return check_end();
}
