/* SPDX-License-Identifier: MIT */
/*
 * hist_internal.h - what the files of lib/hist share and nobody else sees: the
 * parser's state, the expression parser (hist_expr.c) that hist_parse.c
 * drives, and the kernel's names of fields (hist_field_name(),
 * expr_str(), hist_field_print()) that the printer (hist_print.c,
 * hist_spec_text.c, hist_sort.c) uses.
 *
 * Files call each other one way: hist_expr.c <- hist_parse.c <-
 * trigger_parse.c, and hist_expr.c <- hist_spec_text.c <- hist_sort.c <-
 * hist_print.c.
 */
#ifndef UTRACE_LIB_HIST_INTERNAL_H
#define UTRACE_LIB_HIST_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hist/hist.h"

/*
 * The parser works as the kernel's does, on a writable copy of the text
 * that it cuts with strsep(), so that an error lands where the kernel's
 * lands: the kernel reports errpos(token) = the first occurrence of the
 * token's text in "hist:" + what followed the command (last_cmd), which
 * is not always the token itself (a field named twice points at the
 * first), and 0 when the text is not found.
 */
struct hist_parser {
	const char *cmd; /* the kernel's last_cmd: "hist:" + param_and_filter */
	char *buf;	 /* param_and_filter, writable, ".sym-offset" made ".symXoffset" */
	unsigned cmd_col;   /* 0-based column of the command name in the text */
	unsigned param_col; /* 0-based column of buf[0] in the text */

	int code;	  /* UTRACE_HIST_ERR_* of the first error, -1 for a bare -EINVAL */
	int errnum;	  /* its negative errno */
	unsigned kpos;	  /* its position in cmd, as the kernel's error_log */
	const char *why;  /* what went wrong, for code -1 (the kernel says nothing) */

	/* name=expr definitions, for "$name" that stands for a plain field */
	char *var_name[UTRACE_HIST_VARS_MAX], *var_expr[UTRACE_HIST_VARS_MAX];
	unsigned nr_var_defs;
};

/* Why the expression is parsed: percent and graph are for values only. */
enum hist_ctx { HIST_CTX_VAL, HIST_CTX_KEY, HIST_CTX_VAR };

/* Records the first error; returns -1. */
int hist_fail(struct hist_parser *hp, int code, int errnum, unsigned kpos);
int hist_fail_einval(struct hist_parser *hp, const char *why);
/* The kernel's errpos(): where text first occurs in last_cmd, else 0. */
unsigned hist_errpos(const struct hist_parser *hp, const char *text);
/* The 0-based column in the text of a position in last_cmd. */
unsigned hist_kcol(const struct hist_parser *hp, unsigned kpos);
/* The 0-based column in the text of a pointer into hp->buf. */
unsigned hist_col(const struct hist_parser *hp, const char *p);
/* kstrtoull(s, 0): decimal, 0x hex or 0 octal, the whole string. */
int hist_strtou64(const char *s, uint64_t *v);

/* parse_expr(): str is cut in place.  NULL on error (hp has it). */
struct utrace_hist_expr *hist_parse_expr(struct hist_parser *hp, char *str, enum hist_ctx ctx,
					 unsigned *n_subexprs);
void hist_expr_free(struct utrace_hist_expr *e);
int hist_expr_has_ref(const struct utrace_hist_expr *e);
int hist_expr_is_const(const struct utrace_hist_expr *e);

/* ---- names as the kernel prints them -------------------------------- */

/* Appends like snprintf: len counts what did not fit too. */
struct hist_sb {
	char *buf;
	size_t size, len;
};

void hist_sb_printf(struct hist_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* hist_field_name(): "bytes_req", "common_timestamp", an expression. */
void hist_name(struct hist_sb *sb, const struct utrace_hist_expr *e);
/* hist_field_print(): the name with "$", ".modifier" and "=buckets". */
void hist_field_print(struct hist_sb *sb, const struct utrace_hist_expr *e);
/* The first modifier in the kernel's order, as written (".hex" -> "hex"). */
const char *hist_mod_name(const struct utrace_hist_expr *e);

/* ---- the hist file -------------------------------------------------- */

/* hist_spec_text.c: whether e is the event's stack ("stacktrace",
 * "common_stacktrace"), not a field of addresses with .stacktrace; the
 * value or key a sort key names (hist_field_name(), values first) */
int hist_is_special_stack(const struct utrace_hist_expr *e);
const struct utrace_hist_expr *hist_sort_field(const struct utrace_hist_spec *s, const char *name,
					      int *is_key, unsigned *idx);
/* hist_sort.c: sum idx of element elt; t's elements in the order the
 * kernel prints them (*n of them; NULL out of memory; free it) */
struct utrace_hist_table;
uint64_t hist_sum_of(const struct utrace_hist_table *t, const uint8_t *elt, unsigned idx);
uint32_t *hist_sorted_entries(const struct utrace_hist_spec *s, const struct utrace_hist_table *t,
			      size_t *n);

#endif
