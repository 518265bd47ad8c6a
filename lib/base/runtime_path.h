/* SPDX-License-Identifier: MIT */
/*
 * runtime_path.h - where libutrace.so is, for the commands that preload
 * it (utrace record) and those that read its file (utrace list -e lists
 * the sanitizer:* events it defines).
 */
#ifndef UTRACE_LIB_BASE_RUNTIME_PATH_H
#define UTRACE_LIB_BASE_RUNTIME_PATH_H

#include <stddef.h>

/* libutrace.so's path into out: 0, or -1 if not found. */
int utrace_runtime_path(char *out, size_t len);

#endif
