/* SPDX-License-Identifier: MIT */
/*
 * sanitizer.h - whether a program runs with a sanitizer runtime whose
 * reports libutrace.so turns into sanitizer:* events (runtime/sanitizer.c),
 * so that utrace record -e and utrace list -e know those events before
 * the program runs.
 */
#ifndef UTRACE_LIB_ELF_SANITIZER_H
#define UTRACE_LIB_ELF_SANITIZER_H

#include <stdbool.h>

#include "lib/elf/libdeps.h"

/* The symbol the runtime hooks (asan_interface.h); the program or one of
 * its libraries defines it when built with -fsanitize=address. */
#define UTRACE_SANITIZER_HOOK "__asan_set_error_report_callback"

/* Whether exe or one of its libraries (deps, may be NULL) exports the
 * hook: clang links the runtime into the program, gcc's is libasan.so. */
bool utrace_sanitizer_find(const char *exe, const struct utrace_libdeps *deps);

#endif
