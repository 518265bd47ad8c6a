/* SPDX-License-Identifier: MIT */
/*
 * rb_abi.h - layout of a ring buffer shared between a traced thread (the
 * producer, in libutrace.so) and the recorder (the consumer, utrace record).
 *
 * One buffer per traced thread, not per CPU.  The kernel can pin a writer
 * to its CPU by disabling preemption; user space cannot, so a per-CPU
 * buffer would need an atomic read-modify-write or an rseq critical section
 * on every record, and a thread migrating in the middle of a call would
 * split its entry and exit across two buffers.  A per-thread buffer has
 * exactly one writer, so writing a record is plain stores plus one release
 * store of the commit count, and a thread's records are strictly nested,
 * which lets an exit record omit its function (see record.h).
 *
 * The buffer is a memfd created by the producer thread and passed to the
 * recorder over the control socket, so it outlives the traced process: if
 * the target is killed (even by SIGKILL) the recorder still holds the
 * mapping and saves what was committed.
 *
 *   memfd:  +--------------+---------+---------+-----+-----------+
 *           | meta (4 KiB) | subbuf0 | subbuf1 | ... | subbufN-1 |
 *           +--------------+---------+---------+-----+-----------+
 *   subbuf: +------------------------+------------------------------+
 *           | utrace_subbuf (32 B)   | records (record.h) ... | free |
 *           +------------------------+------------------------------+
 *                                                ^ commit
 *
 * head counts sub-buffers the producer has finished, tail those the
 * consumer has saved; both only grow.  The producer writes into sub-buffer
 * head % nr.  In producer/consumer mode it may move on only while
 * head + 1 - tail < nr; otherwise it drops records and counts them in lost
 * (the kernel's default, "drop newest"), or, with UTRACE_RB_BLOCK (no-loss
 * mode, LTTng's "blocking"), waits for the consumer to save one: it sets
 * waiting and sleeps on the low 32 bits of tail (a futex shared through
 * the memfd), which the consumer wakes after it advances tail.  A consumer
 * that makes no progress for UTRACE_RB_BLOCK_TIMEOUT_MS is taken for dead
 * and the producer drops again until tail moves.  In overwrite mode it always moves
 * on, and the consumer reads only when the buffer is stopped, checking each
 * sub-buffer's seq before and after the copy (a seqlock) so a page that
 * was being overwritten is discarded instead of saved torn.
 *
 * "One writer" holds per context, not per thread: a signal handler that
 * interrupts the tracer mid-record writes into a buffer of its own (the
 * thread's nested context, meta.nest > 0), as the kernel lets an
 * interrupt nest a writer inside a writer.  The reader merges it back
 * into the thread's stream by time.
 */
#ifndef UTRACE_COMMON_RB_ABI_H
#define UTRACE_COMMON_RB_ABI_H

#include <stdint.h>

#define UTRACE_RB_MAGIC 0x31425255u /* "URB1" */
#define UTRACE_RB_META_SIZE 4096u
/* A buffer's sub-buffer size (meta.subbuf_size): UTRACE_SUBBUF_SIZE unless
 * the live tracefs's buffer_subbuf_size_kb asked for another (the control
 * page's subbuf_size), a power of two from the kernel's page (4 KiB) to
 * its largest sub-buffer (128 pages, kernel/trace/trace.c
 * buffer_subbuf_size_write).  Each buffer has one size for its life: a
 * thread that finds another asked for, between two sub-buffers, closes
 * its buffer and makes a new one (runtime/ring_buffer.c). */
#define UTRACE_SUBBUF_SIZE 16384u
#define UTRACE_SUBBUF_MIN 4096u
#define UTRACE_SUBBUF_MAX (4096u << 7)
#define UTRACE_RB_MIN_SUBBUFS 4u
#define UTRACE_RB_NEST_MAX 3u /* nested contexts per thread (meta.nest) */

enum utrace_rb_flags {
	UTRACE_RB_OVERWRITE = 1u << 0,
	UTRACE_RB_BLOCK = 1u << 1, /* full: wait for the consumer, do not drop */
};

/* How long a producer with a full no-loss buffer waits for a consumer that
 * saves nothing before it drops records as in the default mode. */
#define UTRACE_RB_BLOCK_TIMEOUT_MS 1000u

enum utrace_rb_state {
	UTRACE_RB_ACTIVE = 0,
	UTRACE_RB_CLOSED = 1, /* thread exited; everything is committed */
};

