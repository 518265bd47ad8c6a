/* SPDX-License-Identifier: MIT */
/*
 * tracedat_records.c - utrace's events as ftrace's records in a trace.dat
 * being converted (lib/export/tracedat_internal.h).
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
#include <string.h>

#include "lib/export/tracedat_internal.h"

/* common_type, common_flags, common_preempt_count, common_pid */
static void put_common(unsigned char *rec, uint16_t type, int32_t pid)
{
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
}

static int put_entry(struct conv *c, uint32_t cpu, uint64_t ts, int32_t pid, uint64_t func,
		     uint32_t depth)
{
	unsigned char rec[UTRACE_TRACEDAT_ENTRY_SIZE] = {0};
	int32_t dep = (int32_t)depth;

	c->last.type = UTRACE_TRACEDAT_FUNCGRAPH_ENTRY;
	c->last.pid = pid;
	c->last.func = func;
	put_common(rec, UTRACE_TRACEDAT_FUNCGRAPH_ENTRY, pid);
	memcpy(rec + 8, &func, 8);
	memcpy(rec + 16, &dep, 4);
	return tracedat_put_record(c, cpu, ts, rec, sizeof(rec));
}

static int put_exit(struct conv *c, uint32_t cpu, uint64_t ts, int32_t pid, uint64_t func,
		    uint32_t depth, uint64_t calltime, uint64_t rettime)
{
	unsigned char rec[UTRACE_TRACEDAT_EXIT_SIZE] = {0};
	int32_t dep = (int32_t)depth;
	struct stream *s = cpu < c->nr_s ? c->s[cpu] : NULL;

	/*
	 * An exit that opens a page after lost events would pass, to
	 * trace-cmd, for the return of the entry written just before the
	 * loss: it would print a leaf and swallow "EVENTS DROPPED".  The
	 * func of a return is not printed: leave it out.
	 */
	if (s && s->pend && !s->used && c->last.type == UTRACE_TRACEDAT_FUNCGRAPH_ENTRY &&
	    c->last.pid == pid && c->last.func == func)
		func = 0;
	c->last.type = UTRACE_TRACEDAT_FUNCGRAPH_EXIT;
	put_common(rec, UTRACE_TRACEDAT_FUNCGRAPH_EXIT, pid);
	memcpy(rec + 8, &func, 8);
	memcpy(rec + 16, &dep, 4);
	/* overrun @20 stays 0 */
	memcpy(rec + 24, &calltime, 8);
	memcpy(rec + 32, &rettime, 8);
	return tracedat_put_record(c, cpu, ts, rec, sizeof(rec));
}

static int put_function(struct conv *c, uint32_t cpu, uint64_t ts, int32_t pid, uint64_t ip,
			uint64_t parent_ip)
{
	unsigned char rec[UTRACE_TRACEDAT_FUNCTION_SIZE] = {0};

	c->last.type = UTRACE_TRACEDAT_FUNCTION;
	put_common(rec, UTRACE_TRACEDAT_FUNCTION, pid);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, &parent_ip, 8);
	return tracedat_put_record(c, cpu, ts, rec, sizeof(rec));
}

/*
 * The exit of the pending LEAF, before an event at next_ts (if have_next).
 * trace-cmd reads the record with the lowest time next, of the lowest CPU
 * on a tie: the exit must come before the next event, and must not come
 * after a record of another CPU at the entry's time written before it.
 */
int tracedat_put_leaf_exit(struct conv *c, bool have_next, uint64_t next_ts)
{
	uint64_t ret_ts = c->leaf.ts + c->leaf.dur, at = ret_ts;

	if (ret_ts < c->leaf.ts)
		ret_ts = at = UINT64_MAX;
	if (have_next && at >= next_ts)
		at = next_ts > c->leaf.ts ? next_ts - 1 : c->leaf.ts;
	if (c->leaf.tie)
		at = c->leaf.ts;
	c->leaf.set = false;
	return put_exit(c, c->leaf.cpu, at, c->leaf.pid, c->leaf.func, c->leaf.depth, c->leaf.ts,
			ret_ts);
}

static int put_lost(struct conv *c, uint32_t cpu, bool unknown, uint64_t n)
{
	struct stream *s = tracedat_get_stream(c, cpu);
	int ret;

	if (!s)
		return c->err->code;
	if (s->used && (ret = tracedat_flush_page(c, s)) < 0)
		return ret;
	s->pend = true;
	if (unknown)
		s->pend_unknown = true;
	else
		s->pend_lost += n;
	if (c->pass == 2) {
		if (unknown)
			c->st->lost_unknown++;
		else
			c->st->lost += n;
	}
	return 0;
}

/* Whether the file carries a format for event id. */
static bool have_format(const struct conv *c, uint32_t id)
{
	for (size_t i = 0; i < c->nr_formats; i++)
		if (c->formats[i].id == (int)id)
			return true;
	return false;
}

/*
 * A tracepoint or kernel event: the kernel's 8 bytes of common fields
 * (common_type = its id, common_pid = the thread), then the record as
 * the recording holds it, so its own format describes it.  An event
 * without a format in the file, or too big for a page, is left out and
 * counted.
 */
