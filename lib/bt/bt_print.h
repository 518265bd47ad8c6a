/* SPDX-License-Identifier: MIT */
/*
 * bt_print.h - bpftrace's map output, byte for byte as bpftrace 0.17
 * prints it: `@name[k1, k2]: value`, the hist/lhist ASCII bars and bucket
 * labels, `count N, average A, total T` for stats, and the `-f json` lines.
 *
 * This header is the contract between the two halves of `utrace bt`: the
 * half that runs a program (parse, compile, run at the probe, merge the
 * per-thread maps) hands finished maps here as plain arrays; this half
 * sorts and prints them as bpftrace does.  Nothing here knows how a map
 * was filled.  Stacks and symbols come already resolved to text (one line
 * a frame), since resolving them needs the traced process's maps.
 */
#ifndef UTRACE_LIB_BT_PRINT_H
#define UTRACE_LIB_BT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One element of a key, or a non-aggregate value. */
enum utrace_bt_kind {
	UTRACE_BT_INT,	 /* signed 64-bit integer */
	UTRACE_BT_UINT,	 /* unsigned 64-bit integer */
	UTRACE_BT_STR,	 /* string (comm, str(), usym text, ...) */
	UTRACE_BT_STACK, /* ustack/kstack: `lines` frames, innermost first */
	UTRACE_BT_SYM,	 /* usym/ksym/ntop text: printed as STR, but a map of
			    them has no newline between entries, as bpftrace */
	UTRACE_BT_TUPLE, /* s: a tuple in common/bt_tuple.h's form */
	UTRACE_BT_BUF,	 /* s: a buf() in common/bt_buf.h's form */
	UTRACE_BT_TIME,	 /* s: strftime()'s text, printed as STR but bare in
			    json (bpftrace's timestamp) */
};

struct utrace_bt_scalar {
	enum utrace_bt_kind kind;
	int64_t i;		  /* INT, UINT (as uint64_t) */
	const char *s;		  /* STR */
	const char *const *lines; /* STACK: already formatted frames; each is
				     indented as bpftrace does (4 spaces in a
				     key, 8 in a value) unless it starts with a
				     tab (perf mode: "\t%lx sym") */
	size_t nlines;
};

/* What a map holds: the map function that filled it. */
enum utrace_bt_agg {
	UTRACE_BT_AGG_SCALAR, /* @x = expr: `value` below */
	UTRACE_BT_AGG_COUNT,
	UTRACE_BT_AGG_SUM,
	UTRACE_BT_AGG_MIN,
	UTRACE_BT_AGG_MAX,
	UTRACE_BT_AGG_AVG,   /* sum / count, integer division as bpftrace */
	UTRACE_BT_AGG_STATS, /* count, average, total */
	UTRACE_BT_AGG_HIST,  /* log2 buckets */
	UTRACE_BT_AGG_LHIST, /* linear buckets of lhist(v, min, max, step) */
};

/* The log2 histogram's buckets, as bpftrace's hist(): bucket 0 counts
 * negative values, bucket 1 the value 0, bucket 2 the value 1, bucket
 * k >= 3 the values [2^(k-2), 2^(k-1)). */
#define UTRACE_BT_HIST_BUCKETS 66

struct utrace_bt_entry {
	const struct utrace_bt_scalar *key; /* nkeys elements; NULL if 0 */
	struct utrace_bt_scalar value;	    /* AGG_SCALAR */
	int64_t n;			    /* COUNT, SUM, MIN, MAX; count of AVG, STATS */
	int64_t sum;			    /* AVG, STATS */
	const uint64_t *buckets;	    /* HIST: UTRACE_BT_HIST_BUCKETS; LHIST: see below */
};

struct utrace_bt_map {
	const char *name; /* "@" or "@name" */
	size_t nkeys;	  /* 0: a map without key, printed `@name: value` */
	enum utrace_bt_agg agg;
	int64_t lhist_min, lhist_max, lhist_step; /* LHIST: its buckets are
		(..., min), [min, min+step), ..., [max, ...): (max-min)/step + 2 */
	const struct utrace_bt_entry *entries;
	size_t nentries;
	bool value_unsigned; /* SUM: of an unsigned integer, printed and sorted so */
};

enum utrace_bt_format { UTRACE_BT_TEXT, UTRACE_BT_JSON };

/* print(@map), print(@map, top), print(@map, top, div), and what bpftrace
 * prints for every non-empty map at exit.  Entries are sorted here as
 * bpftrace sorts them; `top` 0 means all, `div` 0 or 1 means none.
 * Returns 0, or -errno of the write. */
int utrace_bt_map_print(FILE *out, const struct utrace_bt_map *map, size_t top,
			uint64_t div, enum utrace_bt_format fmt);

/* What bpftrace prints for every map at exit, after the "\n\n" it writes
 * to stdout (the caller's, as bpftrace writes it to stdout even with -o):
 * the maps in the order of their names, each as utrace_bt_map_print with
 * no top or div; an empty map is an empty line in text, nothing in json.
 * Returns 0, or -errno (of the write, or -ENOMEM). */
int utrace_bt_maps_print(FILE *out, const struct utrace_bt_map *maps, size_t nmaps,
			 enum utrace_bt_format fmt);

/* print() of a non-map value, and printf's json record: text `value\n`,
 * json `{"type": "value", "data": ...}`. */
int utrace_bt_value_print(FILE *out, const struct utrace_bt_scalar *v,
			  enum utrace_bt_format fmt);

/* What bpftrace prints besides values and maps (Output::message): text as
 * it is (join() adds a newline), json `{"type": "printf", "data": "..."}`
 * with bpftrace's escaping.  msg holds len bytes. */
enum utrace_bt_message {
	UTRACE_BT_MSG_PRINTF,  /* printf() */
	UTRACE_BT_MSG_TIME,    /* time(): the strftime text */
	UTRACE_BT_MSG_CAT,     /* cat(): the file's bytes */
	UTRACE_BT_MSG_SYSCALL, /* system(): the command's output */
	UTRACE_BT_MSG_JOIN,    /* join(): the joined arguments */
};

int utrace_bt_message_print(FILE *out, enum utrace_bt_message type, const char *msg, size_t len,
			    enum utrace_bt_format fmt);

/* "Attaching N probes..." (1 probe: "Attaching 1 probe...") and
 * {"type": "attached_probes", "data": {"probes": N}}. */
int utrace_bt_attached_print(FILE *out, uint64_t nprobes, enum utrace_bt_format fmt);

/* "Lost N events" and {"type": "lost_events", "data": {"events": N}}. */
int utrace_bt_lost_print(FILE *out, uint64_t lost, enum utrace_bt_format fmt);

#endif
