/* SPDX-License-Identifier: MIT */
/*
 * graph_args.h - function_graph's funcgraph-args and funcgraph-retval
 * text: the argument registers and rax a recording captured (utrace
 * record -O funcgraph-args / -O funcgraph-retval), typed from the
 * function's DWARF as the kernel types them from BTF.
 */
#ifndef UTRACE_LIB_GRAPH_ARGS_H
#define UTRACE_LIB_GRAPH_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/tracefile/dat_reader.h"

struct utrace_graph_args;

/* NULL if out of memory (then nothing is typed: "()" and no ret=). */
struct utrace_graph_args *utrace_graph_args_new(struct utrace_dat *d);
void utrace_graph_args_free(struct utrace_graph_args *g);

/*
 * The kernel's print_function_args(): "(n=3, p=0x7ffd1d2c, s=?)" for an
 * ENTRY or LEAF with its registers, "()" without.  Integers in decimal
 * (truncated to their size, signed ones sign-extended), pointers in hex,
 * a struct or union of 16 bytes at most as "(struct)[0x..:0x..]", what no
 * integer register holds (floating point, larger aggregates) as "?", and
 * "..." once the six registers are used up.
 */
void utrace_graph_args_format(struct utrace_graph_args *g, const struct utrace_event *ev, char *buf,
			      size_t size);

/*
 * The kernel's " ret=..." of an EXIT or LEAF with rax, typed by the
 * function's return type (its typed-retval rules): nothing for void or a
 * floating-point return (rax does not hold it), "true"/"false" for bool,
 * signed integers and enums in decimal, the rest in hex (with "(trunc)"
 * for an aggregate wider than rax); without DWARF, as Linux 6.12 prints
 * every value: an error code (-4095..-1, as a long or an int) in
 * decimal, the rest in hex; hex: always hex (funcgraph-retval-hex).
 * "" if none.
 */
void utrace_graph_retval_format(struct utrace_graph_args *g, const struct utrace_event *ev,
				bool hex, char *buf, size_t size);

#endif
