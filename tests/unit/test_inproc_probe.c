/* SPDX-License-Identifier: MIT */
/*
 * test_inproc_probe.c - in-process probe definitions (lib/probes/inproc_probe.h): the
 * parser's names, kinds and errors (the kernel's messages and columns),
 * the event format, and the fetch programs (common/fetch_prog.h) run on
 * made-up registers and memory: every fetcharg form and type, nesting,
 * bitfields, arrays, strings, and a fault giving a string of length 0
 * (printed "(fault)") and 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fetch_prog.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"

/* The made-up memory: one buffer; any other address faults. */
static uint8_t mem[256];
#define MEM_BASE 0x10000ull

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

static int fake_sym(void *arg, const char *name, uint64_t *addr)
{
	(void)arg;
	if (strcmp(name, "counter"))
		return -1;
	*addr = MEM_BASE + 0x40;
	return 0;
}

static void put64(unsigned off, uint64_t v)
{
	memcpy(mem + off, &v, 8);
}

/* Parses and compiles def, runs it on regs; the record in rec. */
/* a return probe's entry registers $arg1..$arg6 (UTRACE_FR_ENTRY_ARG1..) */
static const uint64_t entry_args[6] = {101, 102, 103, 104, 105, 106};

static uint32_t run(const char *def, const struct utrace_fetch_regs *regs, uint8_t *rec,
		    struct utrace_inproc_probe **out)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	uint32_t len = 0, n;
	void *prog;

	memset(rec, 0xee, UTRACE_FETCH_REC_MAX);
	if (utrace_inproc_probe_parse(def, NULL, &p, NULL, &err) < 0) {
		check(0, "parse '%s': %s", def, err.msg);
		return 0;
	}
	if (utrace_inproc_probe_compile(p, fake_sym, NULL, &prog, &len, &err) < 0 ||
	    utrace_fetch_check(prog, len) < 0) {
		check(0, "compile '%s': %s", def, err.msg);
		utrace_inproc_probe_free(p);
		return 0;
	}
	n = utrace_fetch_run(prog, regs, entry_args, "comm-name", rec, UTRACE_FETCH_REC_MAX,
			     fake_load);
	free(prog);
	if (out)
		*out = p;
	else
		utrace_inproc_probe_free(p);
	return n;
}

static uint64_t get(const uint8_t *rec, unsigned off, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)rec[off + i] << (8 * i);
	return v;
}

static const char *str(const uint8_t *rec, unsigned off)
{
	uint32_t loc = (uint32_t)get(rec, off, 4);

	return (const char *)rec + (loc & 0xffff);
}

