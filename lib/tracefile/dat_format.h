/* SPDX-License-Identifier: MIT */
/*
 * dat_format.h - the utrace.dat file format (documented in docs/utrace-dat.md).
 *
 * A file header, then a stream of 8-byte aligned records, written as the
 * recorder goes so a recorder that is killed leaves a readable prefix:
 *
 *   +------------+-----+-----------+-----+------+------+-----+-------+-----+
 *   | dat_header | CLK | META ...  | IMG | OBJ  | PAGE | ... | STATS | END |
 *   +------------+-----+-----------+-----+------+------+-----+-------+-----+
 *
 * PAGE records carry sub-buffers exactly as the traced thread wrote them
 * (common/rb_abi.h header + common/record.h words, only the committed
 * bytes); KPAGE records carry the kernel's ring-buffer pages of kernel
 * trace events, per CPU.  Symbol tables (SYMTAB) are written when
 * recording ends.
 * Readers skip record types they do not know (forward compatibility).
 */
#ifndef UTRACE_LIB_DAT_FORMAT_H
#define UTRACE_LIB_DAT_FORMAT_H

#include <stdint.h>

#define UTRACE_DAT_MAGIC "\177UTRACE\n"
#define UTRACE_DAT_VERSION 1
/* The file record and start write, and report, dump, graph, convert and
 * extract read, when no -o or -i names one. */
#define UTRACE_DAT_DEFAULT "utrace.dat"

struct utrace_dat_header {
	char magic[8];
	uint32_t size; /* sizeof(struct utrace_dat_header) */
	uint32_t version;
	uint32_t subbuf_size; /* the largest sub-buffer of a PAGE: UTRACE_SUBBUF_MAX */
	uint32_t flags;
	uint64_t reserved[5];
};

enum utrace_dat_type {
	UTRACE_DAT_CLOCK = 1,  /* struct utrace_dat_clock */
	UTRACE_DAT_META = 2,   /* "key=value\n" text */
	UTRACE_DAT_IMAGE = 3,  /* struct utrace_dat_image + exe\0 */
	UTRACE_DAT_OBJECT = 4, /* struct utrace_dat_object + path\0 */
	UTRACE_DAT_SITES = 5,  /* struct utrace_dat_sites + u64 vaddr[count] */
	UTRACE_DAT_SYMTAB = 6, /* struct utrace_dat_symtab + entries + strings */
	UTRACE_DAT_BUFFER = 7, /* struct utrace_dat_buffer */
	UTRACE_DAT_PAGE = 8,   /* struct utrace_dat_page + subbuf header + data */
	UTRACE_DAT_STATS = 9,  /* struct utrace_dat_stats */
	UTRACE_DAT_NOTICE = 10, /* text */
	UTRACE_DAT_END = 11,   /* recording finished; no payload */
	UTRACE_DAT_EVENT_FORMAT = 12, /* struct utrace_dat_event_format + system\0 + format\0 */
	UTRACE_DAT_KHEADER = 13, /* struct utrace_dat_kheader + header_page\0 + header_event\0 */
	UTRACE_DAT_KPAGE = 14,	 /* struct utrace_dat_kpage + a kernel ring-buffer page */
	UTRACE_DAT_KTASKS = 15,	 /* struct utrace_dat_ktask[] */
	UTRACE_DAT_HIST = 16,	 /* struct utrace_dat_hist + names + program + table */
	UTRACE_DAT_SNAP_PAGE = 17, /* as PAGE, utrace_dat_page.reserved = the snapshot's id */
	UTRACE_DAT_SNAPSHOT = 18,  /* struct utrace_dat_snapshot, after its SNAP_PAGEs */
	/* 16-19: kept for the records of triggers, histograms and compression */
	UTRACE_DAT_PERF_ATTR = 20, /* struct utrace_dat_perf_attr: what the samples hold */
	UTRACE_DAT_PERF = 21,	   /* struct utrace_dat_perf + perf ring-buffer records */
	UTRACE_DAT_PERF_OFFCPU = 22, /* struct utrace_dat_perf + off-CPU samples */
	UTRACE_DAT_PERF_KSYMS = 23,  /* {u64 start, NUL-terminated name}...: kernel symbols */
	UTRACE_DAT_KSYMS = 24, /* kallsyms lines: the symbols of the kernel stacks' frames */
	UTRACE_DAT_OWN = 25,   /* struct utrace_dat_own: utrace's own work on a thread */
};

