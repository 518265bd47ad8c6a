/* SPDX-License-Identifier: MIT */
/*
 * func_patch_targets.c - steps 1 and 2 of func_patch.c's design: every
 * function of the object decoded whole, and every place a branch may land
 * collected (direct branches, code addresses taken, jump tables' entries,
 * relocated or plain data words that point into code), kept only where a
 * selected entry's first bytes are when the plan is for some functions.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/elf/symtab.h"
#include "lib/probes/func_patch_internal.h"

#define FP_TABLE_MAX 16384 /* entries read of one jump table */
#define FP_CAND_MAX 64	   /* table candidates per function */

bool fp_is_exec(const struct fp_ctx *c, uint64_t v)
{
	for (unsigned i = 0; i < c->f.nload; i++)
		if ((c->f.load[i].flags & PF_X) && v >= c->f.load[i].vaddr &&
		    v - c->f.load[i].vaddr < c->f.load[i].filesz)
			return true;
	return false;
}

const uint8_t *fp_bytes(const struct fp_ctx *c, uint64_t vaddr, uint64_t size)
{
	uint64_t off;

	if (upr_vaddr_to_offset(&c->f, vaddr, &off) < 0)
		return NULL;
	return utrace_elf_data(c->f.elf, off, size);
}

/* The bytes of a selected entry where a target matters (fp_branch_in): from
 * the function's start to past an endbr64 and the longest displaced run. */
#define FP_WINDOW (4 + UTRACE_FPATCH_CODE)

/* Whether v lies in a window: the last one that starts at or before v
 * holds it if any does (they are all as long). */
static bool fp_in_window(const struct fp_ctx *c, uint64_t v)
{
	size_t lo = 0, hi = c->nwin;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->win[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v - c->win[lo - 1] < FP_WINDOW;
}

static int fp_push(struct fp_ctx *c, uint64_t to, uint32_t from, bool call)
{
	if (c->sel && !fp_in_window(c, to))
		return 0; /* lands where no selected entry is */
	if (UTRACE_GROW(c->t, c->capt, c->nt + 1) < 0)
		return -ENOMEM;
	c->t[c->nt++] = (struct fp_target){to, from, call};
	return 0;
}

/* The entries of a jump table at vaddr tab (rel: int32 relative to tab,
 * else absolute 8-byte ones) while they land in code: how many. */
static long fp_table(struct fp_ctx *c, uint64_t tab, bool rel, uint32_t from)
{
	unsigned esz = rel ? 4 : 8;
	long k;

	if (fp_is_exec(c, tab))
		return 0;
	for (k = 0; k < FP_TABLE_MAX; k++) {
		const uint8_t *p = fp_bytes(c, tab + (uint64_t)k * esz, esz);
		uint64_t to;
		int32_t e;

		if (!p)
			break;
		if (rel) {
			memcpy(&e, p, 4);
			to = tab + (uint64_t)(int64_t)e;
		} else {
			memcpy(&to, p, 8);
		}
		if (!fp_is_exec(c, to))
			break;
		if (fp_push(c, to, from, false) < 0)
			return -ENOMEM;
	}
	return k;
}

/* What one instruction at `at` of function i adds to the targets;
 * table candidates into cand (rel flag in bit 0 of the count's pair). */
static int fp_insn_targets(struct fp_ctx *c, uint32_t i, const ZydisDecodedInstruction *in,
			   const ZydisDecodedOperand *ops, uint64_t at, uint64_t *cand,
			   bool *cand_rel, unsigned *ncand, bool *indirect)
{
	for (unsigned k = 0; k < in->operand_count_visible; k++) {
		const ZydisDecodedOperand *o = &ops[k];
		ZyanU64 to;

		if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.is_relative) {
			ZydisCalcAbsoluteAddress(in, o, at, &to);
			if (fp_push(c, to, i, in->meta.category == ZYDIS_CATEGORY_CALL) < 0)
				return -ENOMEM;
		} else if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && !c->pic &&
			   fp_is_exec(c, o->imm.value.u)) { /* mov $label: ET_EXEC */
			if (fp_push(c, o->imm.value.u, UINT32_MAX, false) < 0)
				return -ENOMEM;
		} else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   o->mem.base == ZYDIS_REGISTER_RIP) {
			ZydisCalcAbsoluteAddress(in, o, at, &to);
			if (fp_is_exec(c, to) && fp_push(c, to, UINT32_MAX, false) < 0)
				return -ENOMEM;
			if (!fp_is_exec(c, to) && in->mnemonic == ZYDIS_MNEMONIC_LEA &&
			    *ncand < FP_CAND_MAX) {
				cand_rel[*ncand] = true;
				cand[(*ncand)++] = to;
			}
		} else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   o->mem.base == ZYDIS_REGISTER_NONE &&
			   o->mem.index != ZYDIS_REGISTER_NONE && o->mem.scale == 8 &&
			   o->mem.disp.has_displacement && *ncand < FP_CAND_MAX) {
			cand_rel[*ncand] = false;
			cand[(*ncand)++] = (uint64_t)o->mem.disp.value;
		}
	}
	/* jmp through a register or a computed address: a table (a GOT
	 * slot, jmp *x(%rip), is a tail call) */
	if (in->meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
	    (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
	     (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[0].mem.base != ZYDIS_REGISTER_RIP)))
		*indirect = true;
	return 0;
}