static void test_fetch(void)
{
	struct utrace_fetch_regs r = {{0}};
	uint8_t rec[UTRACE_FETCH_REC_MAX];
	struct utrace_inproc_probe *p;
	uint32_t n;

	memset(mem, 0, sizeof(mem));
	put64(0x00, MEM_BASE + 0x20); /* node->next */
	put64(0x08, 0x1122334455667788ull);
	put64(0x10, MEM_BASE + 0x80); /* node->name */
	put64(0x20, 0);		      /* next->next */
	put64(0x28, 77);	      /* next->len */
	put64(0x40, 4242);	      /* counter */
	memcpy(mem + 0x80, "hello", 6);
	mem[0x30] = 0xb5; /* a bitfield byte: 1011 0101 */
	for (int i = 0; i < 4; i++)
		mem[0x60 + 4 * i] = (uint8_t)(10 + i);
	r.r[UTRACE_FR_DI] = MEM_BASE;
	r.r[UTRACE_FR_SI] = (uint64_t)-5;
	r.r[UTRACE_FR_SP] = MEM_BASE + 0x18; /* $stack1 = *(sp + 8) = mem[0x20] */
	r.r[UTRACE_FR_AX] = 99;

	n = run("p:g/e foo a=%di:x64 b=%si:s32 c=$arg2:s8 d=\\42:u16", &r, rec, NULL);
	check(n == 16 + 8 + 4 + 1 + 2, "registers and an immediate: record length %u", n);
	check(get(rec, 16, 8) == MEM_BASE && (int32_t)get(rec, 24, 4) == -5 &&
		  (int8_t)get(rec, 28, 1) == -5 && get(rec, 29, 2) == 42,
	      "registers, $argN and \\IMM stored in their types");

	n = run("p foo+4 l=+8(%di):u32 nl=+8(+0(%di)):u64 st=$stack1:u64 sp=$stack:x64", &r, rec,
		NULL);
	check(get(rec, 16, 4) == 0x55667788 && get(rec, 20, 8) == 77 && get(rec, 28, 8) == 0 &&
		  get(rec, 36, 8) == MEM_BASE + 0x18,
	      "dereferences, nested, $stackN, $stack");

	n = run("p foo s=+0(+16(%di)):string c=$comm q=\\\"lit\" g=@counter:u32 ga=@counter+0:s64",
		&r, rec, NULL);
	check(!strcmp(str(rec, 16), "hello") && !strcmp(str(rec, 20), "comm-name") &&
		  !strcmp(str(rec, 24), "lit") && get(rec, 28, 4) == 4242 &&
		  get(rec, 32, 8) == 4242,
	      "strings from memory, $comm, a string constant, @SYMBOL");
	check(n == 40 + 6 + 10 + 4, "strings go after the fixed part: length %u", n);

	run("p foo b=+0x30(%di):b3@2/8 w=+0x30(%di):b4@4/8 a=+0x60(%di):u32[4] y=%si:symbol", &r,
	    rec, NULL);
	check(get(rec, 16, 1) == 5 && get(rec, 17, 1) == 0xb, "bitfields b3@2/8 and b4@4/8");
	check(get(rec, 18, 4) == 10 && get(rec, 30, 4) == 13 &&
		  get(rec, 34, 8) == (uint64_t)-5,
	      "an array u32[4], a symbol-typed value");

	/* x86's base + index * scale (a USDT note's -8(%rbp,%rcx,4)) */
	r.r[UTRACE_FR_CX] = 3;
	r.r[UTRACE_FR_DX] = (uint64_t)-2;
	n = run("p foo i=+0x28(%di,%cx,8):u64 j=+0x34(%di,%cx,4):u32 k=+0x50(,%cx,8):s64 "
		"l=%di,%dx:x64 m=+0xc(%di,%dx,2):u32",
		&r, rec, NULL);
	check(n == 16 + 8 + 4 + 8 + 8 + 4 && get(rec, 16, 8) == 4242 && get(rec, 24, 4) == 4242 &&
		  get(rec, 28, 8) == 0 && get(rec, 36, 8) == MEM_BASE - 2 &&
		  get(rec, 44, 4) == 0x55667788,
	      "base + index * scale + displacement, a fault, a negative index, no scale "
	      "(%llu %llu %llx %llx)",
	      (unsigned long long)get(rec, 16, 8), (unsigned long long)get(rec, 24, 4),
	      (unsigned long long)get(rec, 36, 8), (unsigned long long)get(rec, 44, 4));
	put64(0x58, 0x8877665544332211ull);
	run("p foo k=+0x10040(,%cx,8):s64", &r, rec, NULL);
	check(get(rec, 16, 8) == 0x8877665544332211ull, "no base: index * scale + displacement");

	run("r foo rv=$retval:u8 bad=+0(%si):u32 bs=+0(%si):string", &r, rec, &p);
	check(get(rec, 24, 1) == 99, "$retval on a return probe, after __probe_func/ret_ip");
	check(get(rec, 25, 4) == 0 && get(rec, 29, 4) >> 16 == 0,
	      "a fault gives 0 for a number and a string of length 0 (the kernel's)");
	utrace_inproc_probe_free(p);
	run("r foo a=$arg1:u64 d=$arg4:u32 r=$retval:u8", &r, rec, &p);
	check(get(rec, 24, 8) == 101 && get(rec, 32, 4) == 104 && get(rec, 36, 1) == 99,
	      "$argN on a return probe: the entry's registers, kept at the hook");
	check(utrace_inproc_probe_kind(p) == UTRACE_IPP_RETURN && !strcmp(utrace_inproc_probe_event(p), "r_foo_0"),
	      "r: gets the kernel's default name r_SYMBOL_0");
	utrace_inproc_probe_free(p);
}

