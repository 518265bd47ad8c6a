/* SPDX-License-Identifier: MIT */
/*
 * func_patch.c - which entries of an uninstrumented object's functions
 * can take a 5-byte jmp (lib/probes/func_patch.h), and their displaced
 * instructions relocated for a detour.
 *
 * Design: the kernel's optprobe conditions (arch/x86/kernel/kprobes/
 * opt.c), checked over the whole object rather than one function, since
 * the tool has the time and the file:
 *
 *   1. every function is decoded whole (a byte that does not decode
 *      refuses it: data in the text, or a decoder gap);
 *   2. every branch target is collected: direct jumps, calls and Jcc of
 *      every function, code addresses taken RIP-relative (a label's
 *      address, a function pointer), and the entries of jump tables: for
 *      a function with an indirect jump, every table its `lea T(%rip)`
 *      (PIC: int32 entries relative to T) or `disp(,%reg,8)` (absolute
 *      entries) names is read from the file for as long as its entries
 *      land in executable code.  In a position-independent object every
 *      other code address comes from a relocation: the R_X86_64_RELATIVE
 *      ones that point into code (computed-goto tables, function
 *      pointers) are targets too, and an indirect jump with no table is a
 *      tail call.  In a fixed-address object (ET_EXEC) a code address can
 *      be any word: every 8-byte-aligned word of its data and every
 *      immediate operand that lands in code is taken as a target (more
 *      targets only refuse more).  Where neither list can be read, a
 *      function with an indirect jump and no table found is refused
 *      (its jump could land anywhere in it);
 *   3. the jmp covers whole instructions from the entry (after an
 *      endbr64, which stays so that indirect calls still land on it) up
 *      to 5 bytes or more; each must re-encode for another address
 *      (RIP-relative operands and branch targets kept absolute).  None
 *      may be a trap or a system call.  A ret or jmp among them is moved
 *      too: it leaves the detour for good, and the covered bytes after
 *      it are dead (4. proves no branch reaches them).  A call is moved
 *      (it returns into the detour, which goes on; the slot's unwind
 *      rules, func_patch_cfi.c, let an unwinder step out of it).  In an
 *      object with C++ exceptions no landing pad would be found in the
 *      slot: there a direct call that ends the displaced instructions
 *      returns straight into the function, and a function with another
 *      call among them is kept out;
 *   4. no branch target lies inside the covered bytes after their first,
 *      and no branch of the function itself goes to their first (a loop
 *      back to the entry would count a call that did not happen);
 *   5. the function is entered by calls: not the program's entry point
 *      (no return address there), not gcc's FUNC.cold parts nor any code
 *      whose unwind rules (its FDE) do not start as a function's do: a
 *      stripped object's cold parts have FDEs of their own, and look like
 *      functions otherwise.  Those are parts, not functions, and are not
 *      counted as found;
 *   6. no language runtime forbids it (func_patch_deny.c: Go's and V8's
 *      own code, an entry whose next instruction is entered directly).
 *
 * Where 3. or 4. fail for the jmp, the entry may take a 1-byte int3 if
 * they hold for its first instruction alone (fp_int3).
 *
 * Exception landing pads are not parsed (.gcc_except_table): a pad is
 * code after a call of the function, so never in the first bytes that
 * 3. lets through (they hold no call).
 *
 * Steps 1 and 2 are func_patch_targets.c's; this file decides each entry
 * (3. to 6.) and makes the plan.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/probes/func_patch_deny.h"
#include "lib/probes/func_patch_internal.h"

static const char *const fp_whys[] = {
#define FP_TEXT(n, t) t,
    UTRACE_FPATCH_WHYS(FP_TEXT)
#undef FP_TEXT
};

const char *utrace_fpatch_why_text(unsigned why)
{
	return why < UTRACE_FPATCH_NWHY ? fp_whys[why] : "?";
}

/* Step 3: the instructions the jmp at fn->addr displaces. */
static unsigned fp_cover(struct utrace_fpatch_func *fn, const uint8_t *code, bool eh)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	bool call = false;
	uint64_t at;
	uint8_t tmp[64];

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (at = fn->addr; at < fn->addr + 5; at += in.length) {
		if (at >= fn->func + fn->size)
			return UTRACE_FPATCH_SHORT;
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (at - fn->func),
						       fn->func + fn->size - at, &in, ops)))
			return UTRACE_FPATCH_DECODE;
		switch (in.meta.category) {
		case ZYDIS_CATEGORY_CALL: /* the last, direct, is emulated: no return into the slot
					   */
			call |= !(ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
				  ops[0].imm.is_relative && at + in.length >= fn->addr + 5);
			break;
		case ZYDIS_CATEGORY_INTERRUPT:
		case ZYDIS_CATEGORY_SYSCALL:
			return UTRACE_FPATCH_UNMOVABLE;
		default:
			break;
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_UD2 || in.mnemonic == ZYDIS_MNEMONIC_UD0 ||
		    in.mnemonic == ZYDIS_MNEMONIC_UD1 || in.mnemonic == ZYDIS_MNEMONIC_HLT)
			return UTRACE_FPATCH_UNMOVABLE;
		/* re-encoded for the same place: the operands it cannot keep */
		if (!ipp_reencode(&in, ops, at, at, tmp, sizeof(tmp)))
			return UTRACE_FPATCH_RELOC;
	}
	if (call && eh)
		return UTRACE_FPATCH_CALL_EH;
	if (at > fn->func + fn->size)
		return UTRACE_FPATCH_SHORT;
	if (at - fn->addr > UTRACE_FPATCH_CODE)
		return UTRACE_FPATCH_RELOC;
	fn->len = (uint32_t)(at - fn->addr);
	memcpy(fn->code, code + (fn->addr - fn->func), fn->len);
	return UTRACE_FPATCH_OK;
}

