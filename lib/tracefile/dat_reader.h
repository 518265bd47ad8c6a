/* SPDX-License-Identifier: MIT */
/*
 * lib/tracefile - the utrace.dat file: its format
 * (dat_format.h), the writer (dat_writer.h), and the reader (this file)
 * with its internal parts (dat_internal.h).  May use: lib/base, lib/elf,
 * lib/events (to check event formats); libtraceevent's kbuffer for
 * kernel pages.
 *
 * dat_reader.h - reads a utrace.dat file (lib/tracefile/dat_format.h).
 *
 * utrace_dat_open() reads the metadata records (clock, META, images,
 * objects, sites, symbol tables, buffers, stats, notices) and only indexes
 * the PAGE records; an iterator reads pages on demand with pread(), so
 * memory stays bounded whatever the size of the file.
 *
 * A damaged file never crashes the reader.  Damage that leaves the rest
 * usable (a file cut short, a missing END record, a malformed record) is a
 * warning: utrace_dat_warning() lists them.  A sub-buffer with a bad
 * record is cut short at that record and counted by the iterator
 * (utrace_dat_iter_warnings()).
 *
 * Nothing here is thread safe: the symbol caches live in struct utrace_dat.
 */
#ifndef UTRACE_LIB_DAT_READER_H
#define UTRACE_LIB_DAT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tracefile/dat_format.h"
#include "lib/base/error.h"

struct utrace_dat;
struct utrace_dat_iter;

int utrace_dat_open(const char *path, struct utrace_dat **out, struct utrace_error *err);
void utrace_dat_close(struct utrace_dat *d);

/*
 * A file still being written, opened again and again as it grows (a live
 * reader: utrace bt's replay, the live tracefs): its kernel pages name
 * their tasks only when the recording ends (KTASKS), so each opening
 * finds them by reading every kernel record; with a kscan kept from one
 * opening to the next, only the pages added since are read (the tasks
 * found so far are the kscan's).  utrace_dat_kscan_new: NULL if out of
 * memory.
 */
struct utrace_dat_kscan;
struct utrace_dat_kscan *utrace_dat_kscan_new(void);
void utrace_dat_kscan_free(struct utrace_dat_kscan *s);
int utrace_dat_open_kscan(const char *path, struct utrace_dat_kscan *s, struct utrace_dat **out,
			  struct utrace_error *err);

/*
 * The same file kept open instead: utrace_dat_refresh() reads what was
 * appended to it since d was opened or last refreshed, and d then
 * answers as a fresh open of the file would (its buffers in the same
 * order, the same events, formats, tasks, warnings), at the cost of what
 * was added: the records already read are not read again.  A record
 * that changes what came before (a new CLOCK pair, symbols, KTASKS, END:
 * what a recording writes when it ends) makes it read the whole file
 * anew, into the same d.  No iterator of d may be open across it.  On
 * an error d may hold part of the new records: close it.
 */
int utrace_dat_refresh(struct utrace_dat *d, struct utrace_error *err);

/*
 * Snapshots (the snapshot trigger, SNAPSHOT records): how many the file
 * holds and what each says, in the order they were taken (id 1, 2, ...).
 * utrace_dat_open_snapshot() opens the file as the snapshot of that id
 * would be a recording of its own: its sub-buffers are the pages, its
 * records end at the moment it was asked for, kernel events are left out;
 * everything else (symbols, formats, buffers) is the recording's.  id 0
 * is utrace_dat_open(); an id the file does not have is -ENOENT.
 */
int utrace_dat_open_snapshot(const char *path, unsigned id, struct utrace_dat **out,
			     struct utrace_error *err);
unsigned utrace_dat_snapshot_count(const struct utrace_dat *d);
const struct utrace_dat_snapshot *utrace_dat_snapshot_get(const struct utrace_dat *d, unsigned i);

const char *utrace_dat_path(const struct utrace_dat *d);
/* 1 if the file ends with an END record (the recording finished). */
int utrace_dat_finished(const struct utrace_dat *d);

