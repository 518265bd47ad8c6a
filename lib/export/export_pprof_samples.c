/* SPDX-License-Identifier: MIT */
/*
 * export_pprof_samples.c - a recording's cpu-clock samples as a pprof
 * CPU profile (lib/export/export_pprof.h, utrace_export_pprof_samples).
 *
 * Design: pprof counts a function's samples itself, flat where it is the
 * leaf of a sample's stack and cum wherever it is on it, so each distinct
 * stack is one pprof sample valued [samples, ns of CPU], as Go's own CPU
 * profiles are, and never a node of the call graph (whose callers would
 * count their callees' samples again).  A stack is its locations, leaf
 * first: one per distinct (mapping, address), the address of a caller
 * being its return address minus one (inside the call, as perf and
 * addr2line name callers).  An address is the file's (its ELF virtual
 * address, as perf report and addr2line give it) in a mapping per file
 * that spans the whole space from 0: `go tool pprof` compares addresses
 * with the file's symbols as they are (no load bias), and google/pprof
 * takes such a mapping as already relocated, so `-disasm` finds the
 * instructions in both; the same file in several processes is one
 * mapping.  A file utrace cannot read keeps the mapping the kernel
 * reported and the runtime addresses.  Each location carries its
 * function and source line from the file's DWARF (lib/probes/dwarf.h) so
 * that `pprof -list` shows the source without symbolizing again.  Functions are named as `utrace
 * report --samples` names them; an address no symbol holds keeps its
 * location without a line (pprof prints it in hex).  The tables are
 * hashes of small ids; the message is built in memory and gzipped as
 * export_pprof.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/elf/elf.h"
#include "lib/export/export_pprof.h"
#include "lib/export/pprof_internal.h"
#include "lib/probes/dwarf.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

struct pmap {
	uint64_t file;			 /* the file's string id (the frames' paths do not last) */
	uint64_t start, len, pgoff;	 /* the first process mapping seen */
	struct utrace_elf_section *secs; /* the file's, to turn offsets into vaddrs */
	bool rel; /* the addresses are the file's (secs known): one per file */
	size_t nr_secs;
	struct utrace_dwarf *dw; /* NULL: no DWARF */
	bool lines;		 /* some location of it has a line */
};

struct ploc {
	uint64_t map, addr; /* map: index + 1 in maps, 0 for none */
	uint64_t func;	    /* function id, 0: none */
	int line;
};

struct pfunc {
	uint64_t name, file; /* string ids */
	int start_line;
};

struct psamples {
	struct pprof_strings strs;
	struct pmap *maps;
	size_t nr_maps, cap_maps;
	struct ploc *locs;
	size_t nr_locs, cap_locs;
	struct pprof_ids loc_ids; /* (map, addr) -> location id */
	struct pfunc *funcs;
	size_t nr_funcs, cap_funcs;
	struct pprof_ids func_ids; /* (name, file) -> function id */
	uint64_t *stack;	   /* the stacks' location ids, one after another */
	size_t nr_stack, cap_stack;
	struct pprof_stack *stacks; /* where each starts, its values */
	size_t nr_stacks, cap_stacks;
	struct pprof_ids stack_ids; /* (hash, index) -> stack index + 1 */
	uint64_t *one;		    /* the stack being looked up */
	size_t cap_one;
};

/* ---- mappings ---- */

static void load_file(struct pmap *m, const char *path)
{
	struct utrace_elf *elf;
	struct utrace_error err;
	size_t n;

	if (path[0] != '/' || utrace_elf_open(path, &elf) < 0)
		return;
	n = utrace_elf_section_count(elf);
	m->secs = calloc(n ? n : 1, sizeof(*m->secs));
	for (size_t i = 0; m->secs && i < n; i++) {
		struct utrace_elf_section sec;

		/* SHF_ALLOC and not SHT_NOBITS: bytes of the file in memory */
		if (utrace_elf_section(elf, i, &sec, NULL) == 0 && (sec.flags & 2) && sec.type != 8)
			m->secs[m->nr_secs++] = sec;
	}
	utrace_elf_close(elf);
	if (utrace_dwarf_open(path, &m->dw, &err) < 0)
		m->dw = NULL;
}