static void test_format(void)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	const char *t;

	if (utrace_inproc_probe_parse("f:grp/ev bar%return rv=$retval:x32 s=+0($retval):string", NULL, &p,
				NULL, &err) < 0) {
		check(0, "parse an fprobe: %s", err.msg);
		return;
	}
	t = utrace_inproc_probe_format_text(p);
	check(utrace_inproc_probe_fprobe(p) && utrace_inproc_probe_kind(p) == UTRACE_IPP_RETURN &&
		  !strcmp(utrace_inproc_probe_group(p), "grp") && !strcmp(utrace_inproc_probe_event(p), "ev"),
	      "f:grp/ev SYMBOL%%return");
	check(strstr(t, "field:unsigned long __probe_func;\toffset:8;\tsize:8;") &&
		  strstr(t, "field:unsigned long __probe_ret_ip;\toffset:16;") &&
		  strstr(t, "field:u32 rv;\toffset:24;\tsize:4;\tsigned:0;") &&
		  strstr(t, "field:__data_loc char[] s;\toffset:28;\tsize:4;\tsigned:1;"),
	      "the kretprobe layout and the argument fields");
	check(strstr(t, "print fmt: \"(%ps <- bar) rv=0x%x s=\\\"%s\\\"\", REC->__probe_ret_ip, "
			"REC->rv, __get_str(s)") != NULL,
	      "the print fmt: (CALLER <- FUNC) name=value");
	check(utrace_inproc_probe_format(p) && utrace_inproc_probe_format(p)->nr_fields == 8,
	      "the format parses: 4 common fields, 2 probe fields, 2 arguments");
	utrace_inproc_probe_free(p);
	if (utrace_inproc_probe_parse("f baz", NULL, &p, NULL, &err) == 0) {
		check(!strcmp(utrace_inproc_probe_event(p), "baz__entry") &&
			  !strcmp(utrace_inproc_probe_group(p), "probes"),
		      "f: gets SYMBOL__entry in the group probes");
		utrace_inproc_probe_free(p);
	}
}

/* t:: an fprobe on __utrace_do_TRACEPOINT, named and listed by TRACEPOINT. */
static void test_tprobe(void)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	uint64_t off = 1;

	if (utrace_inproc_probe_parse("t lt_work n=$arg1:s32", NULL, &p, NULL, &err) < 0) {
		check(0, "parse a tracepoint probe: %s", err.msg);
		return;
	}
	check(utrace_inproc_probe_fprobe(p) && utrace_inproc_probe_kind(p) == UTRACE_IPP_PROBE &&
		  !strcmp(utrace_inproc_probe_tracepoint(p), "lt_work") &&
		  !strcmp(utrace_inproc_probe_symbol(p, &off), "__utrace_do_lt_work") && !off,
	      "t: TRACEPOINT is an fprobe on __utrace_do_TRACEPOINT");
	check(!strcmp(utrace_inproc_probe_event(p), "lt_work"), "t: gets TRACEPOINT as its name");
	utrace_inproc_probe_free(p);
	check(utrace_inproc_probe_is_in_process("t:g/e lt_work"), "t: is in-process");
	if (utrace_inproc_probe_parse("f foo", NULL, &p, NULL, &err) == 0) {
		check(!utrace_inproc_probe_tracepoint(p), "f: has no tracepoint");
		utrace_inproc_probe_free(p);
	}
}

