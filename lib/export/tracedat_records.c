/* SPDX-License-Identifier: MIT */
/*
 * tracedat_records.c - utrace's events as ftrace's records in a trace.dat
 * being converted (lib/export/tracedat_records.h).
 *
 * Design.  ENTRY -> funcgraph_entry, EXIT -> funcgraph_exit (calltime =
 * time - duration), FUNC -> function, common_pid = tid.  trace-cmd prints
 * an entry as a leaf, "func();", when the next record of the whole file
 * (by time, the lower CPU first on a tie) is its own exit; so a LEAF
 * writes its exit right after its entry, timed at its return, or just
 * before the next event of any CPU if that comes sooner, or at the entry's
 * time if another CPU wrote a record at that time; calltime and rettime
 * keep the true duration.  A LOST event closes its CPU's page and flags
 * the next one as the kernel does (commit bit 31, and bit 30 with the
 * count stored after the records), which trace-cmd prints as
 * "CPU:N [COUNT EVENTS DROPPED]"; that page starts with an event, never a
 * TIME_EXTEND, since only a page's first record carries the flag, and an
 * exit there loses its func if it would pair with the entry before it.
 * Tracepoints, kernel events, kernel stacks and utrace_printf text become
 * the kernel's own records for them (see each put_ function).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/tracedat_internal.h"
#include "lib/export/tracedat_records.h"

struct tracedat_records {
	struct utrace_dat *d;
	struct tracedat_syms *syms;
	struct tracedat_pages *pages;
	const struct utrace_tracedat_format *formats; /* the recording's, ftrace's left out */
	size_t nr_formats;
	bool counting; /* the second pass: st counts */
	struct {
		bool set;
		uint32_t cpu, depth;
		int32_t pid;
		uint64_t func, ts, dur;
		bool tie; /* another CPU has a record at ts before it */
	} leaf;		  /* a LEAF whose exit is not written yet */
	struct {
		uint16_t type;
		int32_t pid;
		uint64_t func;
	} last;			 /* the last record written, of any CPU */
	uint64_t print_ip;	 /* the "utrace_printf" symbol of print events, 0 if none yet */
	unsigned char rec[PAGE]; /* an event being put together */
	struct utrace_tracedat_stats *st;
	struct utrace_error *err;
};

struct tracedat_records *tracedat_records_new(struct utrace_dat *d, struct tracedat_syms *syms,
					      struct tracedat_pages *pages,
					      const struct utrace_tracedat_format *formats,
					      size_t nr_formats, struct utrace_tracedat_stats *st,
					      struct utrace_error *err)
{
	struct tracedat_records *r = calloc(1, sizeof(*r));

	if (!r) {
		tracedat_nomem(d, err);
		return NULL;
	}
	r->d = d;
	r->syms = syms;
	r->pages = pages;
	r->formats = formats;
	r->nr_formats = nr_formats;
	r->st = st;
	r->err = err;
	return r;
}

void tracedat_records_free(struct tracedat_records *r)
{
	free(r);
}

void tracedat_records_rewind(struct tracedat_records *r)
{
	memset(&r->last, 0, sizeof(r->last));
	r->counting = true;
}

/* common_type, common_flags, common_preempt_count, common_pid */
static void put_common(unsigned char *rec, uint16_t type, int32_t pid)
{
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
}

static int put_entry(struct tracedat_records *r, uint32_t cpu, uint64_t ts, int32_t pid,
		     uint64_t func, uint32_t depth)
{
	unsigned char rec[UTRACE_TRACEDAT_ENTRY_SIZE] = {0};
	int32_t dep = (int32_t)depth;

	r->last.type = UTRACE_TRACEDAT_FUNCGRAPH_ENTRY;
	r->last.pid = pid;
	r->last.func = func;
	put_common(rec, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, pid);
	memcpy(rec + 8, &func, 8);
	memcpy(rec + 16, &dep, 4);
	return tracedat_pages_put(r->pages, cpu, ts, rec, sizeof(rec));
}