enum utrace_subbuf_flags {
	UTRACE_SB_CONTEXT = 1u << 0, /* starts with a UEXT_CONTEXT record */
};

struct utrace_rb_meta {
	uint32_t size; /* sizeof(struct utrace_rb_meta): ABI structs start with their size */
	uint32_t magic;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	uint32_t flags; /* enum utrace_rb_flags */
	int32_t pid;
	int32_t tid;
	uint32_t image; /* connection (address space) this thread belongs to */
	char comm[16];
	/* 0: the thread's own buffer.  k > 0: the buffer of its k-th nested
	 * context, written by a signal handler that interrupted the tracer
	 * while it was writing into context k - 1 (runtime/ring_buffer.c). */
	uint32_t nest;

	/* Written by the producer only.  A cache line of its own so that the
	 * consumer polling tail does not bounce the producer's line. */
	_Alignas(64) uint64_t head; /* sub-buffers finished (release) */
	uint64_t lost;		    /* records dropped because the buffer was full */
	uint64_t written;	    /* records written (entries-written) */
	uint32_t state;		    /* enum utrace_rb_state (release) */
	uint32_t waiting;	    /* 1 while blocked on a full buffer (UTRACE_RB_BLOCK) */
	uint64_t waits;		    /* times the buffer was full and the thread waited */
	uint64_t wait_tsc;	    /* TSC ticks spent waiting */

	/* Written by the consumer only. */
	_Alignas(64) uint64_t tail; /* sub-buffers saved (release) */

	/* Written by the producer, read at the final drain: the TSC counts
	 * that bound the runtime's own work on this thread, which its kernel
	 * events are not the program's (OWN records): own[0..1] the making of
	 * this buffer, own[2..3] the thread's exit work; 0 0: none. */
	_Alignas(64) uint64_t own[4];
};

/* The futex word a blocked producer sleeps on: the low half of tail, which
 * changes whenever tail does (x86-64 is little endian). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the futex word is tail's low half");
static inline uint32_t *utrace_rb_tail_word(struct utrace_rb_meta *m)
{
	return (uint32_t *)&m->tail;
}

struct utrace_subbuf {
	uint64_t time_stamp; /* tsc that the first record's delta is relative to */
	uint32_t commit;     /* bytes of records after this header (release) */
	uint32_t seq;	     /* low 32 bits of this sub-buffer's index (head value) */
	uint32_t lost_before; /* records lost between the previous sub-buffer and this one */
	uint16_t cpu;	      /* cpu of the first record */
	uint16_t flags;	      /* enum utrace_subbuf_flags */
	uint32_t depth;	      /* function_graph depth when the sub-buffer started */
	uint32_t records;     /* records in it, stored when it is finished; 0 before */
};

/* Whether size is a sub-buffer size a buffer may have. */
static inline int utrace_subbuf_size_ok(uint32_t size)
{
	return size >= UTRACE_SUBBUF_MIN && size <= UTRACE_SUBBUF_MAX && !(size & (size - 1));
}

/* The bytes of records a sub-buffer of size bytes holds. */
static inline uint32_t utrace_subbuf_data(uint32_t size)
{
	return size - (uint32_t)sizeof(struct utrace_subbuf);
}

/* The longest text one PRINT record (common/record.h: 3 words, then the
 * text) can hold in a sub-buffer of size bytes: rt_rb_reserve keeps 3
 * more words free for the CPU and time extend records that may go before
 * it.  A longer utrace_printf is cut there; trace_marker cuts a longer
 * write there too (or at the kernel's TRACE_MARKER_MAX_SIZE), as the
 * kernel cuts one longer than the largest event of its sub-buffer
 * (tracing_mark_write: a short write). */
static inline uint32_t utrace_print_max(uint32_t size)
{
	return (utrace_subbuf_data(size) / 4 - 6) * 4;
}

_Static_assert(sizeof(struct utrace_subbuf) == 32, "subbuf header is part of the file format");
_Static_assert(sizeof(struct utrace_rb_meta) <= UTRACE_RB_META_SIZE, "meta fits its page");

static inline uint64_t utrace_rb_bytes(uint32_t nr_subbufs, uint32_t subbuf_size)
{
	return UTRACE_RB_META_SIZE + (uint64_t)nr_subbufs * subbuf_size;
}

#endif
