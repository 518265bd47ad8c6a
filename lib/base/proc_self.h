/* SPDX-License-Identifier: MIT */
/*
 * proc_self.h - whether a process runs utrace: the owner of a session, a
 * kernel instance or a probe group, told apart from a process that reused
 * its pid.
 */
#ifndef UTRACE_LIB_BASE_PROC_SELF_H
#define UTRACE_LIB_BASE_PROC_SELF_H

#include <sys/types.h>

/* 1 if pid's program file is this program's or is named utrace* (an
 * installed copy, another build; `utrace bt` runs as bpftrace through a
 * link, whose comm is then bpftrace but whose file is utrace's), 0 if
 * not or pid is gone, -1 if it cannot be told (its exe is not ours to
 * read). */
int utrace_proc_is_utrace(pid_t pid);

#endif
