/* SPDX-License-Identifier: MIT */
/*
 * sanitizer_events.c - the sanitizer:* events of sanitizer_events.h
 * defined here (their formats, keys and record functions), once, for the
 * files that fire them (sanitizer_print.c, sanitizer.c).
 */
#include "runtime/sanitizer.h"

#define CREATE_TRACE_POINTS
#include "runtime/sanitizer_events.h"
