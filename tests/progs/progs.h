/* SPDX-License-Identifier: MIT */
/*
 * progs.h - shared by the end-to-end test programs (tests/progs/).
 *
 * Every program is a test of one behaviour a tracer must not disturb.  It
 * must be deterministic: the same stdout, stderr and exit status on every
 * run, traced or not, at -O0 and -O2, with gcc and clang.  The helpers here
 * keep the call graph the same at every optimisation level:
 *
 *   TRACED   the function keeps its own symbol and call site: never
 *            inlined, cloned (foo.constprop.0) or folded by gcc's IPA.
 *   BARRIER  an empty asm after a call: the call is no longer in tail
 *            position, so -O2 cannot turn it into a jump or a loop.
 *            (tailcall.c leaves it out on purpose.)
 */
#ifndef UTRACE_TESTS_PROGS_H
#define UTRACE_TESTS_PROGS_H

#if defined(__clang__)
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noinline, noipa, used))
#endif

#define BARRIER() __asm__ __volatile__("" ::: "memory")

/* An opaque value: the compiler cannot constant-fold through it. */
static inline __attribute__((always_inline)) int opaque(int x)
{
	__asm__ __volatile__("" : "+r"(x));
	return x;
}

#endif