/* A window of utrace's own work on thread tid (TSC counts, both ends
 * included): its kernel events there are utrace's, not the program's. */
struct utrace_dat_own {
	int32_t tid;
	uint32_t kind; /* enum utrace_own_kind (common/proto.h) */
	uint64_t tsc0, tsc1;
};

struct utrace_dat_rec {
	uint32_t type; /* enum utrace_dat_type */
	uint32_t len;  /* payload bytes, excluding this header and padding to 8 */
};

/* Two (tsc, CLOCK_MONOTONIC ns) pairs taken at the start and the end of the
 * recording; a reader maps tsc to ns linearly between them. realtime_ns is
 * CLOCK_REALTIME at the first pair (for dates). */
struct utrace_dat_clock {
	uint64_t tsc0, ns0;
	uint64_t tsc1, ns1;
	uint64_t realtime_ns;
};

struct utrace_dat_image {
	uint32_t image;
	int32_t pid;
	int32_t ppid;
	uint32_t flags; /* enum utrace_hello_flags */
};

struct utrace_dat_object {
	uint32_t image;
	uint32_t obj;
	uint32_t flags; /* enum utrace_obj_flags */
	uint32_t id_base;
	uint32_t nr_sites;
	uint32_t reserved;
	uint64_t bias;
};

struct utrace_dat_sites {
	uint32_t image;
	uint32_t obj;
	uint32_t first;
	uint32_t count;
};

/* Function symbols of one object, sorted by vaddr; names are demangled. */
struct utrace_dat_symtab {
	uint32_t image;
	uint32_t obj;
	uint32_t nr_syms;
	uint32_t str_size;
};

struct utrace_dat_sym {
	uint64_t vaddr;
	uint32_t size;
	uint32_t name; /* offset in the string block that follows the entries */
};

struct utrace_dat_buffer {
	uint32_t buf; /* id used by PAGE and STATS records */
	uint32_t image;
	int32_t pid;
	int32_t tid;
	uint32_t flags; /* enum utrace_rb_flags */
	/* A nested context's buffer (signal handlers that interrupted the
	 * tracer, common/rb_abi.h): the id + 1 of the buffer of the context
	 * they interrupted; 0 for a thread's own buffer. */
	uint32_t base;
	char comm[16];
};

/*
 * A hist trigger's table at the end of the recording: the header, then
 * names_len bytes of "system\0event\0trigger as written\0" (NUL-padded to
 * a multiple of 8), the compiled program (common/hist_prog.h, prog_len
 * bytes, padded to 8), the table's struct utrace_hist_map (hits, drops),
 * and its nr_elts elements of elt_size bytes (key, then the sums).
 */
struct utrace_dat_hist {
	uint32_t prog_len;
	uint32_t names_len;
	uint32_t nr_elts;
	uint32_t elt_size;
};

/* A static tracepoint's layout, as the kernel's events/SYS/NAME/format file
 * text; EVENT records (common/record.h) name it by id. */
struct utrace_dat_event_format {
	uint32_t id;
	uint32_t reserved;
};

/* Kernel events (tracefs instance): how to read the KPAGE records.
 * Followed by the instance's events/header_page and events/header_event
 * texts, each NUL-terminated. */
struct utrace_dat_kheader {
	uint32_t subbuf_size; /* bytes of a ring-buffer page */
	uint32_t flags;	      /* 0 */
	char clock[16];	      /* trace_clock: "x86-tsc" (TSC, as CLOCK) or "mono" (ns) */
};

