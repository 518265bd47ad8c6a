/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_insn.c - where an in-process probe lands in an object, and the
 * displaced instruction of an int3 probe made ready to run out of line.
 *
 * Design: the tool does the decoding (Zydis, from the object's file), so
 * that the runtime only copies bytes.  For each probe whose SYMBOL the
 * object defines:
 *
 *   - a probe at the function's entry (p: +0, r:, f:) whose first
 *     instruction is the function's patchable call site (after an endbr64
 *     if any) runs from that site: nothing is moved, no trap;
 *   - any other instruction gets an int3.  The function is decoded from
 *     its start, so the probe must be on an instruction boundary (the
 *     kernel's can_probe()).  The instruction at the probe is re-encoded
 *     for the runtime's slot (Zydis absolute encoding: RIP-relative
 *     operands and branch targets keep their absolute addresses, a short
 *     Jcc becomes a near one) and followed by `jmp` back to the next
 *     instruction; a direct `call` is not moved but emulated by the
 *     trap handler (push the return address, go to the target), so the
 *     callee returns into the program, not into the slot.
 *
 * Addresses are ELF vaddrs; the slot is given as a vaddr too (the
 * runtime's address minus the object's bias), so displacements come out
 * the same as at run time.
 */
#include <Zydis/Zydis.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/proto.h"
#include "lib/probes/inproc_probe_internal.h"

static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

/* The function's bytes from the file (NULL if not all in the file). */
static const uint8_t *ipp_func_bytes(const struct upr_file *f, uint64_t vaddr, uint64_t size)
{
	uint64_t off;

	if (upr_vaddr_to_offset(f, vaddr, &off) < 0)
		return NULL;
	return utrace_elf_data(f->elf, off, size);
}

size_t ipp_reencode(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			  uint64_t a, uint64_t at, uint8_t *out, size_t room)
{
	ZydisEncoderRequest req;
	ZyanUSize n = room;

	if (ZYAN_FAILED(ZydisEncoderDecodedInstructionToEncoderRequest(
		in, ops, in->operand_count_visible, &req)))
		return 0;
	for (unsigned i = 0; i < req.operand_count; i++) {
		ZyanU64 abs;

		if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative) {
			ZydisCalcAbsoluteAddress(in, &ops[i], a, &abs);
			req.operands[i].imm.u = abs;
		} else if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   ops[i].mem.base == ZYDIS_REGISTER_RIP) {
			ZydisCalcAbsoluteAddress(in, &ops[i], a, &abs);
			req.operands[i].mem.displacement = (ZyanI64)abs;
		}
	}
	if (req.branch_type != ZYDIS_BRANCH_TYPE_NONE) { /* let the encoder widen it */
		req.branch_type = ZYDIS_BRANCH_TYPE_NONE;
		req.branch_width = ZYDIS_BRANCH_WIDTH_NONE;
	}
	if (ZYAN_FAILED(ZydisEncoderEncodeInstructionAbsolute(&req, out, &n, at)))
		return 0;
	return n;
}

/* `jmp to` at out, placed at `at`. */
static void ipp_jmp_back(uint8_t *out, uint64_t at, uint64_t to)
{
	int32_t rel = (int32_t)(int64_t)(to - (at + 5));

	out[0] = 0xe9;
	memcpy(out + 1, &rel, 4);
}

/* The int3 form: the one instruction at a relocated to slot, then jmp
 * back; a direct call is emulated by the trap handler instead. */
static int ipp_relocate(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
		       uint64_t a, uint64_t slot, struct utrace_inproc_probe_loc *loc,
		       struct utrace_error *err)
{
	size_t n;

	loc->insn_len = in->length;
	if (in->mnemonic == ZYDIS_MNEMONIC_CALL && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ops[0].imm.is_relative) {
		ZyanU64 to;

		ZydisCalcAbsoluteAddress(in, &ops[0], a, &to);
		loc->call_to = to;
		return 0;
	}
	n = ipp_reencode(in, ops, a, slot, loc->xol, sizeof(loc->xol) - 5);
	if (!n)
		return utrace_error_set(err, -EINVAL,
					"the instruction at 0x%" PRIx64 " cannot run out of line", a);
	ipp_jmp_back(loc->xol + n, slot + n, a + in->length);
	loc->xol_len = (uint32_t)n + 5;
	return 0;
}

/* Decodes the function up to vaddr a: a must be an instruction boundary. */
static int ipp_decode_at(const uint8_t *code, uint64_t func, uint64_t size, uint64_t a,
			ZydisDecodedInstruction *in, ZydisDecodedOperand *ops)
{
	ZydisDecoder dec;
	uint64_t at = func;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	while (at < func + size) {
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (at - func), func + size - at, in,
						       ops)))
			return -1;
		if (at == a)
			return 0;
		if (at > a)
			return -1;
		at += in->length;
	}
	return -1;
}

