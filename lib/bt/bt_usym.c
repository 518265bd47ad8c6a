/* SPDX-License-Identifier: MIT */
/*
 * bt_usym.c - ustack and usym() of replayed hits, named as bpftrace 0.17
 * names them (BPFtrace::get_stack and resolve_usym):
 *
 *   bpftrace mode    "parse+0", "main+21", or "0x7f1c3589924a"
 *   perf mode        "\t555555555149 parse+0 (/tmp/prog)", or
 *                    "\t7f1c3589924a 0x7f1c3589924a ([unknown])"
 *
 * The stack is the one the kernel's frame-pointer walk gives a uprobe
 * (perf_callchain_user): the probed address, then the return address of
 * each frame of the %rbp chain, which the runtime captures the same way
 * at the in-process probe (stacktrace.c, rt_stack_regs).  A stack
 * becomes an id, equal stacks equal ids, so maps key on it as bpftrace's
 * stack ids; its lines are made when it is first seen, while the
 * recording that names its addresses is open.  Names come from the
 * recording's symbols (the objects the process had mapped); where those
 * only know a function as sub_ADDR (a stripped library), from the
 * separate debug file of its build id, as bcc looks it up
 * (/usr/lib/debug/.build-id/NN/REST.debug).
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/bt/bt_usym.h"
#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/tracefile/dat_reader.h"

struct bt_stack {
	unsigned mode, n;
	uint64_t *pc;
	char **lines;
};

struct bt_debug {
	char *path;
	struct utrace_symtab *tab; /* NULL: no debug file */
};

/* A file mapped by a live process: its symbols (bt_usym_hit_live). */
struct bt_live {
	char *path;
	struct utrace_symtab *tab; /* NULL: none */
	bool exec;		   /* ET_EXEC: its addresses are its vaddrs */
};

struct bt_usym {
	struct utrace_dat *d;
	int pid; /* without d: the live process whose maps name addresses */
	struct bt_live *live;
	size_t nlive, caplive;
	uint32_t image;
	const uint64_t *pc;
	unsigned npc;
	struct bt_stack *stacks;
	size_t nstacks, cap;
	struct bt_debug *dbg;
	size_t ndbg, capdbg;
};

int bt_usym_new(struct bt_usym **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void bt_usym_free(struct bt_usym *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nstacks; i++) {
		for (unsigned k = 0; k < u->stacks[i].n; k++)
			free(u->stacks[i].lines[k]);
		free(u->stacks[i].lines);
		free(u->stacks[i].pc);
	}
	for (size_t i = 0; i < u->ndbg; i++) {
		free(u->dbg[i].path);
		if (u->dbg[i].tab)
			utrace_symtab_free(u->dbg[i].tab);
	}
	for (size_t i = 0; i < u->nlive; i++) {
		free(u->live[i].path);
		if (u->live[i].tab)
			utrace_symtab_free(u->live[i].tab);
	}
	free(u->live);
	free(u->stacks);
	free(u->dbg);
	free(u);
}

void bt_usym_hit(struct bt_usym *u, struct utrace_dat *d, uint32_t image, const uint64_t *pc,
		 unsigned n)
{
	u->d = d;
	u->pid = 0;
	u->image = image;
	u->pc = pc;
	u->npc = pc ? n : 0;
}

void bt_usym_hit_live(struct bt_usym *u, int pid, const uint64_t *pc, unsigned n)
{
	bt_usym_hit(u, NULL, 0, pc, n);
	u->pid = pid;
}

/* The symbols of path's debug file (by its build id), NULL if none. */
static const struct utrace_symtab *debug_syms(struct bt_usym *u, const char *path)
{
	struct utrace_elf *elf, *dbg;
	struct utrace_error err = {0};

	for (size_t i = 0; i < u->ndbg; i++)
		if (!strcmp(u->dbg[i].path, path))
			return u->dbg[i].tab;
	if (UTRACE_GROW(u->dbg, u->capdbg, u->ndbg + 1) < 0)
		return NULL;
	u->dbg[u->ndbg] = (struct bt_debug){strdup(path), NULL};
	if (!u->dbg[u->ndbg].path)
		return NULL;
	if (utrace_elf_open(path, &elf) == 0) {
		if (utrace_elf_open_debug(elf, &dbg) == 0) {
			if (utrace_symtab_load_elf(dbg, &u->dbg[u->ndbg].tab, &err) < 0)
				u->dbg[u->ndbg].tab = NULL;
			utrace_elf_close(dbg);
		}
		utrace_elf_close(elf);
	}
	return u->dbg[u->ndbg++].tab;
}

/* The symbols of a file a live process maps, loaded once. */
static const struct bt_live *live_file(struct bt_usym *u, const char *path)
{
	struct utrace_error err = {0};
	struct utrace_elf *elf;
	struct bt_live *l;

	for (size_t i = 0; i < u->nlive; i++)
		if (!strcmp(u->live[i].path, path))
			return &u->live[i];
	if (UTRACE_GROW(u->live, u->caplive, u->nlive + 1) < 0)
		return NULL;
	l = &u->live[u->nlive];
	*l = (struct bt_live){strdup(path), NULL, false};
	if (!l->path)
		return NULL;
	if (utrace_elf_open(path, &elf) == 0) {
		l->exec = utrace_elf_type(elf) == ET_EXEC;
		if (utrace_symtab_load_elf(elf, &l->tab, &err) < 0)
			l->tab = NULL;
		utrace_elf_close(elf);
	}
	return &u->live[u->nlive++];
}