/* The FDE that starts at v, NULL if none. */
static const struct utrace_fde_range *fp_fde_at(const struct fp_ctx *c, uint64_t v)
{
	size_t lo = 0, hi = c->nfde;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->fde[mid].start < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nfde && c->fde[lo].start == v ? &c->fde[lo] : NULL;
}

/* Whether an FDE starts at v whose rules are not an entry's. */
static bool fp_part(const struct fp_ctx *c, uint64_t v)
{
	const struct utrace_fde_range *r = fp_fde_at(c, v);

	return r && !r->entry;
}

/* Step 4: a branch into fn's covered bytes after the first, or one of
 * the function's own (not a call) to the first. */
static bool fp_branch_in(const struct fp_ctx *c, uint32_t i)
{
	const struct utrace_fpatch_func *fn = &c->plan->f[i];

	for (size_t k = fp_lower(c, fn->func); k < c->nt && c->t[k].to < fn->addr + fn->len; k++) {
		const struct fp_target *t = &c->t[k];

		if (t->to > fn->addr || (t->to == fn->addr && t->from == i && !t->call))
			return true;
	}
	return false;
}

/*
 * The int3 fallback for function i, whose entry a jmp cannot take (why):
 * the int3 displaces the first instruction only (after an endbr64), so
 * steps 3 and 4 hold for that one: it moves (no trap, no system call, a
 * call only where no exception can cross the slot or the last-call
 * emulation takes it, which for a lone instruction is a direct one), and
 * no branch lands after its first byte (instruction boundaries see to
 * it) nor, but a call, on it: a loop back to the entry would trap as a
 * call.  Returns UTRACE_FPATCH_OK with fn->int3 = why, or why.
 */
static unsigned fp_int3(struct fp_ctx *c, uint32_t i, const uint8_t *code, unsigned why)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	struct utrace_fpatch_func *fn = &c->plan->f[i];
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint8_t tmp[64];

	fn->addr = fn->func;
	if (fn->size > 4 && !memcmp(code, endbr64, 4))
		fn->addr += 4;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (fn->addr >= fn->func + fn->size ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code + (fn->addr - fn->func),
					       fn->func + fn->size - fn->addr, &in, ops)))
		return why;
	if (in.meta.category == ZYDIS_CATEGORY_INTERRUPT ||
	    in.meta.category == ZYDIS_CATEGORY_SYSCALL || in.mnemonic == ZYDIS_MNEMONIC_UD2 ||
	    in.mnemonic == ZYDIS_MNEMONIC_UD0 || in.mnemonic == ZYDIS_MNEMONIC_UD1 ||
	    in.mnemonic == ZYDIS_MNEMONIC_HLT)
		return why;
	if (in.meta.category == ZYDIS_CATEGORY_CALL && c->eh &&
	    !(ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative))
		return why;
	if (!ipp_reencode(&in, ops, fn->addr, fn->addr, tmp, sizeof(tmp)))
		return why;
	fn->len = in.length;
	if (fp_branch_in(c, i)) {
		fn->len = 0;
		return why;
	}
	memcpy(fn->code, code + (fn->addr - fn->func), fn->len);
	fn->int3 = why;
	return UTRACE_FPATCH_OK;
}