/* Whether fp_insn_targets needs the operands of in (most instructions
 * name no code: their operands are not decoded, which halves the time
 * of a big object's plan): a relative immediate or a RIP-relative
 * operand, an immediate of a fixed-address object, a SIB (a jump table's
 * disp(,%reg,8)), or a jmp (indirect or not). */
static bool fp_operands_matter(const struct fp_ctx *c, const ZydisDecodedInstruction *in)
{
	return (in->attributes & (ZYDIS_ATTRIB_IS_RELATIVE | ZYDIS_ATTRIB_HAS_SIB)) ||
	       (!c->pic && (in->raw.imm[0].size || in->raw.imm[1].size)) ||
	       in->meta.category == ZYDIS_CATEGORY_UNCOND_BR;
}

/* Step 1 and 2 for function i. */
int fp_scan(struct fp_ctx *c, uint32_t i)
{
	struct utrace_fpatch_func *fn = &c->plan->f[i];
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint64_t cand[FP_CAND_MAX];
	bool cand_rel[FP_CAND_MAX], indirect = false;
	unsigned ncand = 0;
	const uint8_t *code = fp_bytes(c, fn->func, fn->size);
	long found = 0;
	int ret;

	if (!code || !fp_is_exec(c, fn->func)) {
		fn->why = UTRACE_FPATCH_NOT_IN_FILE;
		return 0;
	}
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (uint64_t at = fn->func; at < fn->func + fn->size; at += in.length) {
		ZydisDecoderContext ctx;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, &ctx, code + (at - fn->func),
							      fn->func + fn->size - at, &in)) ||
		    (fp_operands_matter(c, &in) &&
		     ZYAN_FAILED(ZydisDecoderDecodeOperands(&dec, &ctx, &in, ops, in.operand_count)))) {
			fn->why = UTRACE_FPATCH_DECODE;
			return 0;
		}
		if (!fp_operands_matter(c, &in))
			continue; /* no operand of it can name code */
		ret = fp_insn_targets(c, i, &in, ops, at, cand, cand_rel, &ncand, &indirect);
		if (ret < 0)
			return ret;
	}
	if (!indirect)
		return 0;
	for (unsigned k = 0; k < ncand; k++) {
		long n = fp_table(c, cand[k], cand_rel[k], i);

		if (n < 0)
			return (int)n;
		found += n;
	}
	if (!found && !c->all)
		fn->why = UTRACE_FPATCH_TABLE;
	return 0;
}

/* Code addresses of relocated data (ET_DYN), as targets: 0 or -ENOMEM. */
int fp_relocs(struct fp_ctx *c)
{
	struct utrace_elf_section sec;
	struct utrace_elf_rela r;
	size_t n;

	if (utrace_elf_find_section(c->f.elf, ".rela.dyn", &sec) < 0)
		return 0; /* no relocations to trust */
	n = utrace_elf_rela_count(c->f.elf, &sec);
	for (size_t i = 0; i < n; i++)
		if (utrace_elf_rela(c->f.elf, &sec, i, &r) == 0 && r.type == R_X86_64_RELATIVE &&
		    fp_is_exec(c, (uint64_t)r.addend) &&
		    fp_push(c, (uint64_t)r.addend, UINT32_MAX, false) < 0)
			return -ENOMEM;
	c->all = true;
	return 0;
}

/* ET_EXEC: every aligned word of its data that lands in code. */
int fp_data_words(struct fp_ctx *c)
{
	for (unsigned i = 0; i < c->f.nload; i++) {
		uint64_t v = (c->f.load[i].vaddr + 7) & ~7ull, end;
		const uint8_t *p;

		if (c->f.load[i].flags & PF_X)
			continue;
		end = c->f.load[i].vaddr + c->f.load[i].filesz;
		p = v < end ? utrace_elf_data(
				  c->f.elf, c->f.load[i].offset + (v - c->f.load[i].vaddr), end - v)
			    : NULL;
		for (uint64_t k = 0; p && v + k + 8 <= end; k += 8) {
			uint64_t w;

			memcpy(&w, p + k, 8);
			if (fp_is_exec(c, w) && fp_push(c, w, UINT32_MAX, false) < 0)
				return -ENOMEM;
		}
	}
	c->all = true;
	return 0;
}

int fp_target_cmp(const void *a, const void *b)
{
	const struct fp_target *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

/* The first target >= v. */
size_t fp_lower(const struct fp_ctx *c, uint64_t v)
{
	size_t lo = 0, hi = c->nt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->t[mid].to < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int fp_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The functions want selects, and their windows; 0 or -ENOMEM. */
int fp_select(struct fp_ctx *c, utrace_fpatch_want_fn want, void *arg, bool **sel)
{
	const struct utrace_fpatch_plan *p = c->plan;

	*sel = calloc(p->n + 1, sizeof(**sel));
	c->win = malloc((p->n + 1) * sizeof(*c->win));
	if (!*sel || !c->win)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (((*sel)[i] = want(arg, p->f[i].name, p->f[i].raw)))
			c->win[c->nwin++] = p->f[i].func;
	qsort(c->win, c->nwin, sizeof(*c->win), fp_u64_cmp);
	c->sel = *sel;
	return 0;
}
