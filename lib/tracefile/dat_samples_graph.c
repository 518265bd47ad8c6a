/* SPDX-License-Identifier: MIT */
/*
 * dat_samples_graph.c - sampled call chains under function_graph: the
 * return trampoline put back to the real callers, as the kernel's
 * unwinders do with ftrace_graph_ret_addr() (lib/tracefile/dat_internal.h).
 *
 * Why: a traced call's return address on the program's stack is
 * utrace_graph_return (or its _keepflags twin) while the call runs, so the
 * kernel's frame-pointer walk (record -g) put the trampoline where each
 * traced caller belongs, and a DWARF unwinder (--call-graph dwarf) stops
 * at it.  The real return addresses live in the traced thread's shadow
 * stack, which the kernel cannot read when it samples.
 *
 * How, exactly: a recording that samples call chains sets
 * funcgraph-retaddr, so every ENTRY carries the return address it hooked
 * (UEXT_RETADDR).  The thread's ENTRY/EXIT records say which calls were
 * open at any time, innermost last, each with the return it hooked.  A
 * trampoline in a frame-pointer chain is the return slot of the frame
 * the walk read: that of the function holding the chain's address before
 * it, or, when that function sets up no frame (a leaf at -O2), of its
 * nearest caller that does; the open calls are matched so, innermost
 * first (sg_match).  Before
 * the first pass over the samples, one pass over the samples finds those
 * that need it (a trampoline in the chain, or a stack copy to unwind) and
 * one pass over the records, in time order, takes the open calls' return
 * addresses of each such sample's thread at the sample's time.  Each
 * sample then comes out with its chain's trampolines replaced (fp) and
 * the return addresses for the unwinder (utrace_dat_sample graph_rets).
 *
 * Between a call's record and the hook of its return (the runtime's entry
 * code), or between the return and its record (the exit code), the
 * thread has one open call more than trampolines: a sample whose ip is in
 * the runtime leaves the innermost one out when there are more.
 *
 * A trampoline is told by its address: the sample's mapping of it is a
 * file whose symbol utrace_graph_return or utrace_graph_return_keepflags
 * starts at that offset (the runtime writes exactly that address).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include <elf.h>

#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/tracefile/dat_internal.h"
#include "lib/tracefile/dat_samples.h"

#define SG_NEED_STACK 256 /* return addresses kept for a sample to unwind */
#define SG_CHAIN_MAX 1024 /* a chain longer is left as it is (perf: 127 + contexts) */

/* A mapped file: the trampolines' file offsets in it (none: 0), its
 * functions (loaded when first asked). */
struct sg_file {
	char *path;
	uint64_t off[2];
	bool loaded;
	struct utrace_symtab *tab;
	struct utrace_elf_section *secs; /* to turn file offsets into vaddrs */
	size_t nr_secs, cap_secs;
	struct sg_file *next;
};

struct sg_req {
	uint64_t k;  /* the sample's number, in file order */
	uint64_t ts; /* its time */
	int32_t pid, tid;
	uint32_t need, n; /* return addresses wanted, found */
	uint32_t tramps;  /* trampolines in its chain (fp) */
	bool in_rt;	  /* sampled in the runtime, maybe between record and hook */
	uint32_t image;	  /* its thread's, for the functions' names */
	size_t at;	  /* the found ones in pool, innermost first */
};

struct sg_thread {
	int32_t tid;
	uint64_t *ret; /* the open calls' return addresses, by depth */
	uint32_t *id;  /* and their functions */
	size_t n, cap, cap_id;
	uint32_t image;
	uint64_t leaf_ret, leaf_start, leaf_end; /* a call recorded whole (LEAF) */
	uint32_t leaf_id;
};

struct dat_sgraph {
	bool built; /* else being built: its passes see the chains as they are */
	struct sg_file *files;
	struct sg_req *reqs;
	size_t nr_reqs, cap_reqs;
	struct utrace_dat *d;
	uint64_t *pool;	  /* return addresses, innermost first */
	uint64_t *starts; /* the start of each one's callee */
	size_t nr_pool, cap_pool, cap_starts;
	struct sg_thread *threads;
	size_t nr_threads, cap_threads;
	uint64_t counted; /* samples numbered while collecting */
	uint64_t chain[SG_CHAIN_MAX];
};