/* Whether code (size bytes at vaddr start) decodes whole, has no indirect
 * jump (a jump table could land anywhere) and no branch into (a, end). */
static bool ipp_no_branch_into(const uint8_t *code, uint64_t start, uint64_t size, uint64_t a,
			      uint64_t end)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (uint64_t at = start; at < start + size; at += in.length) {
		ZyanU64 to;

		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (at - start), start + size - at,
						       &in, ops)))
			return false;
		if (in.meta.branch_type == ZYDIS_BRANCH_TYPE_NONE)
			continue;
		if (ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR)
				return false; /* an indirect jump */
			continue;
		}
		ZydisCalcAbsoluteAddress(&in, &ops[0], at, &to);
		if (to > a && to < end)
			return false;
	}
	return true;
}

/* The bytes [a, *end) a 5-byte jmp at a would cover, if the kernel's
 * optprobe conditions hold: whole instructions inside the function, none
 * a call or a trap, no other probe among them, and no branch into them
 * from the function or from its cold part (gcc's SYMBOL.cold, which
 * jumps back into it). */
static bool ipp_can_jmp(const struct upr_file *f, const char *sym, const uint8_t *code,
		       uint64_t func, uint64_t size, uint64_t a, const uint64_t *others,
		       size_t nothers, uint64_t *end)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	struct utrace_elf_section sec;
	char cold[300];
	uint64_t at, cv, cs;
	const uint8_t *cc;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (at = a; at < a + 5; at += in.length) {
		if (at >= func + size ||
		    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (at - func), func + size - at,
						       &in, ops)) ||
		    in.meta.category == ZYDIS_CATEGORY_CALL ||
		    in.meta.category == ZYDIS_CATEGORY_INTERRUPT ||
		    in.meta.category == ZYDIS_CATEGORY_SYSCALL || in.mnemonic == ZYDIS_MNEMONIC_UD2)
			return false;
	}
	*end = at;
	if (at > func + size)
		return false;
	for (size_t i = 0; i < nothers; i++)
		if (others[i] > a && others[i] < *end)
			return false;
	if (!ipp_no_branch_into(code, func, size, a, *end))
		return false;
	/* the unwinder lands in the middle of functions too, at the landing
	 * pads that .gcc_except_table lists: with no parser for those, such
	 * an object keeps its int3s */
	if (utrace_elf_find_section(f->elf, ".gcc_except_table", &sec) == 0)
		return false;
	snprintf(cold, sizeof(cold), "%s.cold", sym);
	if (upr_find_symbol(f, cold, true, &cv, &cs) < 1)
		return true;
	cc = cs ? ipp_func_bytes(f, cv, cs) : NULL;
	return cc && ipp_no_branch_into(cc, cv, cs, a, *end);
}

/* The detour's tail: the instructions of [a, end) for slot + the head. */
static bool ipp_detour(const uint8_t *code, uint64_t func, uint64_t a, uint64_t end,
		      uint64_t slot, struct utrace_inproc_probe_loc *loc)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint64_t base = slot + UTRACE_INPROC_PROBE_DETOUR_HEAD;
	size_t n = 0, k;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (uint64_t at = a; at < end; at += in.length) {
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (at - func), end - at, &in, ops)))
			return false;
		k = ipp_reencode(&in, ops, at, base + n, loc->xol + n, UTRACE_INPROC_PROBE_XOL - 5 - n);
		if (!k)
			return false;
		n += k;
	}
	ipp_jmp_back(loc->xol + n, base + n, end);
	loc->xol_len = (uint32_t)n + 5;
	loc->insn_len = (uint32_t)(end - a);
	loc->jmp = true;
	return true;
}

/* Where p lands in f (the object at path): 1 with the function holding
 * it (size 0: none known, func is the probe), its bytes (NULL: not in the
 * file) and the probe's vaddr; 0 if the object has no place for it. */
static int ipp_where(const struct utrace_inproc_probe *p, const char *path, const struct upr_file *f,
		    const uint64_t *sites, size_t n, uint64_t *func, uint64_t *size,
		    const uint8_t **code, uint64_t *a)
{
	if (p->path) {
		if (!ipp_path_where(p, path, f, func, size))
			return 0;
		*a = p->vaddr;
		/* no function known: the instruction alone, as the kernel's
		 * uprobe (15 bytes: x86's longest) */
		*code = ipp_func_bytes(f, *func, *size ? *size : 15);
		return 1;
	}
	if (!utrace_inproc_probe_module_is(p, path) ||
	    upr_find_symbol(f, p->symbol, true, func, size) < 1)
		return 0;
	*a = *func + p->offset;
	*code = *size ? ipp_func_bytes(f, *func, *size) : NULL;
	if (!p->offset && *code && *size >= 9 && !memcmp(*code, endbr64, 4))
		for (size_t i = 0; i < n; i++)
			if (sites[i] == *func + 4)
				*a = *func + 4; /* the entry is the site after endbr64 */
	return 1;
}

