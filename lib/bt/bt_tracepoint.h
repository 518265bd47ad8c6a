/* SPDX-License-Identifier: MIT */
/* bt_tracepoint.h - the kernel's tracepoints in utrace bt (bt_tracepoint.c). */
#ifndef UTRACE_LIB_BT_TRACEPOINT_H
#define UTRACE_LIB_BT_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/bt/bt_ast.h"
#include "lib/kernel/kernel_saved.h"

struct utrace_dat;

/* The names of the threads a reading names that the recording does not:
 * the kernel's saved_cmdlines (lib/kernel/kernel_saved.h), for the
 * threads gone, read once a reading (bt_replay) at most, when such a
 * thread's hit asks and the table read last cannot answer it (the
 * thread is not in it, or the hit came after it was read: the thread
 * may have been renamed, or its pid taken by another, since).  Reading
 * the file costs milliseconds (the kernel formats every entry, thousands
 * when saved_cmdlines_size was raised): read at every such hit, a busy
 * machine's system-wide tracepoints took seconds a reading. */
struct bt_cmdline {
	int pid;
	char comm[16];
};
#define BT_COMM_CACHE 256 /* threads whose name a reading keeps */
struct bt_cmdlines {
	struct utrace_ksaved saved;
	uint64_t read_ns; /* when it was read (CLOCK_MONOTONIC), 0: never */
	bool fresh;	  /* read in this reading: not again */
	/* the names read from /proc (or saved_cmdlines) in this reading, by
	 * tid % BT_COMM_CACHE (pid 0: none): a system-wide probe of openat
	 * that read /proc/TID/comm at every hit of a thread the recording
	 * does not name (utrace bt's own) made a hit per hit, without end */
	struct bt_cmdline seen[BT_COMM_CACHE];
};

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
/* Whether the program exe has a tracepoint of its own (TRACE_EVENT) that
 * the globs match: tracepoint: then names it, not the kernel's. */
bool bt_tracepoint_own(const char *exe, const char *sys, const char *event);
/* The traced program's file: -p's /proc/PID/exe, else argv[0] as
 * execvp() finds it; NULL if none. */
char *bt_tracepoint_exe(char *const *argv, int pid);
/* The name of thread tid at its hit at ts (CLOCK_MONOTONIC ns): the
 * recording's, else /proc's, else the kernel's saved_cmdlines (cl, read
 * again if it cannot tell and was not read in this reading), else "<...>". */
void bt_tracepoint_comm(const struct utrace_dat *d, struct bt_cmdlines *cl, int tid, uint64_t ts,
			char *comm, size_t size);
/* Its memory freed (cl empty, not fresh). */
void bt_cmdlines_free(struct bt_cmdlines *cl);
/* A new reading: saved_cmdlines (where the last read cannot tell) and
 * /proc read again when asked. */
void bt_cmdlines_stale(struct bt_cmdlines *cl);

#endif
