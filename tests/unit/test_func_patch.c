/* SPDX-License-Identifier: MIT */
/*
 * test_func_patch.c - the detour of a patched function entry
 * (lib/probes/func_patch.h, func_patch_cfi.c) on made-up functions: the
 * displaced instructions relocated for a slot far from the function
 * (RIP-relative operands and branch targets kept absolute), the jmp back,
 * a last direct call emulated where C++ exceptions need it, and the
 * slot's call frame instructions (DWARF CFA rules) for pushes and rsp
 * moves, none for a write to rsp they cannot describe.  Then the plan of
 * a built fixture: the entries a jmp cannot take but an int3 can (short
 * functions, a loop to entry + 2, one after an endbr64), and
 * one neither can (a loop back to the entry).  Last, the entries the
 * recording's own kernel uprobes keep (utrace_fpatch_plan_uprobe).
 */
#include <string.h>

#include "lib/probes/func_patch.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"

#define FUNC 0x401000ull
#define SLOT 0x10000000ull /* the slot's xol: 256 MiB away, in rel32 reach */

static struct utrace_fpatch_func fn(const uint8_t *code, uint32_t len)
{
	struct utrace_fpatch_func f = {.func = FUNC, .size = 64, .addr = FUNC, .len = len};

	memcpy(f.code, code, len);
	return f;
}

static int32_t rel_at(const uint8_t *p)
{
	int32_t r;

	memcpy(&r, p, 4);
	return r;
}