/* Definitions that fail: the kernel's message and its caret's column. */
static void test_errors(void)
{
	static const struct {
		const char *def;
		int code, column;
	} bad[] = {
	    {"", UTRACE_UPROBE_ERR_NO_DEFINITION, 1},
	    {"x:e foo", UTRACE_UPROBE_ERR_BAD_PROBE_TYPE, 1},
	    {"p:1e foo", UTRACE_UPROBE_ERR_BAD_EVENT_NAME, 3},
	    {"p:/e foo", UTRACE_UPROBE_ERR_NO_GROUP_NAME, 3},
	    /* the kernel's errors of a point: at its start */
	    {"p:e foo+x", UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, 5},
	    {"r:e foo+4", UTRACE_UPROBE_ERR_BAD_RETPROBE, 5},
	    {"p:e foo%ret", UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, 8},
	    {"p:e foo $retval", UTRACE_UPROBE_ERR_RETVAL_ON_PROBE, 9},
	    {"p:e foo+4 $arg1", UTRACE_UPROBE_ERR_NOFENTRY_ARGS, 11},
	    {"r:e foo $arg7", UTRACE_UPROBE_ERR_ARG_ON_RETPROBE, 9},
	    /* t: (tracepoint probes): the kernel's trace_fprobe columns */
	    {"t100 foo", UTRACE_UPROBE_ERR_BAD_MAXACT_TYPE, 2},
	    {"t foo-bar", UTRACE_UPROBE_ERR_BAD_TP_NAME, 6},
	    {"t foo%return", UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, 6},
	    {"t foo $retval", UTRACE_UPROBE_ERR_RETVAL_ON_PROBE, 7},
	    {"t foo %ax", UTRACE_UPROBE_ERR_BAD_VAR, 7},
	    {"p:e foo %xx", UTRACE_UPROBE_ERR_BAD_REG_NAME, 9},
	    /* an index register: a register of each, a scale 1 2 4 8 */
	    {"p:e foo +8(%xx,%cx,8)", UTRACE_UPROBE_ERR_BAD_REG_NAME, 12},
	    {"p:e foo +8(%di,%ip,8)", UTRACE_UPROBE_ERR_BAD_REG_NAME, 16},
	    {"p:e foo +8(%di,cx)", UTRACE_UPROBE_ERR_BAD_REG_NAME, 16},
	    {"p:e foo +8(%di,%cx,3)", UTRACE_UPROBE_ERR_BAD_FETCH_ARG, 20},
	    {"p:e foo +8(%di", UTRACE_UPROBE_ERR_DEREF_OPEN_BRACE, 15},
	    {"p:e foo %di:u33", UTRACE_UPROBE_ERR_BAD_TYPE, 13},
	    {"p:e foo %di:string", UTRACE_UPROBE_ERR_BAD_STRING, 13},
	    {"p:e foo a=%di b=%si a=%dx", UTRACE_UPROBE_ERR_USED_ARG_NAME, 21},
	    {"p:e foo +0(%di):u8[65]", UTRACE_UPROBE_ERR_ARRAY_TOO_BIG, 20},
	    {"p:e foo +0(%di):b9@0/8", UTRACE_UPROBE_ERR_BAD_BITFIELD, 17},
	    {"f:e foo+4", UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, 5},
	    /* the kernel's TPARG_FL_KERNEL and _FPROBE rules */
	    {"p:e foo $stack2049", UTRACE_UPROBE_ERR_BAD_STACK_NUM, 9},
	    {"p:e foo @+10", UTRACE_UPROBE_ERR_FILE_ON_KPROBE, 9},
	    {"f:e foo %ax", UTRACE_UPROBE_ERR_BAD_VAR, 9},
	    {"f1:e foo", UTRACE_UPROBE_ERR_BAD_MAXACT, 2},
	    {"-:", UTRACE_UPROBE_ERR_NO_EVENT_NAME, 3},
	    {"p:e foo +0(%di):string[2]", UTRACE_UPROBE_ERR_STRING_ARRAY_IN_PROCESS, 17},
	    {"p5:e foo", UTRACE_UPROBE_ERR_BAD_MAXACT_TYPE, 2},
	    {"r0:e foo", UTRACE_UPROBE_ERR_BAD_MAXACT, 2},
	    {"r4097:e foo", UTRACE_UPROBE_ERR_MAXACT_TOO_BIG, 2},
	    {"r4x:e foo", UTRACE_UPROBE_ERR_BAD_MAXACT, 2}, /* kstrtouint("4x") */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_error err = {0};
		struct utrace_inproc_probe *p = NULL;
		int code = 0, ret = utrace_inproc_probe_parse(bad[i].def, NULL, &p, &code, &err);

		check(ret == -EINVAL && code == bad[i].code && err.column == bad[i].column &&
			  strstr(err.msg, utrace_uprobe_error_text(bad[i].code)),
		      "'%s': %s (got: %s)", bad[i].def, utrace_uprobe_error_text(bad[i].code),
		      ret < 0 ? err.msg : "accepted");
		utrace_inproc_probe_free(p);
	}
}

/* Functions in assembly, so their bytes are known: where a probe can be
 * a jmp (the kernel's optprobe conditions) and where it stays an int3. */