/* Warnings found while opening, each one line starting with the path.
 * At most a few are kept; utrace_dat_warning_count() counts them all. */
unsigned utrace_dat_warning_count(const struct utrace_dat *d);
const char *utrace_dat_warning(const struct utrace_dat *d,
			       unsigned i); /* NULL past the kept ones */

/* Value of a META "key=value" line (the last one if repeated), or NULL.
 * Keys: tracer (nop|function|function_graph), command, date,
 * max_graph_depth, thresh_us, overwrite, nr_cpus. */
const char *utrace_dat_meta(const struct utrace_dat *d, const char *key);

/* The CLOCK record (the last one if several), or NULL if there is none. */
const struct utrace_dat_clock *utrace_dat_clock(const struct utrace_dat *d);

/* CLOCK_MONOTONIC nanoseconds of a tsc value: linear between the two
 * calibration points; 1 tick = 1 ns when they coincide or are missing. */
uint64_t utrace_dat_tsc_to_ns(const struct utrace_dat *d, uint64_t tsc);

/* The number of CPUs: META nr_cpus if present, else 1 + the highest cpu
 * named by a sub-buffer header. */
unsigned utrace_dat_nr_cpus(const struct utrace_dat *d);

/* Buffers (one per traced thread), in the order the file names them;
 * struct utrace_event.buf is an index into this list. */
struct utrace_dat_buffer_info {
	uint32_t buf; /* id in the file */
	uint32_t image;
	int32_t pid;
	int32_t tid;
	uint32_t flags;				/* enum utrace_rb_flags */
	char comm[17];				/* "<...>" when no BUFFER record names it */
	int has_stats;				/* a STATS record was found */
	uint64_t nr_pages;			/* PAGE records found */
	uint64_t written, lost, pages, overrun; /* from STATS, 0 without */
	int kernel; /* a task only kernel events name: no pages, no image */
	/* What signal handlers did while they interrupted the tracer goes
	 * into a nested context's buffer (common/rb_abi.h): nest is its
	 * level (0 for a thread's own buffer), base the index of the buffer
	 * of the context it interrupted.  The iterator hands its events out
	 * as the thread's own (buf = the thread's buffer), at the depth the
	 * thread was at. */
	uint32_t nest;
	uint32_t base;
};

unsigned utrace_dat_buffer_count(const struct utrace_dat *d);
const struct utrace_dat_buffer_info *utrace_dat_buffer_get(const struct utrace_dat *d, unsigned i);

struct utrace_dat_image_info {
	uint32_t image;
	int32_t pid;
	int32_t ppid;
	uint32_t flags;	 /* enum utrace_hello_flags */
	const char *exe; /* "" if unknown */
};

unsigned utrace_dat_image_count(const struct utrace_dat *d);
const struct utrace_dat_image_info *utrace_dat_image_get(const struct utrace_dat *d, unsigned i);

/* NOTICE records (text the runtime wanted the user to see). */
unsigned utrace_dat_notice_count(const struct utrace_dat *d);
const char *utrace_dat_notice(const struct utrace_dat *d, unsigned i);

/*
 * Symbols.  utrace_dat_func_name() names a function id of an image: the
 * symbol that holds its call site, or the runtime address in hex
 * ("0x55d0c0a01139") when no symbol does, or "<id N>" when the file does
 * not say where the site is.  Never NULL; the string lives as long as d.
 * utrace_dat_addr_name() names any runtime address (a parent ip), with its
 * offset in the symbol, or returns NULL if no symbol table covers it.
 */
const char *utrace_dat_func_name(struct utrace_dat *d, uint32_t image, uint32_t id);
const char *utrace_dat_addr_name(struct utrace_dat *d, uint32_t image, uint64_t addr,
				 uint64_t *offset);
/* The file of the object whose symbols cover a runtime address (its path
 * when recorded), and the address as the file's vaddr; -ENOENT if none. */
