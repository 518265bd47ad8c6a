/* SPDX-License-Identifier: MIT */
/*
 * test_samples.c - the samples of a utrace.dat (lib/tracefile/dat_samples.c)
 * and their report (lib/report/samples.c), on PERF records written by hand
 * as the kernel writes them: a mapping of the test's own executable (so
 * its symbols name the samples), a COMM, a FORK whose child has no map of
 * its own, samples with a call chain and its context marker, a LOST, and
 * damage (a record longer than its block, a sample cut short, a block
 * shorter than its header): the good records are read, the damage is
 * warned about, nothing crashes.
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/export/export_flame.h"
#include "lib/report/callgraph.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"
#include "tests/unit/trace_fixture.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct blk {
	unsigned char b[4096];
	size_t n;
};

static void put(struct blk *k, const void *p, size_t n)
{
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

static void header(struct blk *k, uint32_t type, size_t size)
{
	struct perf_event_header h = {type, 0, (uint16_t)size};

	put(k, &h, sizeof(h));
}

static void rec_mmap(struct blk *k, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		     const char *path)
{
	uint32_t ids[2] = {pid, pid};
	uint64_t v[3] = {addr, len, pgoff};
	size_t plen = (strlen(path) + 8) & ~(size_t)7;
	char padded[256] = {0};

	strcpy(padded, path);
	header(k, PERF_RECORD_MMAP, sizeof(struct perf_event_header) + 8 + 24 + plen);
	put(k, ids, 8);
	put(k, v, 24);
	put(k, padded, plen);
}

static void rec_comm(struct blk *k, uint32_t pid, const char *comm)
{
	uint32_t ids[2] = {pid, pid};
	char c[16] = {0};

	strcpy(c, comm);
	header(k, PERF_RECORD_COMM, sizeof(struct perf_event_header) + 8 + 16);
	put(k, ids, 8);
	put(k, c, 16);
}

static void rec_fork(struct blk *k, uint32_t pid, uint32_t ppid)
{
	uint32_t ids[4] = {pid, ppid, pid, ppid};
	uint64_t t = 0;

	header(k, PERF_RECORD_FORK, sizeof(struct perf_event_header) + 16 + 8);
	put(k, ids, 16);
	put(k, &t, 8);
}

static void rec_sample(struct blk *k, uint32_t pid, uint64_t ip, uint64_t ts, uint64_t caller)
{
	uint64_t v[9] = {ip, (uint64_t)pid << 32 | pid,	  ts, 1,     1000,
			 3,  (uint64_t)PERF_CONTEXT_USER, ip, caller};

	header(k, PERF_RECORD_SAMPLE, sizeof(struct perf_event_header) + sizeof(v));
	put(k, v, sizeof(v));
}

static void rec_lost(struct blk *k, uint64_t n)
{
	uint64_t v[2] = {0, n};

	header(k, PERF_RECORD_LOST, sizeof(struct perf_event_header) + sizeof(v));
	put(k, v, sizeof(v));
}

static void write_perf(struct utrace_dat_writer *w, uint32_t cpu, const struct blk *k)
{
	struct utrace_dat_perf h = {cpu, 0};

	fx_write(w, UTRACE_DAT_PERF, &h, sizeof(h), k->b, k->n);
}

/* The file offset of the test's own function name (through the section
 * that holds its address); 0 if not found. */
static uint64_t file_offset_of(const char *exe, const char *name)
{
	struct utrace_symtab *tab;
	struct utrace_elf_section sec;
	struct utrace_error err;
	struct utrace_elf *elf;
	uint64_t vaddr = 0, off = 0;

	if (utrace_symtab_load(exe, &tab, &err) < 0)
		return 0;
	for (size_t i = 0; i < utrace_symtab_count(tab); i++)
		if (!strcmp(utrace_symtab_get(tab, i)->name, name))
			vaddr = utrace_symtab_get(tab, i)->vaddr;
	utrace_symtab_free(tab);
	if (!vaddr || utrace_elf_open(exe, &elf) < 0)
		return 0;
	for (size_t i = 0; i < utrace_elf_section_count(elf); i++)
		if (utrace_elf_section(elf, i, &sec, NULL) == 0 && (sec.flags & 2) &&
		    vaddr >= sec.vaddr && vaddr - sec.vaddr < sec.size)
			off = vaddr - sec.vaddr + sec.offset;
	utrace_elf_close(elf);
	return off;
}