static const char asm_src[] =
    "__asm__(\".text\\n"
    ".globl lin\\n.type lin,@function\\nlin:\\n"
    "  movl $1, %eax\\n  addl $2, %eax\\n  addl $3, %eax\\n  ret\\n.size lin, .-lin\\n"
    ".globl tgt\\n.type tgt,@function\\ntgt:\\n"
    "  xorl %eax, %eax\\n1: addl $2, %eax\\n  cmpl $8, %eax\\n  jne 1b\\n  ret\\n.size tgt, .-tgt\\n"
    ".globl ind\\n.type ind,@function\\nind:\\n"
    "  movl $1, %eax\\n  addl $2, %eax\\n  jmp *%rdi\\n.size ind, .-ind\\n"
    ".globl cal\\n.type cal,@function\\ncal:\\n"
    "  call lin\\n  addl $2, %eax\\n  ret\\n.size cal, .-cal\\n"
    ".globl rip\\n.type rip,@function\\nrip:\\n"
    "  movl val(%rip), %eax\\n  addl $2, %eax\\n  ret\\n.size rip, .-rip\\n"
    ".globl hot\\n.type hot,@function\\nhot:\\n"
    "  xorl %eax, %eax\\n.Lhot_mid: addl $2, %eax\\n  addl $3, %eax\\n  ret\\n.size hot, .-hot\\n"
    ".type hot.cold,@function\\nhot.cold:\\n  jmp .Lhot_mid\\n.size hot.cold, .-hot.cold\\n"
    ".data\\nval: .long 5\\n\");\n"
    "int main(void) { return 0; }\n";

static void test_locate(void)
{
	static const struct {
		const char *def;
		int jmp, call;
		uint32_t moved;
	} cases[] = {
	    {"p lin", 1, 0, 5},	  /* movl $1 is 5 bytes: alone under the jmp */
	    {"p lin+5", 1, 0, 6}, /* two 3-byte adds */
	    {"p tgt", 0, 0, 2},	  /* jne lands at +2, inside the 5 bytes */
	    {"p tgt+2", 1, 0, 6}, /* a branch to the first byte is fine */
	    {"p ind", 0, 0, 5},	  /* an indirect jump: a table could land anywhere */
	    {"p cal", 0, 1, 5},	  /* a call is emulated, never moved */
	    {"p rip", 1, 0, 6},	  /* RIP-relative: moved with its target kept */
	    {"p hot", 0, 0, 2},	  /* hot.cold jumps back to +2 */
	};
	char path[512];

	if (check_build(check_cc(), "asmfix", NULL, asm_src, "-no-pie") < 0) {
		check(0, "build the assembly fixture");
		return;
	}
	snprintf(path, sizeof(path), "%s/asmfix", check_tmpdir());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_inproc_probe_loc loc;
		struct utrace_error err = {0};
		struct utrace_inproc_probe *p;
		int ret;

		if (utrace_inproc_probe_parse(cases[i].def, NULL, &p, NULL, &err) < 0) {
			check(0, "parse %s: %s", cases[i].def, err.msg);
			continue;
		}
		ret = utrace_inproc_probe_locate(p, path, NULL, 0, 0x10000000, NULL, 0, &loc, &err);
		check(ret == 1 && loc.jmp == (cases[i].jmp == 1) && !!loc.call_to == cases[i].call &&
			  (cases[i].call || loc.insn_len == cases[i].moved) &&
			  (cases[i].call || loc.xol[loc.xol_len - 5] == 0xe9),
		      "'%s': %s, %u bytes moved (got ret %d jmp %d call_to %d moved %u)",
		      cases[i].def,
		      cases[i].jmp ? "a jmp" : cases[i].call ? "a call emulated" : "an int3",
		      cases[i].moved, ret, loc.jmp, !!loc.call_to, loc.insn_len);
		utrace_inproc_probe_free(p);
	}
	{ /* inside lin's 5-byte movl: the kernel's -EILSEQ and error text */
		struct utrace_inproc_probe_loc loc;
		struct utrace_error err = {0};
		struct utrace_inproc_probe *p;
		int ret = -1;

		if (utrace_inproc_probe_parse("p lin+2", NULL, &p, NULL, &err) == 0) {
			ret = utrace_inproc_probe_locate(p, path, NULL, 0, 0x10000000, NULL, 0, &loc, &err);
			utrace_inproc_probe_free(p);
		}
		check(ret == -EILSEQ &&
			  strstr(err.msg, "lin+2: Probe point is not an instruction boundary"),
		      "'p lin+2': not an instruction boundary (%d: %s)", ret, err.msg);
	}
	{ /* landing pads (.gcc_except_table) are branch targets no code shows */
		struct utrace_inproc_probe_loc loc;
		struct utrace_error err = {0};
		struct utrace_inproc_probe *p;
		char src[sizeof(asm_src) + 128], eh[512];

		snprintf(src, sizeof(src), "%s__asm__(\".section .gcc_except_table,\\\"a\\\"\\n.byte 0\");\n",
			 asm_src);
		snprintf(eh, sizeof(eh), "%s/asmeh", check_tmpdir());
		utrace_inproc_probe_parse("p lin", NULL, &p, NULL, &err);
		check(check_build(check_cc(), "asmeh", NULL, src, "-no-pie") == 0 &&
			  utrace_inproc_probe_locate(p, eh, NULL, 0, 0x10000000, NULL, 0, &loc, &err) == 1 &&
			  !loc.jmp,
		      "an object with .gcc_except_table keeps its int3s");
		utrace_inproc_probe_free(p);
	}
	{
		struct utrace_inproc_probe_loc loc;
		struct utrace_error err = {0};
		struct utrace_inproc_probe *p;
		uint64_t other;

		utrace_inproc_probe_parse("p lin+5", NULL, &p, NULL, &err);
		utrace_inproc_probe_locate(p, path, NULL, 0, 0x10000000, NULL, 0, &loc, &err);
		other = loc.vaddr + 3;
		check(utrace_inproc_probe_locate(p, path, NULL, 0, 0x10000000, &other, 1, &loc, &err) == 1 &&
			  !loc.jmp && loc.insn_len == 3,
		      "another probe inside the bytes keeps it an int3");
		utrace_inproc_probe_free(p);
	}
}