/* The mapping of frame v (index + 1), 0 for none; -ENOMEM. */
static int64_t map_of(struct psamples *ps, const struct utrace_sample_frame *v)
{
	int64_t file = v->path ? pprof_string(&ps->strs, v->path) : 0;
	struct pmap *m;

	if (!v->path)
		return 0;
	if (file < 0)
		return -ENOMEM;
	for (size_t i = 0; i < ps->nr_maps; i++)
		if (ps->maps[i].file == (uint64_t)file &&
		    (ps->maps[i].rel || ps->maps[i].start == v->map_start))
			return (int64_t)i + 1;
	if (UTRACE_GROW(ps->maps, ps->cap_maps, ps->nr_maps + 1) < 0)
		return -ENOMEM;
	m = &ps->maps[ps->nr_maps++];
	*m = (struct pmap){.file = (uint64_t)file,
			   .start = v->map_start,
			   .len = v->map_len,
			   .pgoff = v->map_pgoff};
	if (!v->kernel)
		load_file(m, v->path);
	m->rel = m->nr_secs > 0;
	return (int64_t)ps->nr_maps;
}

/* The file's virtual address of ip (of frame v) in m, 0 if no section
 * holds it. */
static uint64_t file_vaddr(const struct pmap *m, const struct utrace_sample_frame *v, uint64_t ip)
{
	uint64_t off = ip - v->map_start + v->map_pgoff;

	for (size_t i = 0; i < m->nr_secs; i++) {
		const struct utrace_elf_section *s = &m->secs[i];

		if (off >= s->offset && off - s->offset < s->size)
			return off - s->offset + s->vaddr;
	}
	return 0;
}

/* ---- functions and locations ---- */

/* The id of the function name (declared in file at start_line); 0 when
 * out of memory. */
static uint64_t func_id(struct psamples *ps, const char *name, const char *file, int start_line)
{
	int64_t n = pprof_string(&ps->strs, name), f = pprof_string(&ps->strs, file);
	uint64_t id;

	if (n < 0 || f < 0)
		return 0;
	if ((id = pprof_ids_find(&ps->func_ids, (uint64_t)n, (uint64_t)f)))
		return id;
	if (UTRACE_GROW(ps->funcs, ps->cap_funcs, ps->nr_funcs + 1) < 0)
		return 0;
	ps->funcs[ps->nr_funcs] = (struct pfunc){(uint64_t)n, (uint64_t)f, start_line};
	id = ++ps->nr_funcs;
	return pprof_ids_add(&ps->func_ids, (uint64_t)n, (uint64_t)f, id) < 0 ? 0 : id;
}

/* Names a new location: its function and line from the DWARF where it
 * has them, else the frame's symbol without a line. */
static int name_loc(struct psamples *ps, struct ploc *l, const char *name)
{
	struct pmap *m = l->map ? &ps->maps[l->map - 1] : NULL;
	struct utrace_dwarf_src src;

	if (!name)
		return 0;
	if (m && m->rel && m->dw && utrace_dwarf_addr_src(m->dw, l->addr, &src) == 0) {
		l->line = src.line;
		m->lines = true;
		l->func = func_id(ps, name, src.func_file, src.func_line);
	} else {
		l->func = func_id(ps, name, "", 0);
	}
	return l->func ? 0 : -ENOMEM;
}

/* The location id of frame v; 0 when out of memory. */
static uint64_t loc_id(struct psamples *ps, const struct utrace_sample_frame *v)
{
	int64_t map = map_of(ps, v);
	uint64_t addr = !v->at && v->ip ? v->ip - 1 : v->ip, id;
	struct ploc *l;

	if (map < 0)
		return 0;
	if (map && ps->maps[map - 1].rel && file_vaddr(&ps->maps[map - 1], v, addr))
		addr = file_vaddr(&ps->maps[map - 1], v, addr);
	if ((id = pprof_ids_find(&ps->loc_ids, (uint64_t)map, addr)))
		return id;
	if (UTRACE_GROW(ps->locs, ps->cap_locs, ps->nr_locs + 1) < 0)
		return 0;
	l = &ps->locs[ps->nr_locs];
	*l = (struct ploc){(uint64_t)map, addr, 0, 0};
	if (name_loc(ps, l, v->name) < 0)
		return 0;
	id = ++ps->nr_locs;
	return pprof_ids_add(&ps->loc_ids, (uint64_t)map, addr, id) < 0 ? 0 : id;
}