int utrace_dat_addr_object(struct utrace_dat *d, uint32_t image, uint64_t addr, const char **path,
			   uint64_t *vaddr);
/* The same with the symbol's size (*size, if not NULL) */
const char *utrace_dat_addr_sym(struct utrace_dat *d, uint32_t image, uint64_t addr,
				uint64_t *offset, uint64_t *size);
/* Runtime address of the call site of a function id; <0 if unknown. */
int utrace_dat_func_addr(struct utrace_dat *d, uint32_t image, uint32_t id, uint64_t *addr);
/* The file of a function id's object (its path when recorded) and the ELF
 * vaddr of its call site; <0 if unknown. */
int utrace_dat_func_site(struct utrace_dat *d, uint32_t image, uint32_t id, const char **path,
			 uint64_t *vaddr);

/*
 * Events, merged across all buffers by time.
 *
 * LEAF is an ENTRY immediately followed in its buffer by its own EXIT,
 * folded into one event at the entry's time (function_graph prints it as
 * "func();").  An EXIT's depth is that of its ENTRY.
 */
enum utrace_event_kind {
	UTRACE_EV_ENTRY = 1,
	UTRACE_EV_EXIT = 2,
	UTRACE_EV_LEAF = 3,
	UTRACE_EV_FUNC = 4, /* function tracer: id called from parent_ip */
	UTRACE_EV_LOST = 5, /* lost events in this buffer */
	UTRACE_EV_EVENT = 6, /* a static tracepoint: id = its event id, data = the record
			      * after the kernel's 8 bytes of common fields */
	UTRACE_EV_PRINT = 7, /* utrace_printf text in data (not NUL-terminated) */
	UTRACE_EV_STACK = 8, /* the stacktrace trigger's user stack, after its event:
			      * data = data_len / 8 u64 addresses (unaligned: memcpy),
			      * innermost first; the kernel's own (flag STACK_KERNEL)
			      * from a kernel_stack entry of a kernel stacktrace trigger */
	UTRACE_EV_SIGNAL = 9, /* a crash signal delivered to the thread (record
			       * --dump-on-crash): id = the signal number, data = a
			       * struct urec_signal of common/record.h (unaligned: memcpy) */
};

enum utrace_event_flags {
	UTRACE_EVF_NO_DURATION = 1u << 0,  /* EXIT: the entry time is unknown */
	UTRACE_EVF_NO_ENTRY = 1u << 1,	   /* EXIT: its ENTRY was not reported */
	UTRACE_EVF_NO_ID = 1u << 2,	   /* EXIT: the function is unknown */
	UTRACE_EVF_LOST_UNKNOWN = 1u << 3, /* LOST: how many is unknown */
	UTRACE_EVF_UNWIND = 1u << 4,	   /* EXIT: left by longjmp/exception */
	UTRACE_EVF_THRESH = 1u << 5,	   /* EXIT: tracing_thresh record */
	UTRACE_EVF_STACK_RET = 1u << 6,	   /* STACK: return addresses (else function starts) */
	UTRACE_EVF_STACK_KERNEL = 1u << 7, /* STACK: the kernel's (kernel_stack), u64 each */
};
/* STACK: flags bits 8-15, the live tracefs's readers whose stacktrace
 * trigger wrote it (bit r; none: the top level's alone, UREC_STACK_READERS_SHIFT) */
#define UTRACE_EVF_STACK_READERS_SHIFT 8

#define UTRACE_DAT_NO_ID UINT32_MAX

