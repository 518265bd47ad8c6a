/* SPDX-License-Identifier: MIT */
/*
 * test_fetch_fast.c - a probe's fetch-args as copies (common/fetch_fast.h)
 * against the interpreter they stand in for (common/fetch_prog.h): the
 * same definitions, compiled by the tool, run both ways on the same
 * made-up registers and memory (faults included, entry and return
 * probes); the records must be the same bytes and the same length.  Also
 * which definitions take the copies: registers, fields, $stackN, @SYM,
 * immediates and bit-fields do; nested dereferences, strings, arrays and
 * $comm do not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fetch_fast.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "tests/unit/check.h"

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

static const uint64_t entry_args[6] = {101, 102, 103, 104, 105, 106};

/* def compiled; 0 with *prog, or -1 */
static int compile(const char *def, void **prog)
{
	struct utrace_error err = {0};
	struct utrace_inproc_probe *p;
	uint32_t len = 0;
	int ok;

	if (utrace_inproc_probe_parse(def, NULL, &p, NULL, &err) < 0) {
		check(0, "parse '%s': %s", def, err.msg);
		return -1;
	}
	ok = utrace_inproc_probe_compile(p, fake_sym, NULL, prog, &len, &err) == 0 &&
	     utrace_fetch_check(*prog, len) == 0;
	check(ok, "compiles: %s %s", def, err.msg);
	utrace_inproc_probe_free(p);
	return ok ? 0 : -1;
}

/* def run both ways on regs, with and without the entry arguments */
static void same(const char *def, const struct utrace_fetch_regs *r)
{
	uint8_t want[UTRACE_FETCH_REC_MAX], got[UTRACE_FETCH_REC_MAX];
	struct utrace_fetch_fast f;
	void *prog;
	int eq = 1;

	if (compile(def, &prog) < 0)
		return;
	check(utrace_fetch_fast_of(prog, &f) == 0, "takes the copies: %s", def);
	for (int e = 0; e < 2; e++) {
		const uint64_t *entry = e ? entry_args : NULL;
		uint32_t n, m;

		memset(want, 0xee, sizeof(want));
		memset(got, 0xee, sizeof(got));
		n = utrace_fetch_run(prog, r, entry, "comm-name", want, sizeof(want), fake_load);
		m = utrace_fetch_fast_run(&f, r, entry, got, fake_load);
		eq &= n == m && !memcmp(want, got, sizeof(want));
	}
	check(eq, "the same record: %s", def);
	free(prog);
}

static void refused(const char *def)
{
	struct utrace_fetch_fast f;
	void *prog;

	if (compile(def, &prog) < 0)
		return;
	check(utrace_fetch_fast_of(prog, &f) < 0, "left to the interpreter: %s", def);
	free(prog);
}

/* the registers def's copies read (fetch_fast.h: the lean trampoline's test) */
static void regs(const char *def, uint32_t want)
{
	struct utrace_fetch_fast f;
	uint32_t got = 0;
	void *prog;

	if (compile(def, &prog) < 0)
		return;
	if (utrace_fetch_fast_of(prog, &f) == 0)
		got = utrace_fetch_fast_regs(&f);
	check(got == want, "reads registers %#x: %s (%#x)", want, def, got);
	free(prog);
}

int main(void)
{
	struct utrace_fetch_regs r = {{0}};

	for (unsigned i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 37 + 11);
	r.r[UTRACE_FR_DI] = MEM_BASE;
	r.r[UTRACE_FR_SI] = MEM_BASE + 0x10;
	r.r[UTRACE_FR_DX] = (uint64_t)-5;
	r.r[UTRACE_FR_R8] = 0x42; /* points nowhere: its fields fault */
	r.r[UTRACE_FR_SP] = MEM_BASE + 0x18;
	r.r[UTRACE_FR_AX] = 99;

	same("p:e hit a=%di:u64 b=+8(%si):u32", &r);
	same("p foo a=%dx:s8 b=%dx:x16 c=$arg3:s32 d=\\42:u16 e=+0(%di):u64", &r);
	same("p foo+4 st=$stack1:u64 sp=$stack:x64 g=@counter:u32 ga=@counter+8:s64", &r);
	same("p foo f=+8(%r8):u32 g=-4(%r8):u64 h=+0x30(%di):b3@2/8 w=+0x30(%di):b4@4/8", &r);
	same("r foo rv=$retval:u8 a=$arg1:u64 d=$arg4:u32 x=+4(%si):s16", &r);
	regs("p:e hit a=%di:u64 b=+8(%si):u32", 1u << UTRACE_FR_DI | 1u << UTRACE_FR_SI);
	regs("p foo a=$arg3:s32 b=$arg5:u64 d=\\42:u16 g=@counter:u32",
	     1u << UTRACE_FR_DX | 1u << UTRACE_FR_R8);
	regs("p foo b=%bx:u64 r=+8(%r12):u32 p=%bp:x64",
	     1u << UTRACE_FR_BX | 1u << UTRACE_FR_R12 | 1u << UTRACE_FR_BP);
	regs("p foo st=$stack1:u64 f=%flags:x64", 1u << UTRACE_FR_SP | 1u << UTRACE_FR_FLAGS);
	regs("r foo rv=$retval:u8 a=$arg1:u64", 1u << UTRACE_FR_AX);
	refused("p foo nl=+8(+0(%di)):u64");
	refused("p foo s=+0(%di):string");
	refused("p foo c=$comm");
	refused("p foo a=+0x60(%di):u32[4]");
	return check_done();
}