/* "SYMBOL+OFF" or "PATH:0xOFFSET", for messages. */
static const char *ipp_name(const struct utrace_inproc_probe *p, char *buf, size_t size)
{
	if (p->path)
		snprintf(buf, size, "%s:0x%" PRIx64, p->path, p->foff);
	else
		snprintf(buf, size, "%s+%" PRIu64, p->symbol, p->offset);
	return buf;
}

/* The int3, jmp or site for the probe at a in the function [func, +size)
 * (size 0: unknown, code is the instruction's bytes). */
static int ipp_place(const struct utrace_inproc_probe *p, const struct upr_file *f, const uint8_t *code,
		    uint64_t func, uint64_t size, uint64_t a, uint64_t slot, const uint64_t *others,
		    size_t nothers, struct utrace_inproc_probe_loc *loc, struct utrace_error *err)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t end;
	char name[PATH_MAX + 32];
	bool whole = size != 0;

	if (!code || (whole && a - func >= size))
		return utrace_error_set(err, -EINVAL, "%s: %s", ipp_name(p, name, sizeof(name)),
					utrace_uprobe_error_text(UTRACE_UPROBE_ERR_BAD_PROBE_ADDR));
	/* -EILSEQ: the kernel's register_kprobe() for the same point */
	if (ipp_decode_at(code, func, whole ? size : 15, a, &in, ops) < 0)
		return utrace_error_set(err, -EILSEQ, "%s: %s", ipp_name(p, name, sizeof(name)),
					utrace_uprobe_error_text(UTRACE_UPROBE_ERR_BAD_INSN_BNDRY));
	/* a jmp needs the whole function decoded (no branch into it) */
	if (whole && ipp_can_jmp(f, p->symbol, code, func, size, a, others, nothers, &end) &&
	    ipp_detour(code, func, a, end, slot, loc))
		return 1;
	return ipp_relocate(&in, ops, a, slot, loc, err) < 0 ? -EINVAL : 1;
}

int utrace_inproc_probe_locate(const struct utrace_inproc_probe *p, const char *path, const uint64_t *sites,
			 size_t n, uint64_t slot, const uint64_t *others, size_t nothers,
			 struct utrace_inproc_probe_loc *loc, struct utrace_error *err)
{
	uint64_t func, size, a;
	const uint8_t *code = NULL;
	char name[PATH_MAX + 32];
	struct upr_file f;
	int ret;

	memset(loc, 0, sizeof(*loc));
	loc->site = UINT32_MAX;
	if (p->kind == UTRACE_IPP_REMOVE || p->eprobe || upr_file_open(path, &f, NULL) < 0)
		return 0;
	ret = ipp_where(p, path, &f, sites, n, &func, &size, &code, &a);
	if (ret > 0) {
		loc->vaddr = a;
		loc->func = func;
		loc->kind = p->kind;
		for (size_t i = 0; i < n; i++) {
			if (sites[i] == a)
				loc->site = (uint32_t)i;
			else if (sites[i] && a > sites[i] && a < sites[i] + 5)
				ret = utrace_error_set(err, -EILSEQ,
						       "%s: inside the function's patchable call site",
						       ipp_name(p, name, sizeof(name)));
		}
	}
	if (ret > 0 && loc->site == UINT32_MAX)
		ret = ipp_place(p, &f, code, func, size, a, slot, others, nothers, loc, err);
	upr_file_close(&f);
	return ret;
}

struct ipp_sym_arg {
	struct upr_file *f;
	uint64_t bias;
};

static int ipp_sym_in_file(void *arg, const char *name, uint64_t *addr)
{
	struct ipp_sym_arg *a = arg;
	uint64_t vaddr, size;

	if (upr_find_symbol(a->f, name, false, &vaddr, &size) < 1)
		return -1;
	*addr = a->bias + vaddr;
	return 0;
}

int utrace_inproc_probe_compile_in(const struct utrace_inproc_probe *p, const char *path, uint64_t bias,
			     void **prog, uint32_t *len, struct utrace_error *err)
{
	struct upr_file f;
	struct ipp_sym_arg a = {&f, bias};
	bool open = upr_file_open(path, &f, NULL) == 0;
	int ret = utrace_inproc_probe_compile(p, open ? ipp_sym_in_file : NULL, &a, prog, len, err);

	if (open)
		upr_file_close(&f);
	return ret;
}
