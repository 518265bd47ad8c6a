/* SPDX-License-Identifier: MIT */
/*
 * func_patch_cfi.h - the unwind rules of a detour slot, instruction by
 * instruction (lib/probes/func_patch_cfi.c); used by func_patch.c.
 */
#ifndef UTRACE_LIB_FUNC_PATCH_CFI_H
#define UTRACE_LIB_FUNC_PATCH_CFI_H

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fp_cfi {
	int32_t cfa;  /* CFA = rsp + cfa */
	uint32_t loc; /* code offset the rules so far start at */
	uint8_t *out; /* NULL: only check */
	size_t len, room;
	bool ok;
};

void fp_cfi_init(struct fp_cfi *c, uint8_t *out, size_t room);
/* in, which ends at code offset end of the slot, has run. */
void fp_cfi_insn(struct fp_cfi *c, const ZydisDecodedInstruction *in,
		 const ZydisDecodedOperand *ops, uint32_t end);
/* A word pushed by the slot's own code, which ends at end. */
void fp_cfi_push(struct fp_cfi *c, uint32_t end);
/* Whether every instruction had a rule and they fit in room. */
bool fp_cfi_done(const struct fp_cfi *c);

#endif