struct got {
	unsigned n;
	uint64_t period, ips[4];
	uint32_t chain0, chain_nr;
};

static int each(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct got *g = arg;

	if (g->n < 4)
		g->ips[g->n] = s->ip;
	if (g->n == 0) {
		g->chain_nr = s->nr;
		g->chain0 = s->nr ? (uint32_t)s->chain[0] : 0;
	}
	g->n++;
	g->period += s->period;
	return 0;
}

/* The samples as folded stacks (lib/report/samples_fold.c through the
 * flame export): chains caller first; the two whose caller and ip are
 * both in test_samples as one path weighing their two periods; an
 * address without a symbol (0x1234, a caller of 0) is [unknown]. */
static void test_fold(struct utrace_dat *d)
{
	struct utrace_callgraph *g;
	struct utrace_error err;
	char *text = NULL;
	size_t tlen = 0;
	FILE *out;

	if (utrace_samples_callgraph(d, &g, &err) < 0) {
		check(0, "fold: %s", err.msg);
		return;
	}
	out = open_memstream(&text, &tlen);
	check(utrace_export_flame(g, out, UTRACE_FLAME_NS, &err) == 0,
	      "fold: folded stacks written");
	fclose(out);
	check(text && !strcmp(text, "test_samples;test_samples 2000\n"
				    "[unknown];[unknown] 1000\n"
				    "[unknown];test_samples 1000\n"),
	      "fold: chains caller first, weighted by their periods, [unknown] without a symbol");
	if (text && !strstr(text, "test_samples;test_samples 2000\n"))
		printf("%s", text);
	free(text);
	utrace_callgraph_free(g);
}

static void test_samples(void)
{
	const char *path = check_path("samples.dat");
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct utrace_dat_perf_attr attr = {
	    .sample_type = SAMPLE_TYPE, .freq = 999, .flags = UTRACE_DAT_PERF_USER_ONLY};
	struct utrace_dat_writer *w = fx_begin(path, "nop");
	struct blk a = {.n = 0}, b = {.n = 0};
	const uint64_t base = 0x555500000000ull;
	uint64_t f_off, off = 0;
	struct utrace_error err;
	struct utrace_dat *d;
	struct got g = {0};
	uint64_t lost = 0;
	const char *m;
	char *text = NULL;
	size_t tlen = 0;
	FILE *out;

	exe[len > 0 ? len : 0] = 0;
	f_off = file_offset_of(exe, "test_samples");
	check(f_off != 0, "samples: the test's own symbol test_samples is found (%#llx)",
	      (unsigned long long)f_off);
	/* the PERF_ATTR of files made before --call-graph dwarf, shorter */
	fx_write(w, UTRACE_DAT_PERF_ATTR, &attr, offsetof(struct utrace_dat_perf_attr, regs_user),
		 NULL, 0);
	rec_mmap(&a, 100, base, 1ull << 30, 0, exe);
	rec_comm(&a, 100, "prog");
	rec_fork(&a, 101, 100);
	rec_comm(&a, 101, "prog");
	rec_sample(&a, 100, base + f_off + 4, 1000, base + f_off + 8);
	rec_sample(&a, 101, base + f_off + 4, 2000, base + f_off + 8); /* the child: parent's map */
	rec_lost(&a, 5);
	rec_sample(&a, 100, 0x1234, 3000, 0); /* mapped nowhere */
	write_perf(w, 0, &a);
	rec_sample(&b, 100, base + f_off, 4000, 0);
	header(&b, PERF_RECORD_SAMPLE, 200); /* longer than what is left */
	write_perf(w, 1, &b);
	fx_write(w, UTRACE_DAT_PERF, "\1\0\0", 3, NULL, 0); /* shorter than its header */
	fx_end(w);

	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "samples: open: %s", err.msg);
		return;
	}
	check(utrace_dat_has_samples(d, NULL, NULL), "samples: the file has samples");
	check(utrace_dat_samples_each(d, each, &g, &lost, &err) == 0,
	      "samples: every block read (%s)", "ok");
	check(g.n == 4 && g.period == 4000 && lost == 5,
	      "samples: 4 good samples of 1000 ns, 5 lost (got %u, %llu ns, %llu lost)", g.n,
	      (unsigned long long)g.period, (unsigned long long)lost);
	check(g.chain_nr == 2 && g.chain0 == (uint32_t)(base + f_off + 4),
	      "samples: the call chain without its context marker");
	check(utrace_dat_warning_count(d) >= 2, "samples: the damage is warned about (%u warnings)",
	      utrace_dat_warning_count(d));
	m = utrace_dat_sample_map(d, 101, base + f_off + 4, &off);
	check(m && !strcmp(m, exe) && off == f_off + 4,
	      "samples: a child finds its parent's mapping");
	check(!utrace_dat_sample_map(d, 100, 0x1234, &off), "samples: an address mapped nowhere");
	check(utrace_dat_sample_comm(d, 100) && !strcmp(utrace_dat_sample_comm(d, 100), "prog"),
	      "samples: the thread's comm");

	out = open_memstream(&text, &tlen);
	{
		struct utrace_samples_opts o = {.graph = UTRACE_GRAPH_NONE};

		utrace_samples_parse_sort("comm,dso,sym", o.order, &o.n, &err);
		check(utrace_samples_report(d, &o, out, &err) == 0, "samples: report");
	}
	fclose(out);
	check(text && strstr(text, "# Samples: 4  of event 'cpu-clock:u'\n") &&
		  strstr(text, "# Event count (approx.): 4000\n") &&
		  strstr(text, "# Total Lost Samples: 5\n"),
	      "samples: the header counts the samples, their periods and the losses");
	check(text && strstr(text, "[.] test_samples\n") && strstr(text, "  75.00%  prog  "),
	      "samples: three of four samples name the test's function");
	check(text && strstr(text, "  25.00%  prog  ") && strstr(text, "[unknown]") &&
		  strstr(text, "[.] 0x0000000000001234\n"),
	      "samples: the unmapped one in hex in [unknown]");
	if (text && !strstr(text, "[.] test_samples\n"))
		printf("%s", text);
	free(text);
	test_fold(d);
	utrace_dat_close(d);
}

