/* SPDX-License-Identifier: MIT */
/*
 * <utrace/utrace.h> - what a traced program may call.
 *
 * utrace_printf() writes a line of text into the trace, like writing to
 * tracefs trace_marker (or the kernel's trace_printk): `utrace report`
 * shows it in time order with the function calls and events.  Without
 * utrace (the program run on its own) it costs one test and does nothing;
 * nothing needs to be linked.
 */
#ifndef UTRACE_UTRACE_H
#define UTRACE_UTRACE_H

#include <stdarg.h>
#include <stdio.h>

#include <utrace/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libutrace.so when it is loaded (weak: absent otherwise). */
extern int __utrace_marker_on __attribute__((weak));
void __utrace_marker_write(const char *text, unsigned len) __attribute__((weak));

static inline __utrace_notrace __attribute__((format(printf, 1, 2))) void
utrace_printf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (!&__utrace_marker_on || !__utrace_marker_on || !__utrace_marker_write)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		__utrace_marker_write(buf, n < (int)sizeof(buf) ? (unsigned)n : sizeof(buf) - 1);
}

#ifdef __cplusplus
}
#endif

#endif /* UTRACE_UTRACE_H */
