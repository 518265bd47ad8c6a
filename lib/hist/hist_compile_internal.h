/* SPDX-License-Identifier: MIT */
/*
 * hist_compile_internal.h - what the compiler's files share: the state of
 * one compile (struct hcomp) and the steps each file gives the next.
 *
 * Files call each other one way: hist_compile_expr.c (instructions,
 * fields, expressions, keys) <- hist_compile_act.c (references to other
 * triggers' variables, the actions) <- hist_compile.c (values,
 * variables, the filter, the program's layout, the entry points).
 */
#ifndef UTRACE_LIB_HIST_COMPILE_INTERNAL_H
#define UTRACE_LIB_HIST_COMPILE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_compile.h"

struct hcomp {
	struct utrace_hist_insn insns[UTRACE_HIST_MAX_INSNS];
	uint32_t n;
	uint32_t key_size;
	uint32_t nr_sums;
	const struct utrace_event_format *fmt;
	const struct utrace_hist_spec *spec;
	const struct utrace_hist_env *env;
	const char *ref_name[UTRACE_HIST_REFS_MAX]; /* refs[i] holds $ref_name[i] */
	uint32_t nr_refs;
	char qual[UTRACE_HIST_REFS_MAX][160]; /* "SYS.EVENT.v" of params "SYS.EVENT.$v" */
	uint32_t nr_qual;
	uint32_t ref_str;  /* bit i: refs[i] is a string variable's (RESOLVE size 1) */
	uint32_t ref_stack; /* bit i: refs[i] is a stack variable's (RESOLVE size 1) */
	uint32_t own_str;  /* bit i: vars[i] is a string (VARSTR) */
	uint32_t own_stack; /* bit i: vars[i] is a stack (VARSTR) */
	uint32_t str_at[UTRACE_HIST_VARS_MAX]; /* vars[i]'s VARSTR, placed after the actions */
	struct utrace_hist_slot slots[3];
	uint32_t key_insns, resolve_insns, action_insns;
	int *code;
	struct utrace_error *err;
};

/* hist_compile_expr.c */
int hc_fail(struct hcomp *c, int code, unsigned pos, const char *what);
int hc_emit(struct hcomp *c, uint8_t op, uint8_t size, uint32_t off, uint64_t imm);
/* A numeric field: pushes its value. */
int hc_field(struct hcomp *c, const struct utrace_hist_expr *e);
/* The trigger's own variable called name, -1 if none. */
int hc_own_var(const struct hcomp *c, const char *name);
/* $name: pushes the own variable, or the other trigger's resolved one. */
int hc_ref(struct hcomp *c, const char *name, unsigned pos);
int hc_expr(struct hcomp *c, const struct utrace_hist_expr *e, unsigned depth);
int hc_key(struct hcomp *c, const struct utrace_hist_expr *e, struct utrace_hist_slot *slot);

/* hist_compile_act.c */
/* A field p save()d, handed to a synthetic event or kept in a variable:
 * if it is a string, where SAVESTR, PSTR or VARSTR takes it from (in's
 * size, off, imm) and its width in w; w 0 for a number. */
void hc_str_src(struct hcomp *c, const char *p, struct utrace_hist_insn *in, uint32_t *w);
/* The resolve part: every $name of the values, variables and actions
 * that is another trigger's, looked up before the element is. */
int hc_resolve(struct hcomp *c, const struct utrace_hist_spec *s);
/* The action part, each action in its order. */
int hc_actions(struct hcomp *c, const struct utrace_hist_spec *s);

#endif
