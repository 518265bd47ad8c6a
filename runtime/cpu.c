/* SPDX-License-Identifier: MIT */
/*
 * cpu.c - what the runtime learns about the CPU and the thread ABI once,
 * at start-up, for its hot paths:
 *
 *   rt_rseq_cpu        offset of rseq.cpu_id from the thread pointer, so
 *                      rt_clock() gets the CPU with one %fs-relative load
 *   utrace_xsave_size  the XSAVE area that utrace_call_preserving_fpu
 *                      (arch/x86_64/trampoline.S) sets aside on the stack
 */
#include <cpuid.h>
#include <errno.h>
#include <stddef.h>

#include "runtime/rt.h"

uint32_t utrace_xsave_size;
long rt_rseq_cpu;

/* glibc >= 2.35 exports where it put the thread's struct rseq. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

void rt_rseq_init(void)
{
	/* struct rseq { u32 cpu_id_start; u32 cpu_id; ... } */
	if (&__rseq_size && &__rseq_offset && __rseq_size >= 8)
		rt_rseq_cpu = (long)__rseq_offset + 4;
}

int rt_xsave_init(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return -ENOTSUP;
	__cpuid_count(0xd, 0, a, b, c, d);
	if (b < 576)
		return -ENOTSUP;
	utrace_xsave_size = b + 64; /* + room to align to 64 */
	return 0;
}
