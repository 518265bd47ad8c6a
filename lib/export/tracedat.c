/* SPDX-License-Identifier: MIT */
/*
 * tracedat.c - converts a utrace.dat into a trace-cmd trace.dat
 * (lib/export/tracedat.h); the file's header is lib/export/tracedat_formats.c's.
 *
 * Design.  A trace.dat holds one stream of kernel ring-buffer pages per
 * CPU, each stream in time order.  utrace's events come from the reader
 * already merged by time, each naming the CPU its thread ran on, so every
 * event is appended to the page of its CPU; a full page goes to the file
 * and a new one starts.  The page header holds the absolute time of its
 * first record; each record's 27-bit time_delta is relative to the record
 * before it, with a TIME_EXTEND record in front when the gap does not fit.
 *
 * The file lists every CPU's offset and size before the pages, and the
 * kallsyms before that, so the input is read twice: the first pass packs
 * the pages only to count them, per CPU, and collects the functions; the
 * header is then written, and the second pass packs the same pages again
 * and writes each with pwrite() where its CPU's stream lies.  Memory holds
 * one page per CPU and the symbols, never the events.  The packing depends
 * only on the events, so both passes agree; a mismatch (the input changed
 * in between) is an error.
 *
 * Events: ENTRY -> funcgraph_entry, EXIT -> funcgraph_exit (calltime =
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
 *
 * Symbols: each function's runtime address (its call site) is its value
 * in the records and its kallsyms entry, named as utrace names it (C++
 * names shortened for kallsyms, see utrace_tracedat_symbol_name()).
 * Function tracer callers are named by the symbol holding them, listed at
 * its start; a caller without a symbol gets an entry of its own named by
 * its address, so that trace-cmd, which names an address after the
 * closest symbol below it, never borrows a wrong name.  The processes of
 * one recording can share addresses (fork) or reuse them (exec): a
 * function whose address is taken by another name, or that has no known
 * address, is given one above any user address.  An end marker follows
 * the highest address.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/export/tracedat.h"

#define PAGE UTRACE_TRACEDAT_PAGE_SIZE
#define PAGE_HDR UTRACE_TRACEDAT_PAGE_HEADER
#define PAGE_DATA (PAGE - PAGE_HDR)
#define TS_BITS 27
#define TYPE_DATA_MAX 28 /* type_len of the longest record without a length word */
#define TYPE_TIME_EXTEND 30
#define MISSING_EVENTS (1ull << 31)
#define MISSING_STORED (1ull << 30)
#define MAX_CPUS 65536u
/* addresses for functions without one of their own: above user space */
#define SYNTHETIC_BASE 0xffffff0000000000ull
#define SYNTHETIC_STEP 16

struct stream {
	unsigned char page[PAGE];
	uint32_t used;		 /* bytes of records after the page header */
	uint64_t flags;		 /* MISSING_* of this page */
	uint64_t lost;		 /* stored after the records if MISSING_STORED */
	uint64_t last_ts;	 /* time of the last record */
	uint64_t pages;		 /* pages finished */
	uint64_t planned;	 /* second pass: the pages the first one counted */
	uint64_t file_off;	 /* second pass: where the stream starts */
	bool pend, pend_unknown; /* losses to flag on the next page */
	uint64_t pend_lost;
};

struct slot {
	uint64_t k1, k2, val;
	bool used;
};

/* Open addressing, linear probing, at most half full. */
struct map {
	struct slot *v;
	size_t cap, n;
};