struct utrace_event {
	uint32_t kind;	   /* enum utrace_event_kind */
	uint32_t flags;	   /* enum utrace_event_flags */
	uint64_t ts;	   /* ns, CLOCK_MONOTONIC */
	uint64_t duration; /* ns, EXIT and LEAF */
	uint32_t buf;	   /* index for utrace_dat_buffer_get() */
	uint32_t image;
	uint32_t id; /* function id, UTRACE_DAT_NO_ID if unknown */
	uint32_t cpu;
	uint32_t depth;
	/* the program stack the call ran on: 0 the thread's own, else a
	 * coroutine's (each with its own calls and depths: SWITCH records) */
	uint32_t stack;
	int32_t pid;
	int32_t tid;
	/* a kernel record's common_flags and common_preempt_count (the
	 * context the kernel prints as "d..2."), has_ctx 1 when set */
	uint8_t ctx_flags, ctx_preempt, has_ctx;
	uint64_t parent_ip; /* FUNC */
	uint64_t lost;	    /* LOST */
	const void *data;   /* EVENT, PRINT: valid until the next utrace_dat_iter_next */
	uint32_t data_len;
	/* funcgraph-args: ENTRY and LEAF with the argument registers (rdi rsi
	 * rdx rcx r8 r9) at the call; funcgraph-retval: EXIT and LEAF with
	 * rax at the return */
	uint32_t has_args; /* an ENTRY or LEAF with its registers, nargs of them */
	uint32_t nargs;
	uint32_t has_retval;
	uint64_t args[6];
	uint64_t retval;
	/* funcgraph-retaddr (record -g with a sampler): ENTRY and LEAF with
	 * the return address the call's frame held, 0 if not recorded */
	uint64_t retaddr;
	/* the TSC count the record was written at, as the runtime read it
	 * (ts is it made CLOCK_MONOTONIC); a kernel record's under the mono
	 * trace_clock: its time made a count by the file's calibration */
	uint64_t tsc;
};

/*
 * Kernel trace events (`utrace record -e sched:sched_switch`) come out of
 * the iterator as UTRACE_EV_EVENT with id < 32768 (the kernel's event id),
 * tid = common_pid, cpu = the CPU whose ring buffer held it, data = the
 * record after its 8 bytes of common fields; their formats are among the
 * event formats below.  buf is the thread's user buffer if it has one
 * (depth is then the call depth the thread is at), else a buffer made for
 * the task (info.kernel = 1, no pages).  Events the kernel dropped are
 * UTRACE_EV_LOST on that CPU.
 */
/* The name of kernel pid (a thread id) at the end of the recording, from
 * the kernel's records or the user buffers; NULL if unknown. */
const char *utrace_dat_comm(const struct utrace_dat *d, int pid);
/* The process (thread group) of kernel pid, -1 if unknown. */
int utrace_dat_tgid(const struct utrace_dat *d, int pid);
/* A file still being written has no kernel task list yet (its tasks
 * are "<...>"): those names gives a name (comm, tgid) to, from the
 * recorder's kernel instance (lib/kernel's utrace_ktrace_tasks so far),
 * as the kernel's saved cmdlines name a task while it runs; so does
 * utrace_dat_comm for a task of names with no record in the file. */
void utrace_dat_name_ktasks(struct utrace_dat *d, const struct utrace_dat_ktask *names,
			    size_t n);
/* The trace_clock of the kernel events ("x86-tsc" or "mono"), NULL if the
 * file has none. */
const char *utrace_dat_kernel_clock(const struct utrace_dat *d);
/* The kernel symbol holding addr (KSYMS record): its name as %ps prints
 * it ("name" or "name [module]"), the offset and the symbol's size; NULL
 * when the recording has none or addr is below the first. */
const char *utrace_dat_ksym(const struct utrace_dat *d, uint64_t addr, uint64_t *off,
			    uint64_t *size);
bool utrace_dat_has_ksyms(const struct utrace_dat *d);

/*
 * Hist triggers' tables saved in the file (HIST records, `record -R
 * 'hist:...'`), checked when the file was opened: the event, the trigger
 * as written, its compiled program (common/hist_prog.h: the key's layout)
 * and nr_elts elements of elt_size bytes (key, then the sums, sums[0] the
 * hit count).  Valid while d is open.
 */