static int put_exit(struct tracedat_records *r, uint32_t cpu, uint64_t ts, int32_t pid,
		    uint64_t func, uint32_t depth, uint64_t calltime, uint64_t rettime)
{
	unsigned char rec[UTRACE_TRACEDAT_EXIT_SIZE] = {0};
	int32_t dep = (int32_t)depth;

	/*
	 * An exit that opens a page after lost events would pass, to
	 * trace-cmd, for the return of the entry written just before the
	 * loss: it would print a leaf and swallow "EVENTS DROPPED".  The
	 * func of a return is not printed: leave it out.
	 */
	if (tracedat_pages_after_loss(r->pages, cpu) &&
	    r->last.type == UTRACE_TRACEDAT_FUNCGRAPH_ENTRY && r->last.pid == pid &&
	    r->last.func == func)
		func = 0;
	r->last.type = UTRACE_TRACEDAT_FUNCGRAPH_EXIT;
	put_common(rec, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, pid);
	memcpy(rec + 8, &func, 8);
	memcpy(rec + 16, &dep, 4);
	/* overrun @20 stays 0 */
	memcpy(rec + 24, &calltime, 8);
	memcpy(rec + 32, &rettime, 8);
	return tracedat_pages_put(r->pages, cpu, ts, rec, sizeof(rec));
}

static int put_function(struct tracedat_records *r, uint32_t cpu, uint64_t ts, int32_t pid,
			uint64_t ip, uint64_t parent_ip)
{
	unsigned char rec[UTRACE_TRACEDAT_FUNCTION_SIZE] = {0};

	r->last.type = UTRACE_TRACEDAT_FUNCTION;
	put_common(rec, UTRACE_TRACEDAT_FUNCTION, pid);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, &parent_ip, 8);
	return tracedat_pages_put(r->pages, cpu, ts, rec, sizeof(rec));
}

/*
 * The exit of the pending LEAF, before an event at next_ts (if have_next).
 * trace-cmd reads the record with the lowest time next, of the lowest CPU
 * on a tie: the exit must come before the next event, and must not come
 * after a record of another CPU at the entry's time written before it.
 */
static int put_leaf_exit(struct tracedat_records *r, bool have_next, uint64_t next_ts)
{
	uint64_t ret_ts = r->leaf.ts + r->leaf.dur, at = ret_ts;

	if (ret_ts < r->leaf.ts)
		ret_ts = at = UINT64_MAX;
	if (have_next && at >= next_ts)
		at = next_ts > r->leaf.ts ? next_ts - 1 : r->leaf.ts;
	if (r->leaf.tie)
		at = r->leaf.ts;
	r->leaf.set = false;
	return put_exit(r, r->leaf.cpu, at, r->leaf.pid, r->leaf.func, r->leaf.depth, r->leaf.ts,
			ret_ts);
}

/* The file's id of the recording's event id, -1 if the file has no
 * format for it. */
static int file_id(const struct tracedat_records *r, uint32_t id)
{
	for (size_t i = 0; i < r->nr_formats; i++)
		if (r->formats[i].id == (int)id)
			return r->formats[i].file_id;
	return -1;
}

/*
 * A tracepoint or kernel event: the kernel's 8 bytes of common fields
 * (common_type = its id in the file, common_pid = the thread), then the record as
 * the recording holds it, so its own format describes it.  An event
 * without a format in the file, or too big for a page, is left out and
 * counted.
 */
static int put_tracepoint(struct tracedat_records *r, const struct utrace_event *ev)
{
	uint32_t len = 8 + ev->data_len;
	int id = ev->id > UINT16_MAX ? -1 : file_id(r, ev->id);

	if (id < 0 || len > PAGE_DATA - 16) {
		if (r->counting)
			r->st->skipped++;
		return 0;
	}
	memset(r->rec, 0, 8);
	put_common(r->rec, (uint16_t)id, ev->tid);
	memcpy(r->rec + 8, ev->data, ev->data_len);
	if (r->counting)
		r->st->tracepoints++;
	r->last.type = (uint16_t)id;
	return tracedat_pages_put(r->pages, ev->cpu, ev->ts, r->rec, len);
}

/*
 * A kernel event's stack (the kernel's stacktrace trigger): ftrace's
 * kernel_stack entry again (TRACE_STACK, id 4), its frames named by
 * kallsyms entries of the symbols that hold them (from the recording's
 * copy: the function's start, its name without the module).  A user
 * stack has no such entry in the kernel (its userstacktrace is another
 * event): left out.
 */
static int put_kstack(struct tracedat_records *r, const struct utrace_event *ev)
{
	uint32_t n = ev->data_len / 8, len;
	int32_t size;

	if (16 + 8 * n > PAGE_DATA - 32)
		n = (PAGE_DATA - 48) / 8;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t pc, off, sz, at;
		const char *name;
		char *copy;

		memcpy(&pc, (const uint8_t *)ev->data + 8 * i, 8);
		if (!(name = utrace_dat_ksym(r->d, pc, &off, &sz)))
			continue;
		if (!(copy = strndup(name, strcspn(name, " "))))
			return tracedat_nomem(r->d, r->err);
		if (tracedat_syms_add(r->syms, pc - off, copy, false, &at) < 0)
			return -ENOMEM;
		/* the end marker after the frame, not at the start + 1 */
		tracedat_syms_reach(r->syms, pc);
	}
	len = 16 + 8 * n;
	size = (int32_t)n;
	memset(r->rec, 0, 16);
	put_common(r->rec, UTRACE_TRACEDAT_KERNEL_STACK, ev->tid);
	memcpy(r->rec + 8, &size, 4);
	memcpy(r->rec + 16, ev->data, 8 * n);
	if (r->counting)
		r->st->tracepoints++;
	r->last.type = UTRACE_TRACEDAT_KERNEL_STACK;
	return tracedat_pages_put(r->pages, ev->cpu, ev->ts, r->rec, len);
}