static void sg_offsets(struct sg_file *f)
{
	struct utrace_elf *elf;
	struct utrace_elf_section tab, sec;

	if (utrace_elf_open(f->path, &elf) < 0)
		return;
	if (utrace_elf_find_section(elf, ".symtab", &tab) < 0 &&
	    utrace_elf_find_section(elf, ".dynsym", &tab) < 0) {
		utrace_elf_close(elf);
		return;
	}
	for (size_t i = 0, n = utrace_elf_sym_count(elf, &tab); i < n; i++) {
		struct utrace_elf_sym s;
		int which;

		if (utrace_elf_sym(elf, &tab, i, &s) < 0 || !s.shndx)
			continue;
		which = !strcmp(s.name, "utrace_graph_return")		 ? 0
			: !strcmp(s.name, "utrace_graph_return_keepflags") ? 1
									   : -1;
		if (which < 0 || utrace_elf_section(elf, s.shndx, &sec, NULL) < 0)
			continue;
		f->off[which] = s.value - sec.vaddr + sec.offset;
	}
	utrace_elf_close(elf);
}

static struct sg_file *sg_file_of(struct dat_sgraph *g, const char *path)
{
	struct sg_file *f;

	for (f = g->files; f && strcmp(f->path, path); f = f->next)
		;
	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	if (strstr(path, "libutrace"))
		sg_offsets(f);
	f->next = g->files;
	g->files = f;
	return f;
}

bool utrace_dat_sample_is_graph_return(struct utrace_dat *d, int32_t pid, uint64_t addr)
{
	struct dat_sgraph **slot = dat_samples_sgraph(d, NULL), *g = slot ? *slot : NULL;
	uint64_t off;
	const char *path = utrace_dat_sample_map(d, pid, addr, &off);
	struct sg_file *f;

	if (!path || !g || !strstr(path, "libutrace") || !(f = sg_file_of(g, path)))
		return false;
	return off && (off == f->off[0] || off == f->off[1]);
}

/* The functions of f and the sections that place them, once. */
static void sg_load(struct sg_file *f)
{
	struct utrace_elf *elf;
	struct utrace_error err;

	f->loaded = true;
	if (f->path[0] != '/' || utrace_symtab_load(f->path, &f->tab, &err) < 0)
		return;
	if (utrace_elf_open(f->path, &elf) < 0)
		return;
	for (size_t i = 0, n = utrace_elf_section_count(elf); i < n; i++) {
		struct utrace_elf_section s;

		if (utrace_elf_section(elf, i, &s, NULL) < 0 || s.type != SHT_PROGBITS ||
		    !(s.flags & SHF_EXECINSTR) ||
		    UTRACE_GROW(f->secs, f->cap_secs, f->nr_secs + 1) < 0)
			continue;
		f->secs[f->nr_secs++] = s;
	}
	utrace_elf_close(elf);
}

/* The runtime address where the function holding addr (in pid) starts,
 * from the mapped file's symbols; 0 if none holds it. */
static uint64_t sg_func_start(struct dat_sgraph *g, int32_t pid, uint64_t addr)
{
	uint64_t off, in;
	const char *path = addr ? utrace_dat_sample_map(g->d, pid, addr, &off) : NULL;
	struct sg_file *f = path ? sg_file_of(g, path) : NULL;

	if (!f)
		return 0;
	if (!f->loaded)
		sg_load(f);
	for (size_t i = 0; f->tab && i < f->nr_secs; i++) {
		const struct utrace_elf_section *s = &f->secs[i];

		if (off >= s->offset && off - s->offset < s->size)
			return utrace_symtab_lookup(f->tab, off - s->offset + s->vaddr, &in)
				   ? addr - in
				   : 0;
	}
	return 0;
}

