/* SPDX-License-Identifier: MIT */
/*
 * func_patch_deny.h - inside lib/probes: the functions no detour may
 * take and the runtime of an object (func_patch_deny.c says which and why).
 */
#ifndef UTRACE_LIB_FUNC_PATCH_DENY_H
#define UTRACE_LIB_FUNC_PATCH_DENY_H

#include "lib/probes/func_patch.h"
#include "lib/probes/uprobe_internal.h"

struct utrace_symtab;

/* The object's runtime (enum utrace_fpatch_runtime), from its sections
 * and symbols (tab: its functions, may be NULL). */
unsigned fp_runtime(const struct upr_file *f, const struct utrace_symtab *tab);
/* Sets plan->runtime, and RUNTIME or INSIDE as the why of each function
 * that must be left out, before the plan decides the others. */
void fp_deny(const struct upr_file *f, struct utrace_fpatch_plan *plan);

#endif