/* ---- stacks ---- */

static uint64_t stack_hash(const uint64_t *v, uint32_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

/* The stack of the n location ids in ps->one, added if new; NULL when
 * out of memory. */
static struct pprof_stack *stack_of(struct psamples *ps, uint32_t n)
{
	uint64_t h = stack_hash(ps->one, n), k, idx;
	struct pprof_stack *st;

	for (k = 0; (idx = pprof_ids_find(&ps->stack_ids, h, k)); k++) {
		st = &ps->stacks[idx - 1];
		if (st->n == n && !memcmp(ps->stack + st->first, ps->one, n * sizeof(*ps->one)))
			return st;
	}
	if (UTRACE_GROW(ps->stacks, ps->cap_stacks, ps->nr_stacks + 1) < 0 ||
	    UTRACE_GROW(ps->stack, ps->cap_stack, ps->nr_stack + n) < 0 ||
	    pprof_ids_add(&ps->stack_ids, h, k, ps->nr_stacks + 1) < 0)
		return NULL;
	memcpy(ps->stack + ps->nr_stack, ps->one, n * sizeof(*ps->one));
	st = &ps->stacks[ps->nr_stacks++];
	*st = (struct pprof_stack){ps->nr_stack, n, 0, 0};
	ps->nr_stack += n;
	return st;
}

static int add_stack(void *arg, const struct utrace_dat_sample *s,
		     const struct utrace_sample_frame *v, uint32_t n, struct utrace_error *err)
{
	struct psamples *ps = arg;
	struct pprof_stack *st;

	if (UTRACE_GROW(ps->one, ps->cap_one, n) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		if (!(ps->one[i] = loc_id(ps, &v[i])))
			return utrace_error_set(err, -ENOMEM, "out of memory");
	if (!(st = stack_of(ps, n)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	st->samples++;
	st->ns += s->period ? s->period : 1;
	return 0;
}

/* ---- the message ---- */

/* Which of pprof's mappings comes first: the first is the one pprof
 * calls the program (File:), so programs, then libraries, then the
 * kernel's and other "[...]" names. */
static int map_rank(const struct psamples *ps, const struct pmap *m)
{
	const char *path = ps->strs.s[m->file];

	return path[0] == '[' ? 2 : strstr(path, ".so") ? 1 : 0;
}

static void put_mapping(const struct pmap *m, uint64_t id, struct utrace_pb *b)
{
	utrace_pb_begin(b, PROF_MAPPING);
	utrace_pb_uint(b, MAP_ID, id);
	if (!m->rel) {
		utrace_pb_uint(b, MAP_MEMORY_START, m->start);
		utrace_pb_uint(b, MAP_MEMORY_LIMIT, m->start + m->len);
		utrace_pb_uint(b, MAP_FILE_OFFSET, m->pgoff);
	} else { /* the whole space at 0: addresses already the file's */
		utrace_pb_uint(b, MAP_MEMORY_LIMIT, UINT64_MAX);
	}
	utrace_pb_uint(b, MAP_FILENAME, m->file);
	utrace_pb_uint(b, MAP_HAS_FUNCTIONS, 1);
	utrace_pb_uint(b, MAP_HAS_FILENAMES, m->lines);
	utrace_pb_uint(b, MAP_HAS_LINE_NUMBERS, m->lines);
	utrace_pb_end(b);
}

static void put_mappings(struct psamples *ps, struct utrace_pb *b)
{
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < ps->nr_maps; i++)
			if (map_rank(ps, &ps->maps[i]) == rank)
				put_mapping(&ps->maps[i], i + 1, b);
}

/* Heaviest first, then in the order first sampled. */
static int stack_cmp(const void *a, const void *b)
{
	const struct pprof_stack *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * The samples heaviest first: pprof -disasm turns addresses into the
 * file's with the base it computes from the first address it is given
 * for a mapping, the first node of its graph (pprof's binutils
 * computeBase), and fails for the whole file if that address is in
 * another mapping; heaviest first, that node is the hottest leaf.
 */
static void put_samples(struct psamples *ps, struct utrace_pb *b)
{
	qsort(ps->stacks, ps->nr_stacks, sizeof(*ps->stacks), stack_cmp);
	for (size_t i = 0; i < ps->nr_stacks; i++)
		pprof_put_sample(b, ps->stack + ps->stacks[i].first, &ps->stacks[i]);
}

static void put_tables(struct psamples *ps, struct utrace_pb *b)
{
	put_samples(ps, b);
	put_mappings(ps, b);
	for (size_t i = 0; i < ps->nr_locs; i++) {
		const struct ploc *l = &ps->locs[i];

		utrace_pb_begin(b, PROF_LOCATION);
		utrace_pb_uint(b, LOC_ID, i + 1);
		utrace_pb_uint(b, LOC_MAPPING_ID, l->map);
		utrace_pb_uint(b, LOC_ADDRESS, l->addr);
		if (l->func) {
			utrace_pb_begin(b, LOC_LINE);
			utrace_pb_uint(b, LINE_FUNCTION_ID, l->func);
			utrace_pb_int(b, LINE_LINE, l->line);
			utrace_pb_end(b);
		}
		utrace_pb_end(b);
	}
	for (size_t i = 0; i < ps->nr_funcs; i++) {
		const struct pfunc *f = &ps->funcs[i];

		utrace_pb_begin(b, PROF_FUNCTION);
		utrace_pb_uint(b, FUNC_ID, i + 1);
		utrace_pb_uint(b, FUNC_NAME, f->name);
		utrace_pb_uint(b, FUNC_SYSTEM_NAME, f->name);
		utrace_pb_uint(b, FUNC_FILENAME, f->file);
		utrace_pb_int(b, FUNC_START_LINE, f->start_line);
		utrace_pb_end(b);
	}
}

static void psamples_free(struct psamples *ps)
{
	for (size_t i = 0; i < ps->nr_maps; i++) {
		free(ps->maps[i].secs);
		utrace_dwarf_close(ps->maps[i].dw);
	}
	free(ps->maps);
	free(ps->locs);
	free(ps->funcs);
	free(ps->stack);
	free(ps->stacks);
	free(ps->one);
	pprof_ids_free(&ps->loc_ids);
	pprof_ids_free(&ps->func_ids);
	pprof_ids_free(&ps->stack_ids);
	pprof_strings_free(&ps->strs);
}

int utrace_export_pprof_samples(struct utrace_dat *d, FILE *out, struct utrace_error *err)
{
	struct psamples ps = {0};
	struct utrace_pb pb = {0};
	uint32_t freq = 0;
	int ret;

	pprof_strings_init(&ps.strs);
	ret = utrace_samples_stacks(d, add_stack, &ps, err);
	if (ret == 0) {
		int64_t samples = pprof_string(&ps.strs, "samples"),
			count = pprof_string(&ps.strs, "count"),
			cpu = pprof_string(&ps.strs, "cpu"),
			ns = pprof_string(&ps.strs, "nanoseconds");

		pb.oom = samples < 0 || count < 0 || cpu < 0 || ns < 0;

		utrace_dat_has_samples(d, &freq, NULL);
		pprof_value_type(&pb, PROF_SAMPLE_TYPE, (uint64_t)samples, (uint64_t)count);
		pprof_value_type(&pb, PROF_SAMPLE_TYPE, (uint64_t)cpu, (uint64_t)ns);
		put_tables(&ps, &pb);
		pprof_value_type(&pb, PROF_PERIOD_TYPE, (uint64_t)cpu, (uint64_t)ns);
		utrace_pb_uint(&pb, PROF_PERIOD, freq ? 1000000000ull / freq : 1);
		utrace_pb_uint(&pb, PROF_DEFAULT_SAMPLE_TYPE, (uint64_t)cpu);
		ret = pprof_finish(&pb, &ps.strs, out, err);
	}
	utrace_pb_free(&pb);
	psamples_free(&ps);
	return ret;
}
