/* SPDX-License-Identifier: MIT */
/*
 * recorder_livebuf.c - the live tracefs's buffer_size_kb,
 * buffer_subbuf_size_kb, tracing_cpumask and options/dump-on-crash,
 * through the control page every traced process maps.
 *
 * The kernel resizes its per-CPU buffers in place; utrace's buffers are
 * per thread, each a memfd the thread made at its first record and the
 * recorder mapped.  A new size goes to the control page, and each thread
 * that makes its buffer from then on (a new thread, or a process started
 * later) makes it that big; a buffer already made keeps its size, as
 * remapping one under a writing thread cannot be done without stopping
 * it.  A new sub-buffer size goes there too, and reaches the buffers
 * made: a thread whose buffer has another one replaces it with a new
 * buffer at its next sub-buffer (runtime/ring_buffer.c rb_resize), of
 * buffer_size_kb's KiB in sub-buffers of the new size, as the kernel's
 * ring_buffer_subbuf_order_set keeps each buffer's bytes.  The mask is
 * the kernel's reservation check: a record on a CPU left out is not
 * written (nor counted as lost), runtime/ring_buffer.c.
 */
#include <errno.h>

#include "lib/record/recorder_internal.h"

/* A buffer past this (4 GiB) is refused as the kernel refuses what it
 * cannot allocate. */
#define LIVEBUF_MAX_KB (4ull * 1024 * 1024)

int utrace_recorder_live_buffer_kb(struct utrace_recorder *r, uint64_t kb)
{
	if (!kb)
		return -EINVAL;
	if (kb > LIVEBUF_MAX_KB)
		return -ENOMEM;
	__atomic_store_n(&r->ctl->buffer_kb, (uint32_t)kb, __ATOMIC_RELAXED);
	return 0;
}

uint32_t utrace_recorder_live_buffer_kb_now(struct utrace_recorder *r)
{
	uint64_t kb = __atomic_load_n(&r->ctl->buffer_kb, __ATOMIC_RELAXED);
	uint32_t size = utrace_recorder_live_subbuf_size_now(r);
	uint64_t nr;

	if (!kb)
		kb = (uint64_t)r->nr_subbufs * (UTRACE_SUBBUF_SIZE / 1024);
	/* as the runtime sizes a buffer made now (rb_nr_subbufs) */
	nr = (kb * 1024 + size - 1) / size;
	if (nr < UTRACE_RB_MIN_SUBBUFS)
		nr = UTRACE_RB_MIN_SUBBUFS;
	return (uint32_t)(nr * (size / 1024));
}

int utrace_recorder_live_subbuf_size(struct utrace_recorder *r, uint32_t size)
{
	if (!utrace_subbuf_size_ok(size))
		return -EINVAL;
	__atomic_store_n(&r->ctl->subbuf_size, size, __ATOMIC_RELAXED);
	return 0;
}

uint32_t utrace_recorder_live_subbuf_size_now(struct utrace_recorder *r)
{
	uint32_t size = __atomic_load_n(&r->ctl->subbuf_size, __ATOMIC_RELAXED);

	return utrace_subbuf_size_ok(size) ? size : UTRACE_SUBBUF_SIZE;
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
