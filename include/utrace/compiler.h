/* SPDX-License-Identifier: MIT */
/*
 * <utrace/compiler.h> - compiler helpers of the public headers.
 */
#ifndef UTRACE_COMPILER_H
#define UTRACE_COMPILER_H

/* Code of utrace's own in the program is never traced itself (the
 * kernel's notrace): no patchable entry, no mcount call. */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define __utrace_notrace __attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#endif
#endif
#ifndef __utrace_notrace
#define __utrace_notrace __attribute__((no_instrument_function))
#endif

/* A function every caller really calls, even in its own file: never
 * inlined nor cloned (a tracepoint probe, t:, is an fprobe on it). */
#if defined(__has_attribute)
#if __has_attribute(noclone)
#define __utrace_called __attribute__((noinline, noclone))
#endif
#endif
#ifndef __utrace_called
#define __utrace_called __attribute__((noinline))
#endif

#endif /* UTRACE_COMPILER_H */