struct conv {
	struct utrace_dat *d;
	int pass; /* 1: lay out, 2: write */
	int fd;
	const char *path;  /* the output */
	struct stream **s; /* by CPU, NULL for CPUs without events */
	uint32_t nr_s;
	struct map funcs;   /* (image, id) -> address in the file */
	struct map callers; /* (image, caller address) already named */
	struct map addrs;   /* address -> index in syms */
	struct utrace_tracedat_sym *syms;
	size_t nr_syms, cap_syms;
	uint64_t next_synthetic, max_addr;
	struct {
		bool set;
		uint32_t cpu, depth;
		int32_t pid;
		uint64_t func, ts, dur;
		bool tie; /* another CPU has a record at ts before it */
	} leaf;		  /* a LEAF whose exit is not written yet */
	struct {
		uint64_t ts;
		uint32_t cpu;
		bool multi; /* records of several CPUs at ts */
	} now;		    /* the time of the last record written */
	struct {
		uint16_t type;
		int32_t pid;
		uint64_t func;
	} last;		   /* the last record written, of any CPU */
	uint64_t print_ip; /* the "utrace_printf" symbol of print events, 0 if none yet */
	struct utrace_tracedat_format *formats; /* the recording's, ftrace's left out */
	size_t nr_formats;
	unsigned char rec[PAGE]; /* an event being put together */
	struct utrace_tracedat_stats *st;
	struct utrace_error *err;
};

static uint64_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

static struct slot *map_find(const struct map *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash2(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->v[i].used)
			return NULL;
		if (m->v[i].k1 == k1 && m->v[i].k2 == k2)
			return &m->v[i];
	}
}

/* Adds a key that is not in the map. */
static int map_add(struct map *m, uint64_t k1, uint64_t k2, uint64_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->v[j].used)
				continue;
			for (i = hash2(m->v[j].k1, m->v[j].k2) & (cap - 1); v[i].used;
			     i = (i + 1) & (cap - 1))
				;
			v[i] = m->v[j];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	for (i = hash2(k1, k2) & (m->cap - 1); m->v[i].used; i = (i + 1) & (m->cap - 1))
		;
	m->v[i] = (struct slot){k1, k2, val, true};
	m->n++;
	return 0;
}

static int nomem(struct conv *c)
{
	return utrace_error_set(c->err, -ENOMEM, "%s: out of memory while converting it",
				utrace_dat_path(c->d));
}

static int changed(struct conv *c)
{
	return utrace_error_set(c->err, -EIO, "%s changed while it was being converted",
				utrace_dat_path(c->d));
}

/* ---- Symbols ---- */

/*
 * Lists name at addr, taking name.  An address listed under another name
 * is kept for the first one; if movable, the function moves to a new
 * address.  *out: the address listed.
 */
static int add_sym(struct conv *c, uint64_t addr, char *name, bool movable, uint64_t *out)
{
	struct slot *sl;

	while ((sl = map_find(&c->addrs, addr, 0))) {
		if (!strcmp(c->syms[sl->val].name, name) || !movable) {
			free(name);
			*out = addr;
			return 0;
		}
		addr = c->next_synthetic;
		c->next_synthetic += SYNTHETIC_STEP;
	}
	if (c->nr_syms == c->cap_syms) {
		size_t cap = c->cap_syms ? c->cap_syms * 2 : 256;
		struct utrace_tracedat_sym *v = realloc(c->syms, cap * sizeof(*v));

		if (!v)
			goto oom;
		c->syms = v;
		c->cap_syms = cap;
	}
	if (map_add(&c->addrs, addr, 0, c->nr_syms) < 0)
		goto oom;
	c->syms[c->nr_syms++] = (struct utrace_tracedat_sym){addr, name};
	if (addr > c->max_addr)
		c->max_addr = addr;
	*out = addr;
	return 0;
oom:
	free(name);
	return nomem(c);
}

/* name for kallsyms, or its address when it has none. */
static char *sym_name(const char *name, uint64_t addr)
{
	char *s;

	if (name && *name)
		return utrace_tracedat_symbol_name(name);
	return asprintf(&s, "0x%" PRIx64, addr) < 0 ? NULL : s;
}