/* OFFSET(REFCTR) (uprobe_syntax_errors.tc: the kernel's errors at its
 * columns, a well-formed one refused) and @SYMBOL of a PATH: probe,
 * which the file must define (the error at the '@'); col: the OFFSET's. */
static void test_path_refctr(const char *fix, uint64_t lin, int col)
{
	static const struct {
		const char *tail;
		int code, at; /* the caret, from OFFSET's column */
	} bad[] = {
	    {"(1a)", UTRACE_UPROBE_ERR_BAD_REFCNT, 7},
	    {"(10", UTRACE_UPROBE_ERR_REFCNT_OPEN_BRACE, 9},
	    {"(10)a", UTRACE_UPROBE_ERR_BAD_REFCNT_SUFFIX, 10},
	    {"(10)%return", UTRACE_UPROBE_ERR_BAD_REFCNT_SUFFIX, 10},
	    {"(10)", UTRACE_UPROBE_ERR_REFCNT_IN_PROCESS, 7},
	};
	struct utrace_error err = {0};
	struct utrace_inproc_probe *q = NULL;
	char def[2048];
	int code = 0, ret;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* OFFSET is "0x" and 4 hex digits: lin < 0x10000 in the fixture */
		snprintf(def, sizeof(def), "p:e %s:0x%04" PRIx64 "%s", fix, lin, bad[i].tail);
		memset(&err, 0, sizeof(err));
		ret = utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
		check(lin < 0x10000 && ret == -EINVAL && code == bad[i].code &&
			  err.column == col + bad[i].at,
		      "OFFSET%s: %s at OFFSET+%d (got: %s, OFFSET at %d)", bad[i].tail,
		      utrace_uprobe_error_text(bad[i].code), bad[i].at, err.msg, col);
		utrace_inproc_probe_free(q);
		q = NULL;
	}
	snprintf(def, sizeof(def), "p:e %s:0x%" PRIx64 " @val @nosuch", fix, lin);
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_NO_SYMBOL &&
		  err.column == (int)(strstr(def, "@nosuch") - def) + 1,
	      "@SYMBOL the file does not define: at its '@' (%s)", err.msg);
	utrace_inproc_probe_free(q);
}

/* PATH:OFFSET and PATH:SYMBOL points (the kernel's uprobe_events) on the
 * assembly fixture: errors at the kernel's columns, the file offset, the
 * default name and group, the uprobe print format, and where it lands:
 * in that file only. */
