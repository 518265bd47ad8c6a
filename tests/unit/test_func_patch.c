/* SPDX-License-Identifier: MIT */
/*
 * test_func_patch.c - the detour of a patched function entry
 * (lib/probes/func_patch.h, func_patch_cfi.c) on made-up functions: the
 * displaced instructions relocated for a slot far from the function
 * (RIP-relative operands and branch targets kept absolute), the jmp back,
 * a last direct call emulated where C++ exceptions need it, and the
 * slot's call frame instructions (DWARF CFA rules) for pushes and rsp
 * moves, none for a write to rsp they cannot describe.
 */
#include <string.h>

#include "lib/probes/func_patch.h"
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

int main(void)
{
	test_push_sub();
	test_rip_relative();
	test_call();
	test_no_rule();
	check(!strcmp(utrace_fpatch_why_text(UTRACE_FPATCH_SHORT),
		      "shorter than the 5 bytes of a jmp"),
	      "reasons: the table's text");
	return check_done();
}
