/* SPDX-License-Identifier: MIT */
/*
 * func_patch_internal.h - what func_patch.c (the decision per entry,
 * steps 3 to 5 of its design) and func_patch_targets.c (steps 1 and 2:
 * every function decoded, every branch target collected) share: the plan's
 * working state and its targets.  Private to lib/probes.
 */
#ifndef UTRACE_LIB_FUNC_PATCH_INTERNAL_H
#define UTRACE_LIB_FUNC_PATCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/elf/eh_frame.h"
#include "lib/probes/func_patch.h"
#include "lib/probes/inproc_probe_internal.h"

struct fp_target {
	uint64_t to;
	uint32_t from; /* the function's index; UINT32_MAX: an address taken */
	uint32_t call;
};

struct fp_ctx {
	struct upr_file f;
	struct utrace_fpatch_plan *plan;
	struct fp_target *t;
	size_t nt, capt;
	uint64_t entry; /* e_entry */
	struct utrace_fde_range *fde;
	size_t nfde;
	/* utrace_fpatch_plan_only: the functions selected (NULL: all), and
	 * the sorted starts of their windows, where targets are kept */
	const bool *sel;
	uint64_t *win;
	size_t nwin;
	bool eh;  /* C++ exceptions: .gcc_except_table */
	bool pic; /* ET_DYN: every code address in data is relocated */
	bool all; /* every code address in data is among the targets */
};

/* func_patch_targets.c: whether v is in an executable segment; size bytes
 * of the file at vaddr (NULL if not in it) */
bool fp_is_exec(const struct fp_ctx *c, uint64_t v);
const uint8_t *fp_bytes(const struct fp_ctx *c, uint64_t vaddr, uint64_t size);
/* steps 1 and 2 for function i; the targets of an ET_DYN's relocations
 * or of an ET_EXEC's data words (all 0 or -ENOMEM) */
int fp_scan(struct fp_ctx *c, uint32_t i);
int fp_relocs(struct fp_ctx *c);
int fp_data_words(struct fp_ctx *c);
/* qsort's order of the targets; the first target >= v once sorted */
int fp_target_cmp(const void *a, const void *b);
size_t fp_lower(const struct fp_ctx *c, uint64_t v);
/* utrace_fpatch_plan_only's selection: *sel and c's windows (0, -ENOMEM) */
int fp_select(struct fp_ctx *c, utrace_fpatch_want_fn want, void *arg, bool **sel);

#endif