static void test_path(const char *fix)
{
	struct utrace_inproc_probe_loc loc;
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p = NULL, *q = NULL;
	uint64_t off = 0, lin;
	char def[2048], other[1024];
	int code = 0, col;

	snprintf(def, sizeof(def), "p:e %s:lin x=%%di:u64", fix);
	check(utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) == 0 &&
		  !strcmp(utrace_inproc_probe_group(p), "uprobes") && utrace_inproc_probe_path(p, &off) &&
		  off > 0,
	      "'p:e PATH:lin': group uprobes, a file offset (%s)", err.msg);
	check(p && strstr(utrace_inproc_probe_format_text(p), "print fmt: \"(0x%lx) x=%Lu\", "
							  "REC->__probe_ip, REC->x\n"),
	      "its print format is the kernel's uprobe one");
	lin = off;
	utrace_inproc_probe_free(p);
	p = NULL;
	snprintf(def, sizeof(def), "r %s:0x%" PRIx64, fix, lin);
	check(utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) == 0 &&
		  utrace_inproc_probe_kind(p) == UTRACE_IPP_RETURN &&
		  !strncmp(utrace_inproc_probe_event(p), "p_asmfix_0x", 11) &&
		  strstr(utrace_inproc_probe_format_text(p), "(0x%lx <- 0x%lx)\", REC->__probe_func, "
							 "REC->__probe_ret_ip"),
	      "'r PATH:0xOFF': a return probe named as the kernel (%s)", p ? utrace_inproc_probe_event(p) : err.msg);
	check(p && utrace_inproc_probe_locate(p, fix, NULL, 0, 0x10000000, NULL, 0, &loc, &err) == 1 &&
		  loc.func == loc.vaddr && loc.kind == UTRACE_IPP_RETURN,
	      "it lands at lin's entry in the fixture (%s)", err.msg);
	snprintf(other, sizeof(other), "%s/asmeh", check_tmpdir());
	check(p && utrace_inproc_probe_locate(p, other, NULL, 0, 0x10000000, NULL, 0, &loc, &err) == 0,
	      "not in another file with the same symbols");
	utrace_inproc_probe_free(p);
	p = NULL;
	snprintf(def, sizeof(def), "p %s:0x%" PRIx64, fix, lin + 5);
	check(utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) == 0 &&
		  utrace_inproc_probe_locate(p, fix, NULL, 0, 0x10000000, NULL, 0, &loc, &err) == 1 &&
		  loc.vaddr == loc.func + 5 && loc.jmp,
	      "PATH:OFFSET inside a function is decoded with it (a jmp: %s)", err.msg);
	utrace_inproc_probe_free(p);
	p = NULL;

	{ /* stripped: no function holds it, so the instruction alone, an int3 */
		char strip[1100], cmd[2400];

		snprintf(strip, sizeof(strip), "%s/asmstrip", check_tmpdir());
		snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s'", strip, fix);
		snprintf(def, sizeof(def), "p %s:0x%" PRIx64, strip, lin + 5);
		check(system(cmd) == 0 &&
			  utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) == 0 &&
			  utrace_inproc_probe_locate(p, strip, NULL, 0, 0x10000000, NULL, 0, &loc, &err) == 1 &&
			  !loc.jmp && loc.func == loc.vaddr && loc.insn_len == 3 &&
			  loc.xol[loc.xol_len - 5] == 0xe9,
		      "PATH:OFFSET with no symbol: an int3, its one instruction moved (%s)", err.msg);
		utrace_inproc_probe_free(p);
		p = NULL;
	}
	snprintf(def, sizeof(def), "f:e %s:lin", fix);
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_BAD_PROBE_TYPE && err.column == 1,
	      "no fprobe at a PATH: point: %s", err.msg);
	snprintf(def, sizeof(def), "p:e /no/such/file:0x10");
	check(utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &p, &code, &err) == -EINVAL &&
		  code == UTRACE_UPROBE_ERR_FILE_NOT_FOUND && err.column == 5,
	      "a missing file: %s", err.msg);
	snprintf(def, sizeof(def), "p:e %s:zz", fix);
	col = 5 + (int)strlen(fix) + 1;
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_NO_SYMBOL && err.column == col, "no such symbol: %s", err.msg);
	snprintf(def, sizeof(def), "p:e %s:0x%" PRIx64 "%%ret", fix, lin);
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_BAD_ADDR_SUFFIX, "a bad suffix: %s", err.msg);
	snprintf(def, sizeof(def), "r:e %s:0x%" PRIx64, fix, lin + 5);
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_BAD_RETPROBE && err.column == col,
	      "a return probe inside a function: %s", err.msg);
	snprintf(def, sizeof(def), "p:e %s:0x1z", fix);
	utrace_inproc_probe_parse_as(def, NULL, "uprobes", true, &q, &code, &err);
	check(code == UTRACE_UPROBE_ERR_BAD_UPROBE_OFFS && err.column == col,
	      "a bad offset: %s", err.msg);
	test_path_refctr(fix, lin, col);
	utrace_inproc_probe_free(q);
}

