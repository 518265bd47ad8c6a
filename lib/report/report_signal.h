/* SPDX-License-Identifier: MIT */
/*
 * report_signal.h - a crash signal's record (UTRACE_EV_SIGNAL, record
 * --dump-on-crash) as the reports print it, and the dump of the last
 * calls before it (the kernel's ftrace_dump_on_oops).
 */
#ifndef UTRACE_LIB_REPORT_SIGNAL_H
#define UTRACE_LIB_REPORT_SIGNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/tracefile/dat_reader.h"

/* "SIGSEGV code=SEGV_MAPERR addr=0x0 ip=crash+0x1b" (a sent signal:
 * "SIGABRT code=SI_TKILL pid=1234 ip=..."), what follows "signal: ". */
void utrace_report_signal_text(struct utrace_dat *d, const struct utrace_event *ev, char *buf,
			       size_t size);
/* "SIGSEGV" for 11, "signal 77" for a number it does not know. */
const char *utrace_report_signal_name(int sig, char *buf, size_t size);

/* What the dump prints (utrace_report_crash_dump). */
struct utrace_crash_dump_opts {
	int pid;	/* the process that died */
	int sig;	/* of this signal */
	unsigned calls; /* the last calls of each thread printed */
	bool all;	/* every thread of the process, not only the one that crashed */
	/* nothing printed when no thread has a signal record (record
	 * --tracefs: options/dump-on-crash was 0 at the crash) */
	bool need_signal;
};

/* The last calls of the thread of pid that took sig (of every thread with
 * all) up to its signal record, in function_graph form, between the
 * kernel's "Dumping ftrace buffer" lines; with no signal record (the
 * signal was blocked, or a stack overflow had no alternate stack to run
 * the handler on) every thread's, and says so. */
int utrace_report_crash_dump(struct utrace_dat *d, FILE *out,
			     const struct utrace_crash_dump_opts *o, struct utrace_error *err);

#endif