struct utrace_hist_hdr;
struct utrace_dat_hist_info {
	const char *system, *event, *trigger;
	const struct utrace_hist_hdr *prog;
	uint32_t prog_len;
	uint64_t hits, drops;
	bool paused;
	uint64_t snap_seq, snap_val; /* the table's snapshot() (common/hist_map.h) */
	const uint8_t *elts;
	uint32_t nr_elts, elt_size;
};
unsigned utrace_dat_hist_count(const struct utrace_dat *d);
const struct utrace_dat_hist_info *utrace_dat_hist_get(const struct utrace_dat *d, unsigned i);

/* Static tracepoint formats saved in the file (EVENT_FORMAT records), as
 * the kernel's format file text; NULL if no such id. */
unsigned utrace_dat_event_format_count(const struct utrace_dat *d);
const char *utrace_dat_event_format(const struct utrace_dat *d, unsigned i, int *id,
				    const char **system);
const char *utrace_dat_event_format_by_id(const struct utrace_dat *d, int id, const char **system);

/* What the reading has read of the file so far (its open and every
 * pass, from any thread), and the file's size: for a progress line. */
uint64_t utrace_dat_bytes_read(const struct utrace_dat *d);
uint64_t utrace_dat_file_size(const struct utrace_dat *d);

int utrace_dat_iter_open(struct utrace_dat *d, struct utrace_dat_iter **out,
			 struct utrace_error *err);
/* Worker threads the iterators of this process may use to decode the
 * buffers ahead, in parallel (dat_ahead.c), at most one a buffer: 0, the
 * default, none (the iterator decodes as it merges).  The events are the
 * same either way; only the time differs. */
void utrace_dat_read_threads(unsigned n);
/* 1 with an event, 0 at the end, <0 on an I/O error (err filled). */
int utrace_dat_iter_next(struct utrace_dat_iter *it, struct utrace_event *ev,
			 struct utrace_error *err);
/* The same, the event given out in place (no copy): *ev is valid until
 * the next call on it. */
int utrace_dat_iter_next_ref(struct utrace_dat_iter *it, const struct utrace_event **ev,
			     struct utrace_error *err);
/* Sub-buffers cut short at a bad record so far, and the first one's
 * description (NULL if none). */
uint64_t utrace_dat_iter_warnings(const struct utrace_dat_iter *it);
const char *utrace_dat_iter_warning(const struct utrace_dat_iter *it);
/* The records of those sub-buffers that could not be read, from the bad
 * one on, as their headers count them; *unknown: how many of them have a
 * header that does not (the last, partial sub-buffer of a thread), each
 * at least one record more. */
uint64_t utrace_dat_iter_unread(const struct utrace_dat_iter *it, uint64_t *unknown);
/* Kernel events of utrace's own work (the recorder's child before its
 * exec, libutrace.so's start-up: OWN records, dat_own.c) that the
 * iterator left out so far; utrace_dat_show_own(d, true) before opening
 * an iterator keeps them.  utrace_dat_own_windows: how many windows the
 * file has (0: a recording without kernel events, or an older one). */
uint64_t utrace_dat_iter_own(const struct utrace_dat_iter *it);
void utrace_dat_show_own(struct utrace_dat *d, bool show);
size_t utrace_dat_own_windows(const struct utrace_dat *d);
void utrace_dat_iter_close(struct utrace_dat_iter *it);

/*
 * Bookmarks for reading a growing file again and again (trace_pipe,
 * dat_resume.c): an iterator given rs, before its first event, starts
 * each buffer where an earlier reading with rs found that nothing before
 * since_ns is left, and leaves rs there for the next reading.  The events
 * at or after since_ns come out as from a whole reading; those before it
 * may not come out at all.  One rs per file, with since_ns never going back
 * (a reading from an earlier time forgets the bookmarks).
 */
struct utrace_dat_resume;
int utrace_dat_resume_new(struct utrace_dat_resume **out);
void utrace_dat_resume_free(struct utrace_dat_resume *rs);
int utrace_dat_iter_resume(struct utrace_dat_iter *it, struct utrace_dat_resume *rs,
			   uint64_t since_ns, struct utrace_error *err);

#endif