static int put_tracepoint(struct conv *c, const struct utrace_event *ev)
{
	uint32_t len = 8 + ev->data_len;

	if (ev->id > UINT16_MAX || !have_format(c, ev->id) || len > PAGE_DATA - 16) {
		if (c->pass == 2)
			c->st->skipped++;
		return 0;
	}
	memset(c->rec, 0, 8);
	put_common(c->rec, (uint16_t)ev->id, ev->tid);
	memcpy(c->rec + 8, ev->data, ev->data_len);
	if (c->pass == 2)
		c->st->tracepoints++;
	c->last.type = (uint16_t)ev->id;
	return tracedat_put_record(c, ev->cpu, ev->ts, c->rec, len);
}

/*
 * A kernel event's stack (the kernel's stacktrace trigger): ftrace's
 * kernel_stack entry again (TRACE_STACK, id 4), its frames named by
 * kallsyms entries of the symbols that hold them (from the recording's
 * copy: the function's start, its name without the module).  A user
 * stack has no such entry in the kernel (its userstacktrace is another
 * event): left out.
 */
static int put_kstack(struct conv *c, const struct utrace_event *ev)
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
		if (!(name = utrace_dat_ksym(c->d, pc, &off, &sz)))
			continue;
		if (!(copy = strndup(name, strcspn(name, " "))))
			return tracedat_nomem(c);
		if (tracedat_add_sym(c, pc - off, copy, false, &at) < 0)
			return -ENOMEM;
		if (pc > c->max_addr) /* the end marker after the frame, not at the start + 1 */
			c->max_addr = pc;
	}
	len = 16 + 8 * n;
	size = (int32_t)n;
	memset(c->rec, 0, 16);
	put_common(c->rec, UTRACE_TRACEDAT_KERNEL_STACK, ev->tid);
	memcpy(c->rec + 8, &size, 4);
	memcpy(c->rec + 16, ev->data, 8 * n);
	if (c->pass == 2)
		c->st->tracepoints++;
	c->last.type = UTRACE_TRACEDAT_KERNEL_STACK;
	return tracedat_put_record(c, ev->cpu, ev->ts, c->rec, len);
}

/* utrace_printf text as the kernel's trace_marker writes it: ftrace's
 * print event, ip = a symbol "utrace_printf" listed by the first pass. */
static int put_print(struct conv *c, const struct utrace_event *ev)
{
	uint32_t n = ev->data_len, len;
	uint64_t ip;
	int ret;

	if (!c->print_ip) {
		char *name = strdup("utrace_printf");

		if (c->pass == 2)
			return tracedat_changed(c);
		if (!name)
			return tracedat_nomem(c);
		ret = tracedat_add_sym(c, c->next_synthetic, name, true, &c->print_ip);
		c->next_synthetic += SYNTHETIC_STEP;
		if (ret < 0)
			return ret;
	}
	if (n > PAGE_DATA - 32)
		n = PAGE_DATA - 32; /* the kernel cuts trace_marker text too */
	len = 16 + n + 1;
	ip = c->print_ip;
	memset(c->rec, 0, 16);
	put_common(c->rec, UTRACE_TRACEDAT_PRINT, ev->tid);
	memcpy(c->rec + 8, &ip, 8);
	memcpy(c->rec + 16, ev->data, n);
	c->rec[16 + n] = 0;
	if (c->pass == 2)
		c->st->tracepoints++;
	c->last.type = UTRACE_TRACEDAT_PRINT;
	return tracedat_put_record(c, ev->cpu, ev->ts, c->rec, len);
}

int tracedat_on_event(struct conv *c, const struct utrace_event *ev)
{
	uint64_t func = 0, parent;
	int ret;

	if (c->leaf.set && (ret = tracedat_put_leaf_exit(c, true, ev->ts)) < 0)
		return ret;
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
		if ((ret = tracedat_func_addr(c, ev->image, ev->id, &func)) < 0)
			return ret;
		c->leaf.tie = c->now.ts == ev->ts && (c->now.multi || c->now.cpu != ev->cpu);
		if ((ret = put_entry(c, ev->cpu, ev->ts, ev->tid, func, ev->depth)) < 0)
			return ret;
		if (ev->kind == UTRACE_EV_LEAF) {
			c->leaf.set = true;
			c->leaf.cpu = ev->cpu;
			c->leaf.depth = ev->depth;
			c->leaf.pid = ev->tid;
			c->leaf.func = func;
			c->leaf.ts = ev->ts;
			c->leaf.dur = ev->duration;
		}
		return 0;
	case UTRACE_EV_EXIT:
		if (!(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID &&
		    (ret = tracedat_func_addr(c, ev->image, ev->id, &func)) < 0)
			return ret;
		return put_exit(c, ev->cpu, ev->ts, ev->tid, func, ev->depth,
				(ev->flags & UTRACE_EVF_NO_DURATION) || ev->duration > ev->ts
				    ? ev->ts
				    : ev->ts - ev->duration,
				ev->ts);
	case UTRACE_EV_FUNC:
		if ((ret = tracedat_func_addr(c, ev->image, ev->id, &func)) < 0 ||
		    (ret = tracedat_note_caller(c, ev->image, ev->parent_ip)) < 0)
			return ret;
		parent = ev->parent_ip;
		return put_function(c, ev->cpu, ev->ts, ev->tid, func, parent);
	case UTRACE_EV_LOST:
		return put_lost(c, ev->cpu, ev->flags & UTRACE_EVF_LOST_UNKNOWN, ev->lost);
	case UTRACE_EV_EVENT:
		return put_tracepoint(c, ev);
	case UTRACE_EV_PRINT:
		return put_print(c, ev);
	case UTRACE_EV_STACK:
		return ev->flags & UTRACE_EVF_STACK_KERNEL ? put_kstack(c, ev) : 0;
	}
	return 0;
}