/* The address of a function in the file; the first pass lists it. */
static int func_addr(struct conv *c, uint32_t image, uint32_t id, uint64_t *out)
{
	struct slot *sl = map_find(&c->funcs, image, id);
	uint64_t addr;
	char *name;
	int ret;

	if (sl) {
		*out = sl->val;
		return 0;
	}
	if (c->pass == 2)
		return changed(c);
	if (utrace_dat_func_addr(c->d, image, id, &addr) < 0) {
		addr = c->next_synthetic;
		c->next_synthetic += SYNTHETIC_STEP;
	}
	name = sym_name(utrace_dat_func_name(c->d, image, id), addr);
	if (!name)
		return nomem(c);
	ret = add_sym(c, addr, name, true, out);
	if (ret < 0)
		return ret;
	return map_add(&c->funcs, image, id, *out) < 0 ? nomem(c) : 0;
}

/* The first pass lists the symbol holding a function tracer caller. */
static int note_caller(struct conv *c, uint32_t image, uint64_t ip)
{
	uint64_t off = 0, start = ip, dummy;
	const char *raw;
	char *name;

	if (c->pass == 2 || !ip || map_find(&c->callers, image, ip))
		return 0;
	if (map_add(&c->callers, image, ip, 0) < 0)
		return nomem(c);
	raw = utrace_dat_addr_name(c->d, image, ip, &off);
	if (raw && *raw && off <= ip)
		start = ip - off;
	else
		raw = NULL;
	name = sym_name(raw, ip);
	if (!name)
		return nomem(c);
	if (ip > c->max_addr)
		c->max_addr = ip;
	return add_sym(c, start, name, false, &dummy);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct utrace_tracedat_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ---- Pages ---- */

static struct stream *get_stream(struct conv *c, uint32_t cpu)
{
	if (cpu >= MAX_CPUS) {
		utrace_error_set(c->err, -ERANGE, "%s: an event names cpu %u, more than %u",
				 utrace_dat_path(c->d), cpu, MAX_CPUS);
		return NULL;
	}
	if (cpu >= c->nr_s) {
		struct stream **v;

		if (c->pass == 2) {
			changed(c);
			return NULL;
		}
		v = realloc(c->s, (cpu + 1) * sizeof(*v));
		if (!v) {
			nomem(c);
			return NULL;
		}
		memset(v + c->nr_s, 0, (cpu + 1 - c->nr_s) * sizeof(*v));
		c->s = v;
		c->nr_s = cpu + 1;
	}
	if (!c->s[cpu]) {
		if (c->pass == 2) {
			changed(c);
			return NULL;
		}
		c->s[cpu] = calloc(1, sizeof(**c->s));
		if (!c->s[cpu])
			nomem(c);
	}
	return c->s[cpu];
}

static int flush_page(struct conv *c, struct stream *s)
{
	uint64_t commit = s->used | s->flags;

	if (s->flags & MISSING_STORED)
		memcpy(s->page + PAGE_HDR + s->used, &s->lost, sizeof(s->lost));
	memcpy(s->page + 8, &commit, sizeof(commit));
	if (c->pass == 2) {
		off_t at = (off_t)(s->file_off + s->pages * PAGE);
		size_t done = 0;

		if (s->pages >= s->planned)
			return changed(c);
		while (done < PAGE) {
			ssize_t n = pwrite(c->fd, s->page + done, PAGE - done, at + (off_t)done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return utrace_error_set(c->err, n < 0 ? -errno : -EIO,
							"%s: cannot write: %s", c->path,
							strerror(n < 0 ? errno : EIO));
			done += (size_t)n;
		}
		c->st->pages++;
	}
	s->pages++;
	s->used = 0;
	memset(s->page, 0, PAGE);
	return 0;
}

static void start_page(struct stream *s, uint64_t ts)
{
	memcpy(s->page, &ts, sizeof(ts));
	s->flags = 0;
	if (s->pend) {
		s->flags = MISSING_EVENTS | (s->pend_unknown ? 0 : MISSING_STORED);
		s->lost = s->pend_lost;
		s->pend = s->pend_unknown = false;
		s->pend_lost = 0;
	}
}

/* The first word of a record: type_len:5, time_delta:27 as a bitfield. */
static void put_word(unsigned char *p, uint32_t type_len, uint32_t delta)
{
	uint32_t w;

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		w = type_len << TS_BITS | delta;
	else
		w = delta << 5 | type_len;
	memcpy(p, &w, sizeof(w));
}

/* Appends one record of len bytes to cpu's page at time ts. */
static int put_record(struct conv *c, uint32_t cpu, uint64_t ts, const void *data, uint32_t len)
{
	struct stream *s = get_stream(c, cpu);
	uint32_t size = (len + 3) & ~3u, need, ext;
	uint64_t delta = 0;
	unsigned char *p;
	int ret;

	if (!s)
		return c->err->code;
	if (ts < s->last_ts) {
		ts = s->last_ts;
		if (c->pass == 2)
			c->st->clamped++;
	}
	need = 4 + size + (size > TYPE_DATA_MAX * 4 ? 4 : 0);
	if (s->used) {
		delta = ts - s->last_ts;
		ext = delta >> TS_BITS ? 8 : 0;
		if (delta >> (TS_BITS + 32) ||
		    s->used + ext + need > PAGE_DATA - (s->flags & MISSING_STORED ? 8 : 0)) {
			ret = flush_page(c, s);
			if (ret < 0)
				return ret;
		}
	}
	if (!s->used) {
		start_page(s, ts);
		delta = 0;
		if (need > PAGE_DATA - 8)
			return utrace_error_set(c->err, -EINVAL,
						"%s: a record of %u bytes does not fit a page",
						c->path, len);
	}
	p = s->page + PAGE_HDR + s->used;
	if (delta >> TS_BITS) {
		uint32_t hi = (uint32_t)(delta >> TS_BITS);

		put_word(p, TYPE_TIME_EXTEND, (uint32_t)delta & ((1u << TS_BITS) - 1));
		memcpy(p + 4, &hi, sizeof(hi));
		p += 8;
		s->used += 8;
		delta = 0;
	}
	if (size <= TYPE_DATA_MAX * 4) {
		put_word(p, size / 4, (uint32_t)delta);
		p += 4;
	} else {
		uint32_t n = size + 4;

		put_word(p, 0, (uint32_t)delta);
		memcpy(p + 4, &n, sizeof(n));
		p += 8;
	}
	memcpy(p, data, len);
	s->used += need;
	s->last_ts = ts;
	if (ts != c->now.ts) {
		c->now.ts = ts;
		c->now.cpu = cpu;
		c->now.multi = false;
	} else if (cpu != c->now.cpu) {
		c->now.multi = true;
	}
	if (c->pass == 2)
		c->st->events++;
	return 0;
}

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
	return put_record(c, cpu, ts, rec, sizeof(rec));
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
	return put_record(c, cpu, ts, rec, sizeof(rec));
}

static int put_function(struct conv *c, uint32_t cpu, uint64_t ts, int32_t pid, uint64_t ip,
			uint64_t parent_ip)
{
	unsigned char rec[UTRACE_TRACEDAT_FUNCTION_SIZE] = {0};

	c->last.type = UTRACE_TRACEDAT_FUNCTION;
	put_common(rec, UTRACE_TRACEDAT_FUNCTION, pid);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, &parent_ip, 8);
	return put_record(c, cpu, ts, rec, sizeof(rec));
}

