/* SPDX-License-Identifier: MIT */
/*
 * ftrace_filter.h - which functions to trace, as tracefs decides it from
 * set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace.
 *
 * Each list holds expressions "GLOB", "!GLOB", "GLOB:mod:MODGLOB" or
 * "!GLOB:mod:MODGLOB" (see glob.h for GLOB).  For a function:
 *
 *   a list matches   if some positive expression of it matches and no
 *                    '!' expression of it does;
 *   TRACE            if FILTER has no positive expression or matches, no
 *                    '!' expression of FILTER matches, and NOTRACE does
 *                    not match;
 *   GRAPH_ROOT       if GRAPH matches;
 *   GRAPH_NOTRACE    if GRAPH_NOTRACE matches.
 *
 * The flags are independent: GRAPH_ROOT does not imply TRACE.  Unlike the
 * kernel, the order of expressions does not matter.
 *
 * An expression matches if its GLOB matches the demangled name, the
 * demangled name without its parameter list ("ns::Foo::bar" for
 * "ns::Foo::bar(int) const") or, for function templates, without its
 * return type either, or the raw symbol name; and, with ":mod:", if
 * MODGLOB matches the basename of the object's path ("libm.so*").  A
 * ":mod:" with an empty GLOB means "*".
 */
#ifndef UTRACE_LIB_FTRACE_FILTER_H
#define UTRACE_LIB_FTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

enum utrace_filter_list {
	UTRACE_FILTER = 0,    /* set_ftrace_filter */
	UTRACE_NOTRACE,	      /* set_ftrace_notrace */
	UTRACE_GRAPH,	      /* set_graph_function */
	UTRACE_GRAPH_NOTRACE, /* set_graph_notrace */
	UTRACE_FILTER_LISTS,
};

struct utrace_func_filter;

/* NULL if out of memory. */
struct utrace_func_filter *utrace_func_filter_new(void);
void utrace_func_filter_free(struct utrace_func_filter *f);

/* Adds one expression to a list; on a bad expression returns -EINVAL with
 * err->column the 1-based column within expr. */
int utrace_func_filter_add(struct utrace_func_filter *f, enum utrace_filter_list which,
			   const char *expr, struct utrace_error *err);

/* Number of expressions in a list ('!' ones included). */
size_t utrace_func_filter_count(const struct utrace_func_filter *f, enum utrace_filter_list which);

/*
 * enum utrace_site_select flags (common/proto.h) for one function.  name
 * is the demangled name (or NULL), raw the symbol (or NULL), module the
 * path or basename of the object holding it (NULL: only expressions
 * without ":mod:" can match).  Pass the path of the main executable too,
 * so that ":mod:PROG" selects its functions.
 */
unsigned utrace_func_filter_select(const struct utrace_func_filter *f, const char *name,
				   const char *raw, const char *module);
/* The same, counting in hits[] (utrace_func_filter_total() counters, zeroed
 * by the caller) every expression without '!' that matched the function,
 * so that a pattern that matches nothing can be told of. */
unsigned utrace_func_filter_select_hits(const struct utrace_func_filter *f, const char *name,
					const char *raw, const char *module, uint32_t *hits);
/* Expressions of all lists, in list order: their number, and expression
 * i as the user wrote it, with its list and sign (NULL past the end). */
size_t utrace_func_filter_total(const struct utrace_func_filter *f);
const char *utrace_func_filter_expr(const struct utrace_func_filter *f, size_t i,
				    enum utrace_filter_list *which, bool *neg);

#endif