/* The trampolines in the user part of s's chain. */
static uint32_t sg_count(struct utrace_dat *d, const struct utrace_dat_sample *s)
{
	uint32_t n = 0;

	for (uint32_t i = s->nr_kernel; i < s->nr; i++)
		n += utrace_dat_sample_is_graph_return(d, s->pid, s->chain[i]);
	return n;
}

static int sg_collect(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct utrace_dat *d = arg;
	struct dat_sgraph *g = *dat_samples_sgraph(d, NULL);
	uint64_t k = g->counted++;
	bool stack = s->stack_size && s->nr_regs;
	uint32_t tramps = stack ? 0 : sg_count(d, s), need = stack || tramps ? SG_NEED_STACK : 0;
	uint64_t ip = s->nr > s->nr_kernel ? s->chain[s->nr_kernel] : s->ip, off;
	const char *path = utrace_dat_sample_map(d, s->pid, ip, &off);

	if (!need)
		return 0;
	if (UTRACE_GROW(g->reqs, g->cap_reqs, g->nr_reqs + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	g->reqs[g->nr_reqs++] = (struct sg_req){
	    .k = k,
	    .ts = s->ts,
	    .pid = s->pid,
	    .tid = s->tid,
	    .need = need,
	    .tramps = tramps,
	    .in_rt = !stack && path && strstr(path, "libutrace"),
	};
	return 0;
}

static struct sg_thread *sg_thread(struct dat_sgraph *g, int32_t tid)
{
	for (size_t i = 0; i < g->nr_threads; i++)
		if (g->threads[i].tid == tid)
			return &g->threads[i];
	if (UTRACE_GROW(g->threads, g->cap_threads, g->nr_threads + 1) < 0)
		return NULL;
	g->threads[g->nr_threads] = (struct sg_thread){.tid = tid};
	return &g->threads[g->nr_threads++];
}

/* The start of function id of image, 0 if unknown. */
static uint64_t sg_id_start(struct dat_sgraph *g, int32_t pid, uint32_t image, uint32_t id)
{
	uint64_t site;

	return utrace_dat_func_addr(g->d, image, id, &site) < 0 ? 0 : sg_func_start(g, pid, site);
}

static void sg_put(struct dat_sgraph *g, struct sg_req *r, uint64_t ret, uint32_t image,
		   uint32_t id)
{
	g->pool[g->nr_pool + r->n] = ret;
	g->starts[g->nr_pool + r->n++] = sg_id_start(g, r->pid, image, id);
}

/* The open calls' return addresses of r's thread at its time. */
static int sg_resolve(struct dat_sgraph *g, struct sg_req *r)
{
	struct sg_thread *t = sg_thread(g, r->tid);

	if (!t)
		return -ENOMEM;
	r->at = g->nr_pool;
	r->image = t->image;
	if (UTRACE_GROW(g->pool, g->cap_pool, g->nr_pool + r->need + 1) < 0 ||
	    UTRACE_GROW(g->starts, g->cap_starts, g->nr_pool + r->need + 1) < 0)
		return -ENOMEM;
	bool leaf = t->leaf_ret && r->ts >= t->leaf_start && r->ts < t->leaf_end;
	size_t i = t->n;

	/* in the runtime's entry or exit, the innermost call may be recorded
	 * and its return not hooked (yet, or any more): one more open call
	 * than trampolines, the extra one the innermost */
	if (r->in_rt && t->n + leaf > r->tramps) {
		if (leaf)
			leaf = false;
		else
			i--;
	}
	if (leaf)
		sg_put(g, r, t->leaf_ret, t->image, t->leaf_id);
	while (i-- > 0 && r->n < r->need)
		sg_put(g, r, t->ret[i], t->image, t->id[i]);
	g->nr_pool += r->n;
	return 0;
}

/* An event of the thread's own stack moves its open calls. */
static int sg_apply(struct dat_sgraph *g, const struct utrace_event *ev)
{
	struct sg_thread *t;

	if (ev->stack || (ev->kind != UTRACE_EV_ENTRY && ev->kind != UTRACE_EV_EXIT &&
			  ev->kind != UTRACE_EV_LEAF))
		return 0;
	if (!(t = sg_thread(g, ev->tid)))
		return -ENOMEM;
	if (ev->ts >= t->leaf_end)
		t->leaf_ret = 0;
	if (UTRACE_GROW(t->ret, t->cap, (size_t)ev->depth + 1) < 0 ||
	    UTRACE_GROW(t->id, t->cap_id, (size_t)ev->depth + 1) < 0)
		return -ENOMEM;
	for (size_t i = t->n; i < ev->depth; i++) {
		t->ret[i] = 0; /* opened before the records (CONTEXT): not known */
		t->id[i] = UTRACE_DAT_NO_ID;
	}
	t->n = ev->depth;
	t->image = ev->image;
	if (ev->kind == UTRACE_EV_ENTRY) {
		t->id[t->n] = ev->id;
		t->ret[t->n++] = ev->retaddr;
	} else if (ev->kind == UTRACE_EV_LEAF) {
		t->leaf_id = ev->id;
		t->leaf_ret = ev->retaddr;
		t->leaf_start = ev->ts;
		t->leaf_end = ev->ts + ev->duration;
	}
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct sg_req *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : x->k < y->k ? -1 : x->k > y->k;
}

static int by_k(const void *a, const void *b)
{
	const struct sg_req *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

/* One pass over the records in time order, the requests taken as their
 * time passes. */
static int sg_walk(struct utrace_dat *d, struct dat_sgraph *g, struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	size_t next = 0;
	int ret = utrace_dat_iter_open(d, &it, err);

	if (ret < 0)
		return ret;
	qsort(g->reqs, g->nr_reqs, sizeof(*g->reqs), by_ts);
	while (ret >= 0 && (ret = utrace_dat_iter_next(it, &ev, err)) > 0) {
		while (ret >= 0 && next < g->nr_reqs && g->reqs[next].ts < ev.ts)
			ret = sg_resolve(g, &g->reqs[next++]);
		if (ret >= 0)
			ret = sg_apply(g, &ev);
	}
	while (ret >= 0 && next < g->nr_reqs)
		ret = sg_resolve(g, &g->reqs[next++]);
	utrace_dat_iter_close(it);
	if (ret == -ENOMEM)
		return utrace_error_set(err, ret, "out of memory");
	qsort(g->reqs, g->nr_reqs, sizeof(*g->reqs), by_k);
	return ret < 0 ? ret : 0;
}

static void sg_free(struct dat_sgraph *g);

/* Whether the function at start (in pid) sets up a frame pointer: its
 * code, past endbr64 and the patchable NOP, begins with push %rbp.  A
 * function that does not (a leaf at -O2) has no frame record, so the
 * kernel's walk never reads its return slot.  Unknown: true. */
static bool sg_framed(struct dat_sgraph *g, int32_t pid, uint64_t start)
{
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa}, nop5[5] = {0x0f, 0x1f, 0x44, 0, 0},
			     nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
	uint8_t code[16];
	size_t at = 0;
	uint64_t off;
	const char *path = utrace_dat_sample_map(g->d, pid, start, &off);
	FILE *f = path && path[0] == '/' ? fopen(path, "rb") : NULL;
	bool ok = f && !fseeko(f, (off_t)off, SEEK_SET) && fread(code, 1, sizeof(code), f) == sizeof(code);

	if (f)
		fclose(f);
	if (!ok)
		return true;
	if (!memcmp(code, endbr, 4))
		at += 4;
	if (!memcmp(code + at, nop5, 5) || !memcmp(code + at, nops, 5))
		at += 5;
	return code[at] == 0x55;
}

/* Which open call (from j on, innermost first) a trampoline is the
 * return of.  The kernel's walk reads the return slot of the frame that
 * rbp points to: that of the function holding the chain's address before
 * the trampoline (prev; a return address, ret: its call), or of the
 * nearest caller with a frame when it has none.  None found: j. */
static uint32_t sg_match(struct dat_sgraph *g, const struct sg_req *r, int32_t pid, uint32_t j,
			 uint64_t prev, bool ret)
{
	uint64_t off, start = 0;
	const char *path = prev ? utrace_dat_sample_map(g->d, pid, prev, &off) : NULL;
	uint32_t m;

	/* the runtime is never traced, and its symbols are not saved */
	if (path && !strstr(path, "libutrace"))
		start = sg_func_start(g, pid, prev - ret);
	for (m = j; start && m < r->n && g->starts[r->at + m] != start; m++)
		;
	if (!start || m == r->n)
		return j;
	while (m + 1 < r->n && g->starts[r->at + m] && !sg_framed(g, pid, g->starts[r->at + m]))
		m++;
	return m;
}

/* Sample k with its trampolines replaced and its return addresses. */
static void sg_fix(struct utrace_dat *d, uint64_t k, struct utrace_dat_sample *s)
{
	struct dat_sgraph *g = *dat_samples_sgraph(d, NULL);
	size_t lo = 0, hi = g->nr_reqs;
	const struct sg_req *r;
	uint32_t j = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->reqs[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->nr_reqs || g->reqs[lo].k != k)
		return;
	r = &g->reqs[lo];
	s->graph_rets = g->pool + r->at;
	s->nr_graph_rets = r->n;
	if (!s->nr || s->nr > SG_CHAIN_MAX)
		return;
	memcpy(g->chain, s->chain, s->nr * sizeof(*s->chain));
	for (uint32_t i = s->nr_kernel; i < s->nr && j < r->n; i++) {
		uint32_t m;

		if (!utrace_dat_sample_is_graph_return(d, s->pid, g->chain[i]))
			continue;
		m = sg_match(g, r, s->pid, j, i > s->nr_kernel ? g->chain[i - 1] : 0,
			     i - 1 > s->nr_kernel);
		if (g->pool[r->at + m])
			g->chain[i] = g->pool[r->at + m];
		j = m + 1;
	}
	s->chain = g->chain;
}

static void sg_free(struct dat_sgraph *g)
{
	if (!g)
		return;
	while (g->files) {
		struct sg_file *f = g->files;

		g->files = f->next;
		utrace_symtab_free(f->tab);
		free(f->secs);
		free(f->path);
		free(f);
	}
	free(g->reqs);
	free(g->pool);
	free(g->starts);
	free(g);
}

/* The first pass builds what the fix-up needs, once per file. */
static int sg_build(struct utrace_dat *d, struct dat_sgraph **slot, struct utrace_error *err)
{
	void (*free_fn)(struct dat_sgraph *) = sg_free;
	struct dat_sgraph *g = calloc(1, sizeof(*g));
	uint64_t lost;
	int ret;

	if (!g)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	*slot = g;
	g->d = d;
	dat_samples_sgraph(d, &free_fn);
	ret = dat_samples_each(d, sg_collect, d, &lost, NULL, err);
	if (ret == 0 && g->nr_reqs)
		ret = sg_walk(d, g, err);
	for (size_t i = 0; i < g->nr_threads; i++) {
		free(g->threads[i].ret);
		free(g->threads[i].id);
	}
	free(g->threads);
	g->threads = NULL;
	g->nr_threads = g->cap_threads = 0;
	g->built = true;
	return ret;
}

int utrace_dat_samples_each(struct utrace_dat *d,
			    int (*fn)(void *arg, const struct utrace_dat_sample *s,
				      struct utrace_error *err),
			    void *arg, uint64_t *lost, struct utrace_error *err)
{
	struct dat_sgraph **slot = dat_samples_sgraph(d, NULL);
	int ret = 0;

	if (slot && !*slot)
		ret = sg_build(d, slot, err);
	if (ret < 0) {
		*lost = 0;
		return ret;
	}
	return dat_samples_each(d, fn, arg, lost,
				slot && *slot && (*slot)->built && (*slot)->nr_reqs ? sg_fix : NULL,
				err);
}
