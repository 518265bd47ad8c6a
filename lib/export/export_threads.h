/* SPDX-License-Identifier: MIT */
/*
 * export_threads.h - the processes and threads of a recording with the
 * names a timeline shows for them, shared by the Chrome JSON and Perfetto
 * exports.
 */
#ifndef UTRACE_LIB_EXPORT_THREADS_H
#define UTRACE_LIB_EXPORT_THREADS_H

#include <stdint.h>

#include "lib/base/error.h"
#include "lib/report/report_filter.h"
#include "lib/tracefile/dat_reader.h"

enum utrace_export_task { UTRACE_EXPORT_PROCESS, UTRACE_EXPORT_THREAD };

/*
 * Calls fn once per process and once per thread of the buffers f selects
 * (f may be NULL), in pid then tid order; a process comes with its last
 * thread, just before it.  The name is that of the last buffer of the process or thread:
 * the program's file name for a process (its comm if unknown), the comm
 * for a thread, so a process that called exec shows its new program.
 * Stops at the first non-zero return of fn and returns it; -ENOMEM (err
 * filled) when out of memory.
 */
int utrace_export_tasks(struct utrace_dat *d, const struct utrace_report_filter *f,
			int (*fn)(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid,
				  const char *name),
			void *arg, struct utrace_error *err);

#endif