/* A sample whose call chain the kernel could not walk (nr 0). */
static void rec_sample_nochain(struct blk *k, uint32_t pid, uint64_t ip, uint64_t ts)
{
	uint64_t v[6] = {ip, (uint64_t)pid << 32 | pid, ts, 1, 1000, 0};

	header(k, PERF_RECORD_SAMPLE, sizeof(struct perf_event_header) + sizeof(v));
	put(k, v, sizeof(v));
}

/* -g and --children on a file where one sample has a chain and one none:
 * the one without counts in the entry's Self and Children but has no
 * branch in its tree, so the one root is printed with its 50%, as perf
 * prints a root short of the entry's total. */
static void test_graph_nochain(void)
{
	const char *path = check_path("graph.dat");
	char exe[4096], *text = NULL;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct utrace_dat_perf_attr attr = {
	    .sample_type = SAMPLE_TYPE, .freq = 999, .flags = UTRACE_DAT_PERF_USER_ONLY};
	struct utrace_dat_writer *w = fx_begin(path, "nop");
	struct utrace_samples_opts o = {.graph = UTRACE_GRAPH_DEFAULT, .children = true};
	const uint64_t base = 0x555500000000ull;
	struct blk a = {.n = 0};
	struct utrace_error err;
	struct utrace_dat *d;
	uint64_t f_off;
	size_t tlen = 0;
	FILE *out;

	exe[len > 0 ? len : 0] = 0;
	f_off = file_offset_of(exe, "test_samples");
	fx_write(w, UTRACE_DAT_PERF_ATTR, &attr, sizeof(attr), NULL, 0);
	rec_mmap(&a, 100, base, 1ull << 30, 0, exe);
	rec_comm(&a, 100, "prog");
	rec_sample_nochain(&a, 100, base + f_off + 4, 1000); /* first: nothing allocated yet */
	rec_sample(&a, 100, base + f_off + 4, 2000, base + f_off + 8);
	write_perf(w, 0, &a);
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "graph: open: %s", err.msg);
		return;
	}
	utrace_samples_parse_sort("comm,dso,sym", o.order, &o.n, &err);
	out = open_memstream(&text, &tlen);
	check(utrace_samples_report(d, &o, out, &err) == 0, "graph: -g --children report");
	fclose(out);
	check(
	    text && strstr(text, "# Samples: 2  of event 'cpu-clock:u'\n") &&
		strstr(text, "   100.00%   100.00%  prog     test_samples   [.] test_samples\n") &&
		strstr(text, "             --50.00%--test_samples\n"
			     "                       test_samples\n"),
	    "graph: both samples in Self and Children, the one chain's tree at 50%%");
	if (text && !strstr(text, "--50.00%--test_samples\n"))
		printf("%s", text);
	free(text);
	utrace_dat_close(d);
}