/*
 * The exit of the pending LEAF, before an event at next_ts (if have_next).
 * trace-cmd reads the record with the lowest time next, of the lowest CPU
 * on a tie: the exit must come before the next event, and must not come
 * after a record of another CPU at the entry's time written before it.
 */
static int put_leaf_exit(struct conv *c, bool have_next, uint64_t next_ts)
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
	struct stream *s = get_stream(c, cpu);
	int ret;

	if (!s)
		return c->err->code;
	if (s->used && (ret = flush_page(c, s)) < 0)
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
	return put_record(c, ev->cpu, ev->ts, c->rec, len);
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
			return nomem(c);
		if (add_sym(c, pc - off, copy, false, &at) < 0)
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
	return put_record(c, ev->cpu, ev->ts, c->rec, len);
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
			return changed(c);
		if (!name)
			return nomem(c);
		ret = add_sym(c, c->next_synthetic, name, true, &c->print_ip);
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
	return put_record(c, ev->cpu, ev->ts, c->rec, len);
}

static int on_event(struct conv *c, const struct utrace_event *ev)
{
	uint64_t func = 0, parent;
	int ret;

	if (c->leaf.set && (ret = put_leaf_exit(c, true, ev->ts)) < 0)
		return ret;
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
		if ((ret = func_addr(c, ev->image, ev->id, &func)) < 0)
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
		    (ret = func_addr(c, ev->image, ev->id, &func)) < 0)
			return ret;
		return put_exit(c, ev->cpu, ev->ts, ev->tid, func, ev->depth,
				(ev->flags & UTRACE_EVF_NO_DURATION) || ev->duration > ev->ts
				    ? ev->ts
				    : ev->ts - ev->duration,
				ev->ts);
	case UTRACE_EV_FUNC:
		if ((ret = func_addr(c, ev->image, ev->id, &func)) < 0 ||
		    (ret = note_caller(c, ev->image, ev->parent_ip)) < 0)
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