/* The file of the live process's mapping holding addr, and addr as its
 * vaddr; NULL if none (the process has gone: bpftrace's 0x... then). */
static const struct bt_live *live_map(struct bt_usym *u, uint64_t addr, uint64_t *vaddr)
{
	char path[64], line[4096 + 128];
	const struct bt_live *l = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", u->pid);
	if (!(f = fopen(path, "r")))
		return NULL;
	while (!l && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, offset;
		char *file = strchr(line, '/');

		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &offset) < 3 || addr < start ||
		    addr >= end || !file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if ((l = live_file(u, file)))
			*vaddr = l->exec ? addr : addr - start + offset;
	}
	fclose(f);
	return l;
}

/* addr's symbol in the live process (bt_usym_hit_live). */
static bool resolve_live(struct bt_usym *u, uint64_t addr, const char **name, uint64_t *off,
			 const char **module)
{
	uint64_t vaddr = 0;
	const struct bt_live *l = live_map(u, addr, &vaddr);
	const struct utrace_sym *s = l && l->tab ? utrace_symtab_lookup(l->tab, vaddr, off) : NULL;

	if (!l)
		return false;
	*module = l->path;
	*name = s ? s->name : NULL;
	if (!s || !strncmp(s->name, "sub_", 4)) {
		const struct utrace_symtab *tab = debug_syms(u, l->path);
		const struct utrace_sym *ds = tab ? utrace_symtab_lookup(tab, vaddr, off) : NULL;

		if (ds)
			*name = ds->name;
	}
	return *name != NULL;
}

/* addr's symbol, its offset in it and its object's file; false if none. */
static bool resolve(struct bt_usym *u, uint64_t addr, const char **name, uint64_t *off,
		    const char **module)
{
	const char *path = NULL;
	uint64_t vaddr = 0;

	if (!u->d)
		return u->pid > 0 && resolve_live(u, addr, name, off, module);
	*name = utrace_dat_addr_name(u->d, u->image, addr, off);
	if (utrace_dat_addr_object(u->d, u->image, addr, &path, &vaddr) < 0)
		path = NULL;
	*module = path ? path : "";
	if (path && (!*name || !strncmp(*name, "sub_", 4))) {
		const struct utrace_symtab *tab = debug_syms(u, path);
		const struct utrace_sym *s = tab ? utrace_symtab_lookup(tab, vaddr, off) : NULL;

		if (s)
			*name = s->name;
	}
	return *name != NULL;
}

static char *frame_text(struct bt_usym *u, uint64_t addr, unsigned mode)
{
	const char *name, *module;
	uint64_t off;
	char *s = NULL;
	int n;

	if (resolve(u, addr, &name, &off, &module))
		n = mode ? asprintf(&s, "\t%" PRIx64 " %s+%" PRIu64 " (%s)", addr, name, off, module)
			 : asprintf(&s, "%s+%" PRIu64, name, off);
	else
		n = mode ? asprintf(&s, "\t%" PRIx64 " 0x%" PRIx64 " ([unknown])", addr, addr)
			 : asprintf(&s, "0x%" PRIx64, addr);
	return n < 0 ? NULL : s;
}

/* A new stack of the hit's first n frames, its lines made. */
static int64_t stack_add(struct bt_usym *u, unsigned n, unsigned mode)
{
	struct bt_stack *st;

	if (UTRACE_GROW(u->stacks, u->cap, u->nstacks + 1) < 0)
		return -1;
	st = &u->stacks[u->nstacks];
	*st = (struct bt_stack){mode, n, malloc((n + 1) * sizeof(uint64_t)),
				calloc(n + 1, sizeof(char *))};
	if (!st->pc || !st->lines) {
		free(st->pc);
		free(st->lines);
		return -1;
	}
	memcpy(st->pc, u->pc, n * sizeof(uint64_t));
	for (unsigned i = 0; i < n; i++)
		if (!(st->lines[i] = frame_text(u, u->pc[i], mode))) {
			st->n = i;
			return -1;
		}
	return (int64_t)u->nstacks++;
}

int64_t bt_usym_stack(struct bt_usym *u, unsigned limit, unsigned mode)
{
	unsigned n = 0;

	while (n < u->npc && n < limit && u->pc[n]) /* bpftrace stops at a 0 */
		n++;
	for (size_t i = 0; i < u->nstacks; i++) {
		const struct bt_stack *st = &u->stacks[i];

		if (st->mode == mode && st->n == n && !memcmp(st->pc, u->pc, n * sizeof(uint64_t)))
			return (int64_t)i;
	}
	return stack_add(u, n, mode);
}

void bt_usym_name(struct bt_usym *u, uint64_t addr, char *out, size_t size)
{
	const char *name, *module;
	uint64_t off;

	if (resolve(u, addr, &name, &off, &module))
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "0x%" PRIx64, addr);
}

const char *const *bt_usym_lines(const struct bt_usym *u, int64_t id, size_t *n)
{
	if (id < 0 || (size_t)id >= u->nstacks) {
		*n = 0;
		return NULL;
	}
	*n = u->stacks[id].n;
	return (const char *const *)u->stacks[id].lines;
}
