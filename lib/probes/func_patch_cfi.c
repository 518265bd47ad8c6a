/* SPDX-License-Identifier: MIT */
/*
 * func_patch_cfi.c - the unwind rules of a detour slot
 * (runtime/func_patch.c): DWARF call frame instructions for the FDE the
 * runtime registers for each slot, so that an unwinder (C++ exceptions,
 * backtrace(), gdb) that meets a return address inside a slot - a call
 * among the displaced instructions - can step out to the function's
 * caller.
 *
 * The slot starts where the function starts: CFA = rsp + 8, the return
 * address at CFA - 8 (the CIE's rules).  The `call stub` and the tracer's
 * trampoline return before the displaced instructions run, so only these
 * change the rules: a push moves the CFA 8 bytes further and, for a
 * register, saves it at the new rsp; sub/add/lea on rsp move it by their
 * immediate.  Any other write to rsp (mov, and, leave, a pop into it)
 * has no rule here: the slot then gets no FDE, and an unwinder stops
 * there as it would in any code without unwind information.
 */
#include <string.h>

#include "lib/probes/func_patch_cfi.h"

void fp_cfi_init(struct fp_cfi *c, uint8_t *out, size_t room)
{
	memset(c, 0, sizeof(*c));
	c->cfa = 8;
	c->out = out;
	c->room = room;
	c->ok = true;
}

static void fp_cfi_byte(struct fp_cfi *c, unsigned b)
{
	if (c->len < c->room && c->out)
		c->out[c->len] = (uint8_t)b;
	c->len++;
}

static void fp_cfi_uleb(struct fp_cfi *c, uint32_t v)
{
	do {
		fp_cfi_byte(c, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* The DWARF number of a 64-bit general register, -1 if it is not one. */
static int fp_dwarf_reg(ZydisRegister r)
{
	static const ZydisRegister map[16] = {
	    ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RBX,
	    ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_RSP,
	    ZYDIS_REGISTER_R8,	ZYDIS_REGISTER_R9,  ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
	    ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R15};

	for (int i = 0; i < 16; i++)
		if (map[i] == r)
			return i;
	return -1;
}

/* The rules from code offset end on: CFA = rsp + c->cfa, and reg (if
 * >= 0) saved at the new top of the stack. */
static void fp_cfi_emit(struct fp_cfi *c, uint32_t end, int reg)
{
	uint32_t d = end - c->loc;

	if (d < 64) {
		fp_cfi_byte(c, 0x40 | d); /* advance_loc */
	} else {
		fp_cfi_byte(c, 0x02); /* advance_loc1 */
		fp_cfi_byte(c, d);
	}
	c->loc = end;
	fp_cfi_byte(c, 0x0e); /* def_cfa_offset */
	fp_cfi_uleb(c, (uint32_t)c->cfa);
	if (reg >= 0) {
		fp_cfi_byte(c, 0x80 | (unsigned)reg); /* offset: at CFA - cfa, factor -8 */
		fp_cfi_uleb(c, (uint32_t)c->cfa / 8);
	}
}

void fp_cfi_insn(struct fp_cfi *c, const ZydisDecodedInstruction *in,
		 const ZydisDecodedOperand *ops, uint32_t end)
{
	const ZydisDecodedOperand *d = &ops[0];
	bool rsp_dst = in->operand_count_visible > 0 && d->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		       d->reg.value == ZYDIS_REGISTER_RSP;
	int32_t was = c->cfa;

	if (!c->ok)
		return;
	if (in->mnemonic == ZYDIS_MNEMONIC_PUSH && in->operand_width == 64) {
		c->cfa += 8;
		fp_cfi_emit(c, end,
			    d->type == ZYDIS_OPERAND_TYPE_REGISTER ? fp_dwarf_reg(d->reg.value)
								   : -1);
		return;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_POP && !rsp_dst && in->operand_width == 64)
		c->cfa -= 8;
	else if ((in->mnemonic == ZYDIS_MNEMONIC_SUB || in->mnemonic == ZYDIS_MNEMONIC_ADD) &&
		 rsp_dst && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
		c->cfa += (int32_t)(in->mnemonic == ZYDIS_MNEMONIC_SUB ? ops[1].imm.value.s
								       : -ops[1].imm.value.s);
	else if (in->mnemonic == ZYDIS_MNEMONIC_LEA && rsp_dst &&
		 ops[1].mem.base == ZYDIS_REGISTER_RSP && ops[1].mem.index == ZYDIS_REGISTER_NONE)
		c->cfa -= (int32_t)ops[1].mem.disp.value;
	else if (rsp_dst || in->mnemonic == ZYDIS_MNEMONIC_ENTER ||
		 in->mnemonic == ZYDIS_MNEMONIC_LEAVE)
		c->ok = false;
	if (c->ok && c->cfa != was)
		fp_cfi_emit(c, end, -1);
	if (c->cfa < 8)
		c->ok = false;
}

void fp_cfi_push(struct fp_cfi *c, uint32_t end)
{
	if (!c->ok)
		return;
	c->cfa += 8;
	fp_cfi_emit(c, end, -1);
}

bool fp_cfi_done(const struct fp_cfi *c)
{
	return c->ok && c->len <= c->room;
}