/* push %rbx; sub $0x10,%rsp; then jmp back */
static void test_push_sub(void)
{
	static const uint8_t code[] = {0x53, 0x48, 0x83, 0xec, 0x10};
	/* advance 1 (slot offset 6), cfa 16, rbx at cfa-16; advance 4, cfa 32 */
	static const uint8_t want_cfi[] = {0x46, 0x0e, 16, 0x83, 2, 0x44, 0x0e, 32};
	struct utrace_fpatch_func f = fn(code, sizeof(code));
	uint8_t out[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len;
	size_t n = utrace_fpatch_relocate(&f, 0, SLOT, out, sizeof(out), cfi, &cfi_len);

	check(n == 10 && !memcmp(out, code, 5), "push/sub: copied as they are (%zu bytes)", n);
	check(n == 10 && out[5] == 0xe9 && SLOT + 10 + (int64_t)rel_at(out + 6) == FUNC + 5,
	      "push/sub: jmp back to the instruction after them");
	check(cfi_len == sizeof(want_cfi) && !memcmp(cfi, want_cfi, sizeof(want_cfi)),
	      "push/sub: CFA rules rsp+16 with rbx saved, then rsp+32 (%u bytes)", cfi_len);
}

/* mov 0x100(%rip),%eax: the operand keeps its absolute address */
static void test_rip_relative(void)
{
	static const uint8_t code[] = {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
	struct utrace_fpatch_func f = fn(code, sizeof(code));
	uint8_t out[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len;
	size_t n = utrace_fpatch_relocate(&f, 0, SLOT, out, sizeof(out), cfi, &cfi_len);

	check(n == 11 && out[0] == 0x8b && out[1] == 0x05 &&
		  SLOT + 6 + (int64_t)rel_at(out + 2) == FUNC + 6 + 0x100,
	      "rip-relative load: the same address from the slot");
	check(cfi_len == 0, "rip-relative load: no rule changes");
}

/* sub $8,%rsp; call rel32: a plain call, or (C++) the function's own
 * return address pushed and a jmp */
static void test_call(void)
{
	static const uint8_t code[] = {0x48, 0x83, 0xec, 0x08, 0xe8, 0x00, 0x10, 0x00, 0x00};
	uint64_t callee = FUNC + 9 + 0x1000, bias = 0x555500000000ull, ret = bias + FUNC + 9;
	struct utrace_fpatch_func f = fn(code, sizeof(code));
	uint8_t out[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len, lo, hi;
	size_t n = utrace_fpatch_relocate(&f, bias, SLOT, out, sizeof(out), cfi, &cfi_len);

	check(n == 14 && out[4] == 0xe8 && SLOT + 9 + (int64_t)rel_at(out + 5) == callee &&
		  out[9] == 0xe9,
	      "call: relocated to the same callee, then jmp back");
	f.emulate_call = true;
	n = utrace_fpatch_relocate(&f, bias, SLOT, out, sizeof(out), cfi, &cfi_len);
	memcpy(&lo, out + 4 + 8, 4);
	memcpy(&hi, out + 4 + 16, 4);
	check(n == 4 + 25 && out[4] == 0x48 && out[5] == 0x8d && ((uint64_t)hi << 32 | lo) == ret &&
		  out[24] == 0xe9 && SLOT + 29 + (int64_t)rel_at(out + 25) == callee,
	      "emulated call: the function's return address pushed, jmp to the callee");
}

/* mov %rbp,%rsp: no rule for it, the slot gets none */
static void test_no_rule(void)
{
	static const uint8_t code[] = {0x48, 0x89, 0xec, 0x48, 0x89, 0xc3};
	struct utrace_fpatch_func f = fn(code, sizeof(code));
	uint8_t out[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len;
	size_t n = utrace_fpatch_relocate(&f, 0, SLOT, out, sizeof(out), cfi, &cfi_len);

	check(n == 11 && cfi_len == UINT32_MAX, "mov to rsp: relocated, no unwind rules");
}

/* ret alone (an int3 entry): copied, then the (dead) jmp back */
static void test_int3_ret(void)
{
	static const uint8_t code[] = {0xc3};
	struct utrace_fpatch_func f = fn(code, sizeof(code));
	uint8_t out[UTRACE_FPATCH_XOL], cfi[UTRACE_FPATCH_CFI];
	uint32_t cfi_len;
	size_t n = utrace_fpatch_relocate(&f, 0, SLOT, out, sizeof(out), cfi, &cfi_len);

	check(n == 6 && out[0] == 0xc3 && out[1] == 0xe9 &&
		  SLOT + 6 + (int64_t)rel_at(out + 2) == FUNC + 1,
	      "int3 entry, ret: copied, then jmp back (%zu bytes)", n);
}

static const char fixture_src[] =
    "__asm__(\".text\\n\"\n"
    "  \".globl one\\n.type one,@function\\none: ret\\n.size one,.-one\\n\"\n"
    "  \".globl three\\n.type three,@function\\nthree: movl %edi,%eax\\n ret\\n"
    ".size three,.-three\\n\"\n"
    "  \".globl back2\\n.type back2,@function\\nback2: xorl %eax,%eax\\n"
    "1: incl %eax\\n cmpl %edi,%eax\\n jl 1b\\n ret\\n.size back2,.-back2\\n\"\n"
    "  \".globl back0\\n.type back0,@function\\nback0: subl $1,%edi\\n jg back0\\n"
    " movl %edi,%eax\\n ret\\n.size back0,.-back0\\n\"\n"
    "  \".globl ebr\\n.type ebr,@function\\nebr: endbr64\\n xorl %eax,%eax\\n"
    "2: incl %eax\\n cmpl %edi,%eax\\n jl 2b\\n ret\\n.size ebr,.-ebr\\n\"\n"
    "  \".globl big\\n.type big,@function\\nbig: pushq %rbx\\n movl %edi,%ebx\\n"
    " call one\\n movl %ebx,%eax\\n popq %rbx\\n ret\\n.size big,.-big\\n\"\n"
    "  \".globl goexitish\\n.type goexitish,@function\\ngoexitish: nop\\n call one\\n"
    " nop\\n ret\\n.size goexitish,.-goexitish\\n\"\n"
    "  \".globl tgt\\n.type tgt,@function\\ntgt: pushq %rbx\\n movl %edi,%ebx\\n"
    " call one\\n movl %ebx,%eax\\n popq %rbx\\n ret\\n.size tgt,.-tgt\\n\"\n"
    "  \".globl jin\\n.type jin,@function\\njin: testl %edi,%edi\\n jne tgt+1\\n"
    " ret\\n.size jin,.-jin\\n\");\n"
    "int main(void) { return 0; }\n";

static const struct utrace_fpatch_func *find(const struct utrace_fpatch_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->f[i].name, name))
			return &p->f[i];
	return NULL;
}

static void test_plan_int3(void)
{
	struct utrace_fpatch_plan p;
	struct utrace_error err = {0};
	const struct utrace_fpatch_func *f;
	size_t n = 0;

	if (check_build(check_cc(), "fix", NULL, fixture_src, "") < 0 ||
	    utrace_fpatch_plan(check_path("fix"), &p, &err) < 0) {
		check(0, "fixture builds and is planned (%s)", err.msg);
		return;
	}
	f = find(&p, "one");
	check(f && f->why == UTRACE_FPATCH_OK && f->int3 == UTRACE_FPATCH_SHORT && f->len == 1,
	      "1-byte ret: int3, because short, its one byte displaced");
	f = find(&p, "three");
	check(f && f->why == UTRACE_FPATCH_OK && f->int3 == UTRACE_FPATCH_SHORT && f->len == 2,
	      "3 bytes: int3, its first instruction displaced");
	f = find(&p, "back2");
	check(f && f->why == UTRACE_FPATCH_OK && f->int3 == UTRACE_FPATCH_BRANCH_IN && f->len == 2,
	      "loop to entry + 2: int3 on the 2-byte first instruction");
	f = find(&p, "back0");
	check(f && f->why == UTRACE_FPATCH_BRANCH_IN && !f->int3,
	      "loop to the entry: refused, no int3 either");
	f = find(&p, "ebr");
	check(f && f->why == UTRACE_FPATCH_OK && f->int3 == UTRACE_FPATCH_BRANCH_IN &&
		  f->addr == f->func + 4 && f->len == 2,
	      "endbr64, then a loop to entry + 6: int3 after the endbr64");
	f = find(&p, "big");
	check(f && f->why == UTRACE_FPATCH_OK && !f->int3 && f->len >= 5,
	      "a function a jmp can take: no int3");
	f = find(&p, "goexitish");
	check(f && f->why == UTRACE_FPATCH_INSIDE,
	      "a nop, then a call (Go's goexit, entered at +1): left out");
	check(p.runtime == UTRACE_FPATCH_RT_NONE, "a C program: no runtime of its own");
	for (size_t i = 0; i < p.n; i++)
		n += p.f[i].int3 != 0;
	/* the C start-up files may add short functions of their own */
	check(p.nint3 == n && n >= 4, "the plan counts its int3 entries (%zu)", p.nint3);
	utrace_fpatch_plan_free(&p);
}

/* V8's builtins are left out and name the runtime; HotSpot's data symbol
 * names its runtime and leaves every function in. */
static const char v8_src[] =
    "__asm__(\".text\\n\"\n"
    "  \".globl Builtins_Fake\\n.type Builtins_Fake,@function\\nBuiltins_Fake: pushq %rbx\\n"
    " movl %edi,%ebx\\n movl %ebx,%eax\\n popq %rbx\\n ret\\n"
    ".size Builtins_Fake,.-Builtins_Fake\\n\");\n"
    "__attribute__((noinline)) int cxx(int x) { return x * 3 + 1; }\n"
    "int main(int c, char **v) { (void)v; return cxx(c); }\n";
static const char hotspot_src[] =
    "void *gHotSpotVMStructs = 0;\n"
    "__attribute__((noinline)) int jvm(int x) { return x * 3 + 1; }\n"
    "int main(int c, char **v) { (void)v; return jvm(c); }\n";

static void test_plan_runtimes(void)
{
	struct utrace_fpatch_plan p;
	struct utrace_error err = {0};
	const struct utrace_fpatch_func *f;

	if (check_build(check_cc(), "v8", NULL, v8_src, "") < 0 ||
	    utrace_fpatch_plan(check_path("v8"), &p, &err) < 0) {
		check(0, "V8 fixture builds and is planned (%s)", err.msg);
		return;
	}
	check(p.runtime == UTRACE_FPATCH_RT_V8, "Builtins_*: V8's runtime (%u)", p.runtime);
	f = find(&p, "Builtins_Fake");
	check(f && f->why == UTRACE_FPATCH_RUNTIME, "a builtin of V8: left out");
	f = find(&p, "cxx");
	check(f && f->why == UTRACE_FPATCH_OK, "V8's C++: patched");
	utrace_fpatch_plan_free(&p);
	if (check_build(check_cc(), "hs", NULL, hotspot_src, "") < 0 ||
	    utrace_fpatch_plan(check_path("hs"), &p, &err) < 0) {
		check(0, "HotSpot fixture builds and is planned (%s)", err.msg);
		return;
	}
	check(p.runtime == UTRACE_FPATCH_RT_HOTSPOT, "gHotSpotVMStructs: HotSpot (%u)", p.runtime);
	f = find(&p, "jvm");
	check(f && f->why == UTRACE_FPATCH_OK, "HotSpot's functions: patched");
	check(utrace_fpatch_runtime_of(check_path("hs")) == UTRACE_FPATCH_RT_HOTSPOT,
	      "the runtime of a file without a plan");
	utrace_fpatch_plan_free(&p);
}

static bool want_one(void *arg, const char *name, const char *raw)
{
	(void)raw;
	return !strcmp(name, arg);
}

/* A plan of one function decides it as the whole plan does, from every
 * branch of the object (jin's into tgt + 1 included), and plans no other. */
static void test_plan_only(void)
{
	static const char *const names[] = {"one", "three", "back2", "back0", "ebr", "big", "tgt", "main"};
	struct utrace_fpatch_plan all, one;
	struct utrace_error err = {0};

	if (utrace_fpatch_plan(check_path("fix"), &all, &err) < 0) {
		check(0, "fixture planned (%s)", err.msg);
		return;
	}
	check(find(&all, "tgt") && find(&all, "tgt")->why == UTRACE_FPATCH_OK &&
		  find(&all, "tgt")->int3 == UTRACE_FPATCH_BRANCH_IN,
	      "another function's jump into tgt + 1: int3 on tgt");
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct utrace_fpatch_func *a = find(&all, names[k]), *o;
		size_t others = 0;

		if (utrace_fpatch_plan_only(check_path("fix"), want_one, (void *)names[k], &one,
					    &err) < 0) {
			check(0, "%s planned alone (%s)", names[k], err.msg);
			continue;
		}
		o = find(&one, names[k]);
		check(a && o && o->why == a->why && o->int3 == a->int3 && o->len == a->len &&
			  o->addr == a->addr && !memcmp(o->code, a->code, a->len),
		      "%s planned alone: decided as in the whole plan (%s)", names[k],
		      o ? utrace_fpatch_why_text(o->why) : "missing");
		for (size_t i = 0; i < one.n; i++)
			others += one.f[i].why != UTRACE_FPATCH_UNSELECTED &&
				  one.f[i].why != UTRACE_FPATCH_PART && strcmp(one.f[i].name, names[k]);
		check(others == 0, "%s planned alone: no other function decided (%zu)", names[k],
		      others);
		utrace_fpatch_plan_free(&one);
	}
	utrace_fpatch_plan_free(&all);
}

/* Left out for the kernel uprobe of def (on the fixture or another file):
 * how many. */
static size_t uprobe_keeps(struct utrace_fpatch_plan *p, const char *def)
{
	struct utrace_error err = {0};
	struct utrace_uprobe *u;
	size_t n;

	if (utrace_uprobe_parse(def, &u, &err) < 0) {
		check(0, "%s parses (%s)", def, err.msg);
		return 0;
	}
	n = utrace_fpatch_plan_uprobe(p, check_path("fix"), u);
	utrace_uprobe_free(u);
	return n;
}

/* A kernel uprobe at an entry's first bytes (or on the endbr64 before
 * them) takes the entry out of the plan, counted; one after them, or on
 * another file, does not. */
static void test_plan_uprobe(void)
{
	struct utrace_fpatch_plan p;
	struct utrace_error err = {0};
	const struct utrace_fpatch_func *big, *ebr;
	char def[4200];
	size_t ok, nint3;

	if (utrace_fpatch_plan(check_path("fix"), &p, &err) < 0) {
		check(0, "fixture planned (%s)", err.msg);
		return;
	}
	ok = p.count[UTRACE_FPATCH_OK];
	nint3 = p.nint3;
	big = find(&p, "big");
	ebr = find(&p, "ebr");
	snprintf(def, sizeof(def), "p:t/o %s:main", check_path("v8"));
	check(uprobe_keeps(&p, def) == 0, "a uprobe on another file: the plan unchanged");
	snprintf(def, sizeof(def), "p:t/a %s:big+3", check_path("fix"));
	check(uprobe_keeps(&p, def) == 1 && big && big->why == UTRACE_FPATCH_UPROBE,
	      "a uprobe on the third instruction the jmp displaces: big left out");
	snprintf(def, sizeof(def), "r:t/b %s:ebr", check_path("fix"));
	check(uprobe_keeps(&p, def) == 1 && ebr && ebr->why == UTRACE_FPATCH_UPROBE && !ebr->int3,
	      "a return uprobe (its int3 at the entry) on the endbr64: ebr's int3 left out");
	snprintf(def, sizeof(def), "p:t/c %s:back2+2", check_path("fix"));
	check(uprobe_keeps(&p, def) == 0 && find(&p, "back2")->why == UTRACE_FPATCH_OK,
	      "a uprobe after an int3 entry's one instruction: back2 still patched");
	check(p.count[UTRACE_FPATCH_OK] == ok - 2 && p.count[UTRACE_FPATCH_UPROBE] == 2 &&
		  p.nint3 == nint3 - 1,
	      "the plan's counts follow (%zu patched, %zu int3)", p.count[UTRACE_FPATCH_OK],
	      p.nint3);
	check(!strcmp(utrace_fpatch_why_text(UTRACE_FPATCH_UPROBE),
		      "a kernel uprobe of the recording in its first bytes"),
	      "the reason's text");
	utrace_fpatch_plan_free(&p);
}

int main(void)
{
	check_begin("fpatch");
	test_int3_ret();
	test_plan_int3();
	test_plan_runtimes();
	test_plan_only();
	test_plan_uprobe();
	test_push_sub();
	test_rip_relative();
	test_call();
	test_no_rule();
	check(!strcmp(utrace_fpatch_why_text(UTRACE_FPATCH_SHORT),
		      "shorter than the 5 bytes of a jmp"),
	      "reasons: the table's text");
	return check_end();
}