/* Steps 3 to 5 for function i. */
static unsigned fp_decide(struct fp_ctx *c, uint32_t i)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	struct utrace_fpatch_func *fn = &c->plan->f[i];
	const uint8_t *code = fp_bytes(c, fn->func, fn->size);
	unsigned why;

	if (strstr(fn->name, ".cold") || fp_part(c, fn->func))
		return UTRACE_FPATCH_PART;
	if (c->sel && !c->sel[i])
		return UTRACE_FPATCH_UNSELECTED;
	if (fn->why != UTRACE_FPATCH_OK)
		return fn->why;
	if (fn->func == c->entry || !strcmp(fn->name, "_start"))
		return UTRACE_FPATCH_ENTRY;
	fn->addr = fn->func;
	if (fn->size >= 9 && !memcmp(code, endbr64, 4))
		fn->addr += 4;
	why = fp_cover(fn, code, c->eh);
	if (why == UTRACE_FPATCH_OK && fp_branch_in(c, i))
		why = UTRACE_FPATCH_BRANCH_IN;
	switch (why) {
	case UTRACE_FPATCH_SHORT:
	case UTRACE_FPATCH_BRANCH_IN:
	case UTRACE_FPATCH_UNMOVABLE:
	case UTRACE_FPATCH_CALL_EH:
	case UTRACE_FPATCH_RELOC:
		return fp_int3(c, i, code, why);
	default:
		return why;
	}
}

/* The functions of the symbol table, in address order. */
static int fp_functions(struct fp_ctx *c, struct utrace_error *err)
{
	struct utrace_fpatch_plan *p = c->plan;
	size_t n = utrace_symtab_count(p->tab);

	p->f = calloc(n ? n : 1, sizeof(*p->f));
	if (!p->f)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct utrace_sym *s = utrace_symtab_get(p->tab, i);
		const struct utrace_fde_range *r = fp_fde_at(c, s->vaddr);
		struct utrace_fpatch_func *fn = &p->f[p->n];
		uint64_t size = s->size ? s->size : r ? r->size : 0; /* asm: no .size */

		if (!size || !fp_is_exec(c, s->vaddr))
			continue; /* not code, or its end unknown: not a function we can decode */
		fn->func = fn->addr = s->vaddr;
		fn->size = size;
		fn->name = s->name;
		fn->raw = s->raw;
		p->n++;
	}
	return 0;
}

int utrace_fpatch_plan_only(const char *path, utrace_fpatch_want_fn want, void *arg,
			    struct utrace_fpatch_plan *plan, struct utrace_error *err)
{
	struct fp_ctx c = {.plan = plan};
	struct utrace_elf_section sec;
	const char *why = NULL;
	bool *sel = NULL;
	Elf64_Ehdr eh;
	const void *raw;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = upr_file_open(path, &c.f, &why);
	if (ret < 0)
		return utrace_error_set(err, ret, "%s: %s", path, why ? why : strerror(-ret));
	if ((raw = utrace_elf_data(c.f.elf, 0, sizeof(eh)))) {
		memcpy(&eh, raw, sizeof(eh));
		c.entry = eh.e_type == ET_EXEC || eh.e_type == ET_DYN ? eh.e_entry : 0;
		c.pic = eh.e_type == ET_DYN;
	}
	c.eh = utrace_elf_find_section(c.f.elf, ".gcc_except_table", &sec) == 0;
	ret = utrace_symtab_load_elf(c.f.elf, &plan->tab, err);
	if (ret >= 0 && utrace_elf_fde_ranges(c.f.elf, &c.fde, &c.nfde) < 0)
		ret = -ENOMEM;
	if (ret >= 0)
		ret = fp_functions(&c, err);
	if (ret >= 0 && want)
		ret = fp_select(&c, want, arg, &sel);
	if (ret >= 0)
		ret = c.pic ? fp_relocs(&c) : fp_data_words(&c);
	for (uint32_t i = 0; ret >= 0 && i < plan->n; i++)
		ret = fp_scan(&c, i);
	if (ret >= 0) {
		fp_deny(&c.f, plan); /* whatever the bytes say: func_patch_deny.c */
		if (c.nt)
			qsort(c.t, c.nt, sizeof(*c.t), fp_target_cmp);
		for (uint32_t i = 0; i < plan->n; i++) {
			plan->f[i].why = fp_decide(&c, i);
			plan->f[i].emulate_call = c.eh;
			plan->count[plan->f[i].why]++;
			plan->nint3 += plan->f[i].int3 != 0;
		}
	} else if (ret == -ENOMEM) {
		utrace_error_set(err, ret, "%s: out of memory", path);
	}
	free(c.t);
	free(c.fde);
	free(c.win);
	free(sel);
	upr_file_close(&c.f);
	if (ret < 0)
		utrace_fpatch_plan_free(plan);
	return ret < 0 ? ret : 0;
}

int utrace_fpatch_plan(const char *path, struct utrace_fpatch_plan *plan, struct utrace_error *err)
{
	return utrace_fpatch_plan_only(path, NULL, NULL, plan, err);
}

void utrace_fpatch_plan_free(struct utrace_fpatch_plan *plan)
{
	free(plan->f);
	utrace_symtab_free(plan->tab);
	memset(plan, 0, sizeof(*plan));
}