/* utrace_printf text as the kernel's trace_marker writes it: ftrace's
 * print event, ip = a symbol "utrace_printf" listed by the first pass. */
static int put_print(struct tracedat_records *r, const struct utrace_event *ev)
{
	uint32_t n = ev->data_len, len;
	uint64_t ip;
	int ret;

	if (!r->print_ip) {
		char *name = strdup("utrace_printf");

		if (r->counting) {
			free(name);
			return tracedat_changed(r->d, r->err);
		}
		if (!name)
			return tracedat_nomem(r->d, r->err);
		ret = tracedat_syms_add_synthetic(r->syms, name, &r->print_ip);
		if (ret < 0)
			return ret;
	}
	if (n > PAGE_DATA - 32)
		n = PAGE_DATA - 32; /* the kernel cuts trace_marker text too */
	len = 16 + n + 1;
	ip = r->print_ip;
	memset(r->rec, 0, 16);
	put_common(r->rec, UTRACE_TRACEDAT_PRINT, ev->tid);
	memcpy(r->rec + 8, &ip, 8);
	memcpy(r->rec + 16, ev->data, n);
	r->rec[16 + n] = 0;
	if (r->counting)
		r->st->tracepoints++;
	r->last.type = UTRACE_TRACEDAT_PRINT;
	return tracedat_pages_put(r->pages, ev->cpu, ev->ts, r->rec, len);
}

int tracedat_records_event(struct tracedat_records *r, const struct utrace_event *ev)
{
	uint64_t func = 0, parent;
	int ret;

	if (r->leaf.set && (ret = put_leaf_exit(r, true, ev->ts)) < 0)
		return ret;
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
		if ((ret = tracedat_syms_func(r->syms, ev->image, ev->id, &func)) < 0)
			return ret;
		r->leaf.tie = tracedat_pages_tie(r->pages, ev->cpu, ev->ts);
		if ((ret = put_entry(r, ev->cpu, ev->ts, ev->tid, func, ev->depth)) < 0)
			return ret;
		if (ev->kind == UTRACE_EV_LEAF) {
			r->leaf.set = true;
			r->leaf.cpu = ev->cpu;
			r->leaf.depth = ev->depth;
			r->leaf.pid = ev->tid;
			r->leaf.func = func;
			r->leaf.ts = ev->ts;
			r->leaf.dur = ev->duration;
		}
		return 0;
	case UTRACE_EV_EXIT:
		if (!(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID &&
		    (ret = tracedat_syms_func(r->syms, ev->image, ev->id, &func)) < 0)
			return ret;
		return put_exit(r, ev->cpu, ev->ts, ev->tid, func, ev->depth,
				(ev->flags & UTRACE_EVF_NO_DURATION) || ev->duration > ev->ts
				    ? ev->ts
				    : ev->ts - ev->duration,
				ev->ts);
	case UTRACE_EV_FUNC:
		if ((ret = tracedat_syms_func(r->syms, ev->image, ev->id, &func)) < 0 ||
		    (ret = tracedat_syms_caller(r->syms, ev->image, ev->parent_ip)) < 0)
			return ret;
		parent = ev->parent_ip;
		return put_function(r, ev->cpu, ev->ts, ev->tid, func, parent);
	case UTRACE_EV_LOST:
		return tracedat_pages_lost(r->pages, ev->cpu, ev->flags & UTRACE_EVF_LOST_UNKNOWN,
					   ev->lost);
	case UTRACE_EV_EVENT:
		return put_tracepoint(r, ev);
	case UTRACE_EV_PRINT:
		return put_print(r, ev);
	case UTRACE_EV_STACK:
		return ev->flags & UTRACE_EVF_STACK_KERNEL ? put_kstack(r, ev) : 0;
	}
	return 0;
}

int tracedat_records_end(struct tracedat_records *r)
{
	return r->leaf.set ? put_leaf_exit(r, false, 0) : 0;
}
