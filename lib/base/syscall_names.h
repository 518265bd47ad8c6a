/* SPDX-License-Identifier: MIT */
/*
 * syscall_names.h - the names of this machine's system calls, by number
 * (the kernel's hist .syscall modifier, for example), from the kernel
 * headers at build time.
 */
#ifndef UTRACE_LIB_SYSCALL_NAMES_H
#define UTRACE_LIB_SYSCALL_NAMES_H

/* "read" for 0 on x86-64; NULL for a number the headers do not name. */
const char *utrace_syscall_name(long nr);

#endif