/* One page read from per_cpu/cpuN/trace_pipe_raw: the kernel's sub-buffer
 * header (u64 time_stamp, u64 commit with the missed-events flags) and
 * its committed bytes (plus the u64 missed count when commit says it is
 * stored); the unused rest of the page is not saved. */
struct utrace_dat_kpage {
	uint32_t cpu;
	uint32_t reserved; /* 0: the trace's; else the id of the (kernel event's) snapshot it is of */
};

/* Sampling (utrace record -F): the perf_event_attr fields a reader needs
 * to parse the PERF records, written once before them. */
struct utrace_dat_perf_attr {
	uint64_t sample_type; /* PERF_SAMPLE_* of <linux/perf_event.h> */
	uint32_t freq;	      /* samples per second of CPU time asked for */
	uint32_t flags;	      /* UTRACE_DAT_PERF_* */
	/* --call-graph dwarf (absent in older files: zero) */
	uint64_t regs_user;  /* PERF_SAMPLE_REGS_USER's mask, <asm/perf_regs.h> bits */
	uint32_t stack_user; /* PERF_SAMPLE_STACK_USER's size asked for */
	uint32_t reserved;
};

enum { UTRACE_DAT_PERF_USER_ONLY = 1u << 0 }; /* the kernel's addresses left out */

/* The layout of the PERF_RECORD_SAMPLEs of UTRACE_DAT_PERF_OFFCPU records
 * (record --off-cpu): one per time a thread was switched out, at the
 * switch-out, its user stack, its period the ns until it was switched in
 * (perf's offcpu-time event); whatever the sampling's own layout. */
#define UTRACE_DAT_OFFCPU_SAMPLE_TYPE                                                              \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Records of one CPU's perf ring buffer as the kernel wrote them (each
 * starts with a struct perf_event_header): PERF_RECORD_SAMPLE laid out by
 * sample_type, MMAP (where files were mapped), COMM, FORK, EXIT, LOST. */
struct utrace_dat_perf {
	uint32_t cpu;
	uint32_t reserved;
};

/* A task the kernel records name (common_pid), written when recording ends. */
struct utrace_dat_ktask {
	int32_t pid; /* the kernel's pid: a thread id */
	int32_t tgid;
	char comm[16];
};

struct utrace_dat_page {
	uint32_t buf;
	uint32_t reserved;
	/* struct utrace_subbuf, then subbuf.commit bytes of records */
};

/*
 * A snapshot (the snapshot trigger, record --overwrite's flight recorder):
 * every thread's sub-buffers as the ring held them when the trigger fired,
 * each one a SNAP_PAGE record (a PAGE whose reserved field is the id),
 * then this.  A reader shows the records up to tsc only: the recorder
 * copies a little after the moment, while the threads write on.
 */
#define UTRACE_SNAP_TRACEFS (-2)
struct utrace_dat_snapshot {
	uint32_t id;	    /* 1, 2, ... in the order they were taken */
	int32_t event;	    /* the event whose trigger asked; -1: a hist action;
			     * UTRACE_SNAP_TRACEFS: a write to the live tracefs */
	int32_t tid;	    /* the thread that fired it */
	uint32_t pages;	    /* SNAP_PAGE records of it */
	uint64_t tsc;	    /* when the trigger fired */
	uint32_t torn;	    /* sub-buffers found being overwritten, left out */
	uint32_t missed;    /* requests before it never taken (too many; a thread killed mid-request) */
};

/* A buffer's counts when it closed, followed (since issue 22) by
 * char comm[16]: its thread's name then, which pthread_setname_np or
 * PR_SET_NAME may have changed since the BUFFER record; readers take it
 * as the thread's name ("" or absent: BUFFER's). */
struct utrace_dat_stats {
	uint32_t buf;
	uint32_t reserved;
	uint64_t written; /* records the producer wrote */
	uint64_t lost;	  /* records it dropped (buffer full) */
	uint64_t pages;	  /* sub-buffers saved */
	uint64_t overrun; /* sub-buffers overwritten or found torn (overwrite mode) */
};

#endif