/* One pass over the events; the pages of every CPU end finished. */
static int run_pass(struct conv *c)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	int ret;

	ret = utrace_dat_iter_open(c->d, &it, c->err);
	if (ret < 0)
		return ret;
	while ((ret = utrace_dat_iter_next(it, &ev, c->err)) > 0)
		if ((ret = on_event(c, &ev)) < 0)
			break;
	if (ret == 0 && c->leaf.set)
		ret = put_leaf_exit(c, false, 0);
	for (uint32_t i = 0; ret == 0 && i < c->nr_s; i++)
		if (c->s[i] && c->s[i]->used)
			ret = flush_page(c, c->s[i]);
	if (ret == 0 && c->pass == 2) {
		c->st->warnings = utrace_dat_iter_warnings(it);
		if (c->st->warnings)
			snprintf(c->st->warning, sizeof(c->st->warning), "%s",
				 utrace_dat_iter_warning(it));
	}
	utrace_dat_iter_close(it);
	return ret;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes the header and places each CPU's stream after it. */
static int write_header(struct conv *c, uint32_t nr_cpus)
{
	struct utrace_tracedat_layout l;
	struct utrace_tracedat_task *tasks;
	size_t nr_tasks = 0, len = 0;
	uint64_t *pages, off;
	char *hdr = NULL;
	int ret;

	tasks = utrace_tracedat_tasks(c->d, &nr_tasks);
	pages = calloc(nr_cpus, sizeof(*pages));
	if (!tasks || !pages) {
		free(tasks);
		free(pages);
		return nomem(c);
	}
	for (uint32_t i = 0; i < c->nr_s; i++)
		pages[i] = c->s[i] ? c->s[i]->pages : 0;
	l = (struct utrace_tracedat_layout){.syms = c->syms,
					    .nr_syms = c->nr_syms,
					    .end = c->max_addr + 1,
					    .tasks = tasks,
					    .nr_tasks = nr_tasks,
					    .nr_cpus = nr_cpus,
					    .cpu_pages = pages,
					    .clock = "mono",
					    .formats = c->formats,
					    .nr_formats = c->nr_formats};
	ret = utrace_tracedat_header(&l, &hdr, &len, c->err);
	if (ret < 0)
		nomem(c);
	else if ((ret = write_all(c->fd, hdr, len)) < 0)
		utrace_error_set(c->err, ret, "%s: cannot write: %s", c->path, strerror(-ret));
	c->st->nr_tasks = (unsigned)nr_tasks;
	off = len;
	for (uint32_t i = 0; i < c->nr_s; i++) {
		struct stream *s = c->s[i];

		if (!s)
			continue;
		s->planned = s->pages;
		s->file_off = off;
		off += s->pages * PAGE;
		s->pages = 0;
		s->last_ts = 0;
		s->pend = s->pend_unknown = false;
		s->pend_lost = 0;
	}
	memset(&c->now, 0, sizeof(c->now));
	memset(&c->last, 0, sizeof(c->last));
	c->st->file_bytes = off;
	free(hdr);
	free(tasks);
	free(pages);
	return ret;
}

