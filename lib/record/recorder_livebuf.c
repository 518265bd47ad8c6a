/* SPDX-License-Identifier: MIT */
/*
 * recorder_livebuf.c - the live tracefs's buffer_size_kb,
 * tracing_cpumask and options/dump-on-crash, through the control page
 * every traced process maps.
 *
 * The kernel resizes its per-CPU buffers in place; utrace's buffers are
 * per thread, each a memfd the thread made at its first record and the
 * recorder mapped.  A new size goes to the control page, and each thread
 * that makes its buffer from then on (a new thread, or a process started
 * later) makes it that big; a buffer already made keeps its size, as
 * remapping one under a writing thread cannot be done without stopping
 * it.  The mask is the kernel's reservation check: a record on a CPU left
 * out is not written (nor counted as lost), runtime/ring_buffer.c.
 */
#include <errno.h>

#include "lib/record/recorder_internal.h"

/* A buffer past this (4 GiB) is refused as the kernel refuses what it
 * cannot allocate. */
#define LIVEBUF_MAX_SUBBUFS (4ull * 1024 * 1024 * 1024 / UTRACE_SUBBUF_SIZE)

int utrace_recorder_live_buffer_kb(struct utrace_recorder *r, uint64_t kb)
{
	uint64_t nr = (kb * 1024 + UTRACE_SUBBUF_SIZE - 1) / UTRACE_SUBBUF_SIZE;

	if (!kb)
		return -EINVAL;
	if (kb > LIVEBUF_MAX_SUBBUFS * (UTRACE_SUBBUF_SIZE / 1024) || nr > LIVEBUF_MAX_SUBBUFS)
		return -ENOMEM;
	if (nr < UTRACE_RB_MIN_SUBBUFS)
		nr = UTRACE_RB_MIN_SUBBUFS;
	__atomic_store_n(&r->ctl->nr_subbufs, (uint32_t)nr, __ATOMIC_RELAXED);
	return 0;
}

uint32_t utrace_recorder_live_buffer_kb_now(struct utrace_recorder *r)
{
	uint32_t nr = __atomic_load_n(&r->ctl->nr_subbufs, __ATOMIC_RELAXED);

	return (nr ? nr : r->nr_subbufs) * (UTRACE_SUBBUF_SIZE / 1024);
}

void utrace_recorder_live_cpu_off(struct utrace_recorder *r, uint64_t off)
{
	__atomic_store_n(&r->ctl->cpu_off, off, __ATOMIC_RELAXED);
}

void utrace_recorder_live_dump_on_crash(struct utrace_recorder *r, bool on)
{
	if (on) /* the dump names where the signal came: every object's symbols */
		r->crash_ever = true;
	__atomic_store_n(&r->ctl->dump_on_crash, on ? 1u : 0u, __ATOMIC_RELAXED);
}
