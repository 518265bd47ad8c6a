/* SPDX-License-Identifier: MIT */
/*
 * report_stack.h - the stacktrace trigger's records (UTRACE_EV_STACK) as
 * the kernel's trace output prints a stack entry.
 */
#ifndef UTRACE_LIB_REPORT_STACK_H
#define UTRACE_LIB_REPORT_STACK_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/tracefile/dat_reader.h"

/* After the line's context: "<stack trace>\n" then " => NAME\n" a frame;
 * in_comment (function_graph prints events inside a C comment): the last
 * newline becomes " * /\n" without the blank, as print_graph_comment()
 * strips it before it closes the comment. */
void utrace_report_print_stack(FILE *out, struct utrace_dat *d, const struct utrace_event *ev,
			       bool in_comment);

#endif