/* The recording's event formats, but ftrace's (its ids are the file's
 * own function and print events). */
static int list_formats(struct conv *c)
{
	unsigned n = utrace_dat_event_format_count(c->d);

	c->formats = calloc(n + 1, sizeof(*c->formats));
	if (!c->formats)
		return nomem(c);
	for (unsigned i = 0; i < n; i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(c->d, i, &id, &sys);
		if (!text || !sys || !strcmp(sys, "ftrace") || id < 0 || id > UINT16_MAX)
			continue;
		c->formats[c->nr_formats++] =
		    (struct utrace_tracedat_format){.system = sys, .text = text, .id = id};
	}
	return 0;
}

/* The first pass, then the symbol list sorted. */
static int lay_out(struct conv *c)
{
	int ret;

	ret = list_formats(c);
	if (ret < 0)
		return ret;
	c->pass = 1;
	ret = run_pass(c);
	if (ret < 0)
		return ret;
	qsort(c->syms, c->nr_syms, sizeof(*c->syms), sym_cmp);
	c->st->nr_syms = (unsigned)c->nr_syms + 1;
	return 0;
}

static void conv_free(struct conv *c)
{
	for (uint32_t i = 0; i < c->nr_s; i++)
		free(c->s[i]);
	free(c->s);
	for (size_t i = 0; i < c->nr_syms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c->formats);
	free(c->funcs.v);
	free(c->callers.v);
	free(c->addrs.v);
}

/* The output must not be the input: it is truncated first. */
static int check_paths(struct utrace_dat *d, const char *path, struct utrace_error *err)
{
	struct stat in, out;

	if (stat(path, &out) == 0 && stat(utrace_dat_path(d), &in) == 0 &&
	    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
		return utrace_error_set(err, -EINVAL, "%s: the output is the input file", path);
	return 0;
}

int utrace_tracedat_convert(struct utrace_dat *d, const char *path,
			    struct utrace_tracedat_stats *st, struct utrace_error *err)
{
	struct utrace_tracedat_stats local;
	struct conv c = {
	    .d = d, .fd = -1, .path = path, .next_synthetic = SYNTHETIC_BASE, .err = err};
	uint32_t nr_cpus;
	struct stat sb;
	int ret;

	c.st = st ? st : &local;
	memset(c.st, 0, sizeof(*c.st));
	ret = check_paths(d, path, err);
	if (ret == 0)
		ret = lay_out(&c);
	if (ret < 0)
		goto out;
	nr_cpus = utrace_dat_nr_cpus(d);
	if (nr_cpus < c.nr_s)
		nr_cpus = c.nr_s;
	if (nr_cpus == 0)
		nr_cpus = 1;
	if (nr_cpus > MAX_CPUS)
		nr_cpus = c.nr_s ? c.nr_s : 1;
	c.st->nr_cpus = nr_cpus;

	c.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (c.fd < 0) {
		ret = utrace_error_set(err, -errno, "%s: cannot create: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(c.fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		close(c.fd);
		c.fd = -1;
		ret = utrace_error_set(
		    err, -EINVAL, "%s: not a regular file (a trace.dat is written in place)", path);
		goto out;
	}
	ret = write_header(&c, nr_cpus);
	if (ret == 0) {
		c.pass = 2;
		ret = run_pass(&c);
	}
	for (uint32_t i = 0; ret == 0 && i < c.nr_s; i++)
		if (c.s[i] && c.s[i]->pages != c.s[i]->planned)
			ret = changed(&c);
	if (close(c.fd) < 0 && ret == 0)
		ret = utrace_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
	if (ret < 0)
		unlink(path);
out:
	conv_free(&c);
	return ret;
}
