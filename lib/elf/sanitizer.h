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

/* Whether exe or one of its libraries (deps, may be NULL) defines a
 * function of the interfaces the runtime hooks: ASan's
 * __asan_set_error_report_callback, UBSan's
 * __ubsan_get_current_report_data, TSan's __tsan_get_report_data, MSan's
 * __msan_init, LSan's __lsan_do_leak_check (clang
 * links the runtime into the program, where TSan's is in .symtab only;
 * gcc's are libasan.so, libubsan.so, libtsan.so). */
bool utrace_sanitizer_find(const char *exe, const struct utrace_libdeps *deps);

#endif
