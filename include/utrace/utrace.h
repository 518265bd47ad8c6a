/* SPDX-License-Identifier: MIT */
/*
 * <utrace/utrace.h> - what a traced program may call.
 *
 * utrace_printf() writes a line of text into the trace, like writing to
 * tracefs trace_marker (or the kernel's trace_printk): `utrace report`
 * shows it in time order with the function calls and events.  Without
 * utrace (the program run on its own) it costs one test and does nothing
 * (the first call looks the runtime up with dlsym: glibc >= 2.34 has it in
 * libc; older ones need -ldl).
 */
#ifndef UTRACE_UTRACE_H
#define UTRACE_UTRACE_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include <utrace/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * libutrace.so, when it is loaded, defines __utrace_marker_on and
 * __utrace_marker_write.  They are looked up with dlsym() on the first
 * call, not referenced as weak symbols: in a non-PIE program the static
 * linker resolves an undefined weak symbol to 0 for good, and the
 * preloaded runtime could never fill it in.
 */
static inline __utrace_notrace __attribute__((format(printf, 1, 2))) void
utrace_printf(const char *fmt, ...)
{
	static void (*write_fn)(const char *, unsigned);
	static const int *on;
	static int looked;
	char buf[512];
	va_list ap;
	int n;

	if (!looked) {
		/* (void *)0 is RTLD_DEFAULT: every loaded object */
		on = (const int *)dlsym((void *)0, "__utrace_marker_on");
		write_fn = (void (*)(const char *, unsigned))dlsym((void *)0,
								    "__utrace_marker_write");
		looked = 1;
	}
	if (!on || !*on || !write_fn)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		write_fn(buf, n < (int)sizeof(buf) ? (unsigned)n : (unsigned)sizeof(buf) - 1);
}

#ifdef __cplusplus
}
#endif

#endif /* UTRACE_UTRACE_H */
