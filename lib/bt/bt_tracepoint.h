/* SPDX-License-Identifier: MIT */
/* bt_tracepoint.h - the kernel's tracepoints in utrace bt (bt_tracepoint.c). */
#ifndef UTRACE_LIB_BT_TRACEPOINT_H
#define UTRACE_LIB_BT_TRACEPOINT_H

#include <stddef.h>

#include "lib/bt/bt_ast.h"

struct utrace_dat;

/* args.FIELD (n->str) in probe pr of tracepoints: typed from the format
 * of the first event its first attach point names (a char array: a
 * string; else an integer: a __data_loc string's is its address, which
 * str() reads, as in bpftrace), given its argument
 * slot (p->tp_fields); 0 or -EINVAL with bpftrace's error. */
int bt_tracepoint_check_field(struct bt_program *p, const struct bt_probe *pr, struct bt_node *n,
			      struct utrace_error *err);

/* The kernel's events "SYSTEM:EVENT" whose parts the globs match,
 * sorted, malloc'ed; 0 or -errno. */
int bt_tracepoint_find(const char *sys, const char *event, char ***out, size_t *n);
/* The same, the events of the program exe's own tracepoints (TRACE_EVENT)
 * too (exe NULL: none); without a tracefs, those only. */
int bt_tracepoint_find_in(const char *exe, const char *sys, const char *event, char ***out,
			  size_t *n);
/* The traced program's file: -p's /proc/PID/exe, else argv[0] as
 * execvp() finds it; NULL if none. */
char *bt_tracepoint_exe(char *const *argv, int pid);
/* The name of thread tid: the recording's, else /proc's, else "<...>". */
void bt_tracepoint_comm(const struct utrace_dat *d, int tid, char *comm, size_t size);

#endif