struct got_stack {
	unsigned n;
	struct utrace_dat_sample s[3];
	uint64_t regs0[3], word0;
};

static int each_stack(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct got_stack *g = arg;

	(void)err;
	if (g->n == 0 && s->nr_regs == 3 && s->stack_size == 8) {
		memcpy(g->regs0, s->regs, sizeof(g->regs0));
		memcpy(&g->word0, s->stack, 8);
	}
	if (g->n < 3)
		g->s[g->n] = *s;
	g->n++;
	return 0;
}

/* --call-graph dwarf's layout: a kernel part of the chain (between
 * PERF_CONTEXT_KERNEL and PERF_CONTEXT_USER), the user registers of the
 * mask (abi 2, x86_64; abi 0: none), the stack copy (size, bytes,
 * dyn_size); a dyn_size past the copy is damage. */
static void test_stack(void)
{
	const char *path = check_path("stack.dat");
	struct utrace_dat_perf_attr attr = {
	    SAMPLE_TYPE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 999, 0, 0x7, 16, 0};
	struct utrace_dat_writer *w = fx_begin(path, "nop");
	struct blk a = {.n = 0};
	uint64_t v1[18] = {0xffffffff81000010ull,
			   100ull << 32 | 100,
			   1000,
			   0,
			   1000,
			   4,
			   (uint64_t)PERF_CONTEXT_KERNEL,
			   0xffffffff81000010ull,
			   (uint64_t)PERF_CONTEXT_USER,
			   0x401000, /* chain */
			   2,
			   11,
			   22,
			   33, /* regs */
			   16,
			   0xabcdef,
			   0,
			   8}; /* stack */
	/* abi NONE, stack size 0 */
	uint64_t v2[8] = {0x401000, 100ull << 32 | 100, 2000, 0, 1000, 0, 0, 0};
	/* dyn_size 24, past the 16 bytes copied */
	uint64_t v3[14] = {0x401000, 100ull << 32 | 100, 3000, 0, 1000, 0, 2, 1, 2, 3, 16, 0, 0,
			   24};
	struct utrace_error err;
	struct utrace_dat *d;
	struct got_stack g = {0};
	uint64_t lost;

	fx_write(w, UTRACE_DAT_PERF_ATTR, &attr, sizeof(attr), NULL, 0);
	header(&a, PERF_RECORD_SAMPLE, sizeof(struct perf_event_header) + sizeof(v1));
	put(&a, v1, sizeof(v1));
	header(&a, PERF_RECORD_SAMPLE, sizeof(struct perf_event_header) + sizeof(v2));
	put(&a, v2, sizeof(v2));
	header(&a, PERF_RECORD_SAMPLE, sizeof(struct perf_event_header) + sizeof(v3));
	put(&a, v3, sizeof(v3));
	write_perf(w, 0, &a);
	fx_end(w);
	if (utrace_dat_open(path, &d, &err) < 0) {
		check(0, "stack: open: %s", err.msg);
		return;
	}
	check(utrace_dat_samples_have_stacks(d) && utrace_dat_samples_have_chains(d),
	      "stack: the file says its samples carry stack copies");
	check(utrace_dat_samples_each(d, each_stack, &g, &lost, &err) == 0, "stack: read");
	check(g.n == 2, "stack: two good samples, the damaged one skipped (got %u)", g.n);
	check(g.s[0].nr == 2 && g.s[0].nr_kernel == 1,
	      "stack: the chain's kernel part is told apart (nr %u, kernel %u)", g.s[0].nr,
	      g.s[0].nr_kernel);
	check(g.regs0[0] == 11 && g.regs0[2] == 33 && g.s[0].regs_mask == 7,
	      "stack: the registers of the mask, in order");
	check(g.s[0].stack_size == 8 && g.word0 == 0xabcdef,
	      "stack: the copy, its dyn_size the part to use");
	check(g.n > 1 && g.s[1].nr_regs == 0 && g.s[1].stack_size == 0,
	      "stack: abi NONE and an empty copy: no registers, no stack");
	check(utrace_dat_warning_count(d) >= 1, "stack: the damage is warned about");
	utrace_dat_close(d);
}

int main(void)
{
	check_begin("samples");
	test_samples();
	test_graph_nochain();
	test_stack();
	return check_end();
}
