/* SPDX-License-Identifier: MIT */
/*
 * proc_self.h - whether a process runs utrace: the owner of a session, a
 * kernel instance or a probe group, told apart from a process that reused
 * its pid; a process's program file, and a path as the process sees it
 * (its mount namespace and root may not be ours).
 */
#ifndef UTRACE_LIB_BASE_PROC_SELF_H
#define UTRACE_LIB_BASE_PROC_SELF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 1 if pid's program file is this program's or is named utrace* (an
 * installed copy, another build; `utrace bt` runs as bpftrace through a
 * link, whose comm is then bpftrace but whose file is utrace's), 0 if
 * not or pid is gone, -1 if it cannot be told (its exe is not ours to
 * read). */
int utrace_proc_is_utrace(pid_t pid);

/* pid's program file as the process names it (/proc/PID/exe's link,
 * NUL-terminated in buf): its length, or -errno (-ENAMETOOLONG if it does
 * not fit). */
int utrace_proc_exe(pid_t pid, char *buf, size_t size);

/* path (absolute) as process pid sees it, a path we can open: path itself
 * when it is the same file here (device and inode) or when pid's is not
 * there, else "/proc/PID/root" + path (another mount namespace's or
 * root's file, as bpftrace's -p takes it).  A relative path or one that
 * starts with /proc/PID/root already is left as it is.  The length, or
 * -ENAMETOOLONG. */
int utrace_proc_path(pid_t pid, const char *path, char *buf, size_t size);

/* Whether two paths are one file (device and inode). */
bool utrace_same_file(const char *a, const char *b);

#endif
