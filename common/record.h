/* SPDX-License-Identifier: MIT */
/*
 * record.h - the encoding of trace records inside a sub-buffer.
 *
 * The goal is at most 8 bytes per traced call with function_graph (entry
 * and exit), against 32 for uftrace.  Like the kernel's ring buffer the
 * time of a record is a delta from the previous one, and the common records
 * fit in one 32-bit word:
 *
 *   31                        14 13           2 1  0
 *  +----------------------------+--------------+----+
 *  |        func id (18)        |  delta (12)  | 01 |   ENTRY
 *  +----------------------------+--------------+----+
 *  |               delta (30)                  | 10 |   EXIT
 *  +----------------------------+--------------+----+
 *  |        func id (18)        |  delta (12)  | 11 |   FUNC + u64 parent ip
 *  +----------------------------+--------+-----+----+
 *  |           payload (24)     | type(6)      | 00 |   EXT
 *  +----------------------------+--------------+----+
 *
 * Deltas are in raw TSC ticks (converted to nanoseconds by the reader with
 * the calibration stored in the file).  When a delta or an id does not fit,
 * the writer emits a TIME_EXTEND first, or the long form of the record.
 *
 * An EXIT does not name its function: a thread's stream is strictly nested,
 * so the reader pairs it with the innermost open ENTRY.  When the reader
 * cannot know the open frames (events were lost, or an overwrite-mode
 * buffer starts mid-stream) the sub-buffer begins with a CONTEXT record
 * listing them.
 *
 * An all-zero word is EXT/PAD with no payload: "nothing more in this
 * sub-buffer", so a zeroed tail reads as empty.
 */
#ifndef UTRACE_COMMON_RECORD_H
#define UTRACE_COMMON_RECORD_H

#include <stdint.h>

enum utrace_rec_kind {
	UREC_EXT = 0,
	UREC_ENTRY = 1,
	UREC_EXIT = 2,
	UREC_FUNC = 3,
};

#define UREC_SHORT_DELTA_BITS 12
#define UREC_SHORT_ID_BITS 18
#define UREC_SHORT_DELTA_MAX ((1u << UREC_SHORT_DELTA_BITS) - 1)
#define UREC_SHORT_ID_MAX ((1u << UREC_SHORT_ID_BITS) - 1)
#define UREC_EXIT_DELTA_MAX ((1u << 30) - 1)

/*
 * Extended records: word0 = payload << 8 | type << 2 | UREC_EXT, followed by
 * the words named below.  All multi-word fields are little endian and
 * 32-bit aligned (never 64-bit aligned: read them with memcpy).
 */
enum utrace_ext_type {
	UEXT_PAD = 0,	      /* rest of sub-buffer unused */
	UEXT_TIME_EXTEND = 1, /* + u32 hi: delta = hi << 24 | payload */
	UEXT_TIME_STAMP = 2,  /* + u64 absolute tsc (delta base reset) */
	UEXT_ENTRY_LONG = 3,  /* + u32 id, u32 delta */
	UEXT_FUNC_LONG = 4,   /* + u32 id, u32 delta, u64 parent */
	UEXT_EXIT_LONG = 5,   /* + u64 delta */
	UEXT_CONTEXT = 6,     /* payload n; + u32 depth, n * u32 ids (outer->inner) */
	UEXT_CPU = 7,	      /* payload = cpu the following records ran on */
	UEXT_LOST = 8,	      /* + u64 count of records lost at this point */
	UEXT_GRAPH_LEAF = 9,  /* payload delta (exit time); + u32 id, u32 depth, u64 duration
			       * ticks: a call recorded at its exit only (tracing_thresh) */
	UEXT_EXIT_UNWIND = 10, /* payload n; + u32 delta: n frames ended at once by a longjmp
				* or an exception, innermost first */
	UEXT_EVENT = 11,       /* payload n; + u32 delta, u32 id | bytes << 16, n words of
			       * the record after its 8 bytes of common fields */
	UEXT_PRINT = 12,       /* payload n; + u32 delta, u32 bytes, n words of text
			       * (utrace_printf, the trace_marker equivalent) */
	UEXT_ARGS = 13,	       /* payload n; + n words: the first n/2 (0-6) argument registers of
			       * the ENTRY just before it, u64 each (rdi rsi rdx rcx r8 r9),
			       * written with it in one piece (funcgraph-args) */
	UEXT_RETVAL = 14,      /* + u64 rax: the return value of the EXIT just before it,
			       * written with it in one piece (funcgraph-retval) */
	UEXT_STACK = 15,       /* payload n; + u32 delta, u32 frames | flags << 16, n words:
				* frames u64 addresses, innermost first (stacktrace trigger,
				* runtime/stacktrace.c); flags UREC_STACK_* */
	UEXT_SWITCH = 16,      /* payload n; + u32 delta, u32 from, u32 to, u32 depth, n * u32
				* ids (outer->inner): the thread now runs on another stack
				* (a coroutine, runtime/fgraph_stacks.c); from and to name
				* the stacks (0: the thread's own), depth and ids are what is
				* open on the one entered, as in CONTEXT */
	UEXT_RETADDR = 17,     /* + u64: the return address of the ENTRY just before it (the
				* caller's, which the frame's slot held before the return
				* trampoline), written with it in one piece: record -g's
				* samples name their callers with it (funcgraph-retaddr) */
	UEXT_SIGNAL = 18,      /* payload n; + u32 delta, u32 signal number, n words: struct
				* urec_signal: a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				* SIGABRT) delivered to the thread, written by the runtime's
				* handler before the program's own runs (runtime/crash.c) */
	UEXT_NR_TYPES,
};

