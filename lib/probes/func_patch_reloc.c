/* SPDX-License-Identifier: MIT */
/*
 * func_patch_reloc.c - a planned entry's displaced instructions
 * re-encoded for its detour slot (lib/probes/func_patch.h,
 * utrace_fpatch_relocate): RIP-relative operands and branch targets kept
 * absolute, the slot's unwind rules (func_patch_cfi.c), and the jmp back.
 * The plan itself (which entries, why) is func_patch.c.
 */
#include <string.h>

#include "lib/probes/func_patch.h"
#include "lib/probes/func_patch_cfi.h"
#include "lib/probes/inproc_probe_internal.h"

/* `jmp to` at out (placed at vaddr from); false if out of rel32 reach. */
static bool fp_jmp(uint8_t *out, uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - (from + 5));
	int32_t rel = (int32_t)d;

	if (d != rel)
		return false;
	out[0] = 0xe9;
	memcpy(out + 1, &rel, 4);
	return true;
}

/*
 * In an object with C++ exceptions, the last displaced instruction, a
 * direct call, becomes a push of
 * the function's own return address (bias + ret, two 32-bit stores after
 * moving rsp, which leave the flags and every register alone) and a jmp
 * to the callee.  The callee returns straight into the function, after
 * the displaced bytes: no return address inside the slot is ever on the
 * stack, so an exception the callee throws finds the function's own
 * landing pad (its .gcc_except_table names the original return address).
 * The callee's ret then returns where no call was made: the CPU's
 * return predictions are off for the returns after it, which is why only
 * such objects get it.
 */
static size_t fp_emulate_call(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			      uint64_t a, uint64_t ret, uint64_t at, uint8_t *out, size_t room)
{
	static const uint8_t below[5] = {0x48, 0x8d, 0x64, 0x24, 0xf8}; /* lea -8(%rsp),%rsp */
	uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);
	ZyanU64 to;

	if (room < 25)
		return 0;
	ZydisCalcAbsoluteAddress(in, &ops[0], a, &to);
	memcpy(out, below, 5);
	out[5] = 0xc7, out[6] = 0x04, out[7] = 0x24; /* movl $lo,(%rsp) */
	memcpy(out + 8, &lo, 4);
	out[12] = 0xc7, out[13] = 0x44, out[14] = 0x24, out[15] = 0x04; /* movl $hi,4(%rsp) */
	memcpy(out + 16, &hi, 4);
	return fp_jmp(out + 20, at + 20, to) ? 25 : 0;
}

size_t utrace_fpatch_relocate(const struct utrace_fpatch_func *f, uint64_t bias, uint64_t at,
			      uint8_t *out, size_t room, uint8_t *cfi, uint32_t *cfi_len)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	struct fp_cfi c;
	size_t n = 0, k;

	*cfi_len = UINT32_MAX;
	fp_cfi_init(&c, cfi, UTRACE_FPATCH_CFI);
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (uint32_t off = 0; off < f->len; off += in.length) {
		if (room < n + 5 || ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, f->code + off,
								       f->len - off, &in, ops)))
			return 0;
		if (f->emulate_call && in.mnemonic == ZYDIS_MNEMONIC_CALL &&
		    off + in.length == f->len && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    ops[0].imm.is_relative) {
			k = fp_emulate_call(&in, ops, f->addr + off, bias + f->addr + f->len,
					    at + n, out + n, room - n);
			fp_cfi_push(&c, (uint32_t)(UTRACE_FPATCH_HEAD + n + 5));
			*cfi_len = k && fp_cfi_done(&c) ? (uint32_t)c.len : UINT32_MAX;
			return k ? n + k : 0;
		}
		k = ipp_reencode(&in, ops, f->addr + off, at + n, out + n, room - n - 5);
		if (!k)
			return 0;
		n += k;
		fp_cfi_insn(&c, &in, ops, (uint32_t)(UTRACE_FPATCH_HEAD + n));
	}
	*cfi_len = fp_cfi_done(&c) ? (uint32_t)c.len : UINT32_MAX;
	if (room < n + 5 || !fp_jmp(out + n, at + n, f->addr + f->len))
		return 0;
	return n + 5;
}