static void test_maxactive(void)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p = NULL;

	check(utrace_inproc_probe_parse_as("r10:e foo", NULL, "kprobes", false, &p, NULL, &err) == 0 &&
		  utrace_inproc_probe_maxactive(p) == 10 && !strcmp(utrace_inproc_probe_group(p), "kprobes"),
	      "r10: keeps its maxactive; the default group is the one given");
	utrace_inproc_probe_free(p);
}

static void test_in_process(void)
{
	check(utrace_inproc_probe_is_in_process("p:e foo+4 %di") && utrace_inproc_probe_is_in_process("-:e") &&
		  utrace_inproc_probe_is_in_process("f foo"),
	      "definitions without a PATH are in-process");
	check(!utrace_inproc_probe_is_in_process("p:e /bin/true:main") &&
		  !utrace_inproc_probe_is_in_process("p:e ./prog:0x1000") &&
		  !utrace_inproc_probe_is_in_process("p:e prog:0x1000"),
	      "definitions with a PATH go to the kernel");
	check(utrace_inproc_probe_is_in_process("p:e libc.so.6:malloc") &&
		  utrace_inproc_probe_is_in_process("r prog:main%return"),
	      "MODULE:SYMBOL (no '/', no digit after the ':') is in-process");
}

/* MODULE:SYMBOL: the kernel's default name and the module kept; only
 * an object of that file name holds the probe. */
static void test_module(void)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p = NULL;
	uint64_t off = 1;

	check(utrace_inproc_probe_parse_as("p libc.so.6:malloc+4", NULL, "kprobes", false, &p, NULL,
					   &err) == 0 &&
		  !strcmp(utrace_inproc_probe_event(p), "p_libc_so_6_malloc_4") &&
		  !strcmp(utrace_inproc_probe_module(p), "libc.so.6") &&
		  !strcmp(utrace_inproc_probe_symbol(p, &off), "malloc") && off == 4,
	      "p libc.so.6:malloc+4: module, symbol, offset and the kernel's name (%s)",
	      p ? utrace_inproc_probe_event(p) : err.msg);
	check(p && utrace_inproc_probe_module_is(p, "/usr/lib/x86_64-linux-gnu/libc.so.6") &&
		  !utrace_inproc_probe_module_is(p, "/usr/lib/x86_64-linux-gnu/libm.so.6") &&
		  !utrace_inproc_probe_module_is(p, "/tmp/xlibc.so.6"),
	      "only an object named libc.so.6 is the module");
	utrace_inproc_probe_free(p);
}

/* A module named as the real file: the object a process loaded by a link
 * of another name is that module too (utrace bt names its target's real
 * file). */
static void test_module_link(void)
{
	struct utrace_inproc_probe *p = NULL;
	struct utrace_error err = {0};
	char real[512], link[512], other[512];
	FILE *f;

	snprintf(real, sizeof(real), "%s/libmod.so.1.2.3", check_tmpdir());
	snprintf(link, sizeof(link), "%s/libmod.so.1", check_tmpdir());
	snprintf(other, sizeof(other), "%s/libother.so.1", check_tmpdir());
	if ((f = fopen(real, "w")))
		fclose(f);
	if ((f = fopen(other, "w")))
		fclose(f);
	check(symlink(real, link) == 0, "make the link");
	check(utrace_inproc_probe_parse_as("p libmod.so.1.2.3:work", NULL, "kprobes", false, &p,
					   NULL, &err) == 0 &&
		  utrace_inproc_probe_module_is(p, real) && utrace_inproc_probe_module_is(p, link) &&
		  !utrace_inproc_probe_module_is(p, other),
	      "libmod.so.1.2.3 is the object loaded as libmod.so.1, its link, and no other (%s)",
	      err.msg);
	utrace_inproc_probe_free(p);
	unlink(link);
	unlink(real);
	unlink(other);
}

int main(void)
{
	if (check_tmpdir_init("kprobe") < 0)
		return 1;
	test_locate();
	{
		char fix[512];

		snprintf(fix, sizeof(fix), "%s/asmfix", check_tmpdir());
		test_path(fix);
	}
	test_module_link();
	check_tmpdir_cleanup();
	test_maxactive();
	test_in_process();
	test_module();
	test_fetch();
	test_format();
	test_tprobe();
	test_errors();
	return check_done();
}