/* UEXT_STACK flags: the addresses are return addresses (a frame-pointer
 * walk: the call is just before each), not function starts (the
 * function_graph shadow stack names each frame's function exactly). */
enum { UREC_STACK_RET = 1u << 0 };
/* UEXT_STACK flags bits 8-15: the readers of the live tracefs whose
 * stacktrace trigger wrote it, bit r for reader r (utrace_control's; bit 0
 * the top level); none set: the top level's alone. */
#define UREC_STACK_READERS_SHIFT 8
#define UREC_STACK_MAX 32 /* frames kept */

/* UEXT_SIGNAL's words: where the signal came from (siginfo's si_addr for a
 * fault, 0 when sent), the instruction it interrupted, siginfo's si_code
 * (> 0: a fault of that instruction; <= 0: sent by kill, raise, abort). */
struct urec_signal {
	uint64_t addr;
	uint64_t ip;
	int32_t code;
	int32_t sender; /* si_pid of a sent signal, else 0 */
};

static inline uint32_t urec_entry(uint32_t id, uint32_t delta)
{
	return id << 14 | delta << 2 | UREC_ENTRY;
}

static inline uint32_t urec_exit(uint32_t delta)
{
	return delta << 2 | UREC_EXIT;
}

static inline uint32_t urec_func(uint32_t id, uint32_t delta)
{
	return id << 14 | delta << 2 | UREC_FUNC;
}

static inline uint32_t urec_ext(enum utrace_ext_type type, uint32_t payload)
{
	return payload << 8 | (uint32_t)type << 2 | UREC_EXT;
}

static inline enum utrace_rec_kind urec_kind(uint32_t w)
{
	return (enum utrace_rec_kind)(w & 3);
}

static inline uint32_t urec_short_id(uint32_t w)
{
	return w >> 14;
}

static inline uint32_t urec_short_delta(uint32_t w)
{
	return (w >> 2) & UREC_SHORT_DELTA_MAX;
}

static inline uint32_t urec_exit_delta(uint32_t w)
{
	return w >> 2;
}

static inline enum utrace_ext_type urec_ext_type(uint32_t w)
{
	return (enum utrace_ext_type)((w >> 2) & 0x3f);
}

static inline uint32_t urec_ext_payload(uint32_t w)
{
	return w >> 8;
}

/* Number of 32-bit words an extended record occupies, header included.
 * Returns 0 for an unknown type (the reader then stops the sub-buffer). */
static inline uint32_t urec_ext_words(uint32_t w)
{
	switch (urec_ext_type(w)) {
	case UEXT_PAD:
		return 1;
	case UEXT_TIME_EXTEND:
		return 2;
	case UEXT_TIME_STAMP:
		return 3;
	case UEXT_ENTRY_LONG:
		return 3;
	case UEXT_FUNC_LONG:
		return 5;
	case UEXT_EXIT_LONG:
		return 3;
	case UEXT_CONTEXT:
		return 2 + urec_ext_payload(w);
	case UEXT_CPU:
		return 1;
	case UEXT_LOST:
		return 3;
	case UEXT_GRAPH_LEAF:
		return 5;
	case UEXT_EXIT_UNWIND:
		return 2;
	case UEXT_EVENT:
	case UEXT_PRINT:
	case UEXT_STACK:
	case UEXT_SIGNAL:
		return 3 + urec_ext_payload(w);
	case UEXT_ARGS:
		return 1 + urec_ext_payload(w);
	case UEXT_RETVAL:
	case UEXT_RETADDR:
		return 3;
	case UEXT_SWITCH:
		return 5 + urec_ext_payload(w);
	default:
		return 0;
	}
}

#endif
