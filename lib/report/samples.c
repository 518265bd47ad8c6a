/* SPDX-License-Identifier: MIT */
/*
 * samples.c - perf report's view of a recording's samples (samples.h).
 *
 * Design: one pass over the samples (lib/tracefile/dat_samples.h).  Each
 * sample's ip is named: the file the process had mapped there and the
 * offset in it (the kernel's MMAP records), that offset turned into the
 * file's virtual address through its sections, then the symbol table's
 * function at that address.  Files are loaded once (a small cache by
 * path).  Samples with the same values of the sort keys add their periods
 * into one entry of a hash table keyed by those values joined into one
 * string; at the end the entries are sorted by period, largest first, and
 * printed with perf's column widths (each the widest of its header and
 * values).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf.h"
#include "lib/elf/symtab.h"
#include "lib/report/samples.h"
#include "lib/tracefile/dat_samples.h"

struct dso {
	char *path;
	const char *base;	   /* file name shown as the Shared Object */
	struct utrace_symtab *tab; /* NULL: no symbols (not an ELF file, [vdso], ...) */
	struct utrace_elf_section *secs;
	size_t nr_secs;
	struct dso *next;
};

struct entry {
	char *key; /* the sort keys' values joined by '\x1f' */
	char *cols[4];
	uint64_t period, samples;
};

struct report {
	struct utrace_dat *d;
	const enum utrace_sample_key *order;
	unsigned n;
	struct dso *dsos;
	struct entry *v; /* open addressing by key */
	size_t cap, nr;
	uint64_t total, samples;
};

int utrace_samples_parse_sort(const char *s, enum utrace_sample_key order[4], unsigned *n,
			      struct utrace_error *err)
{
	static const struct {
		const char *name;
		enum utrace_sample_key key;
	} keys[] = {{"comm", UTRACE_SAMPLE_COMM},
		    {"dso", UTRACE_SAMPLE_DSO},
		    {"sym", UTRACE_SAMPLE_SYM},
		    {"pid", UTRACE_SAMPLE_PID}};
	const char *p = s;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ","), k;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k].name) == len && !strncmp(p, keys[k].name, len))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return utrace_error_set(err, -EINVAL,
						"--sort %s: unknown key '%.*s' at column %zu "
						"(comm, dso, sym, pid)",
						s, (int)len, p, (size_t)(p - s) + 1);
		for (unsigned i = 0; i < *n; i++)
			if (order[i] == keys[k].key)
				return utrace_error_set(err, -EINVAL, "--sort %s: '%s' twice", s,
							keys[k].name);
		order[(*n)++] = keys[k].key;
		p += len + (p[len] == ',');
	}
	if (!*n)
		return utrace_error_set(err, -EINVAL, "--sort: no key (comm, dso, sym, pid)");
	return 0;
}

/* ---- naming addresses ---- */

static void load_sections(struct dso *o, const struct utrace_elf *elf)
{
	size_t n = utrace_elf_section_count(elf);

	o->secs = calloc(n ? n : 1, sizeof(*o->secs));
	for (size_t i = 0; o->secs && i < n; i++) {
		struct utrace_elf_section sec;

		/* SHF_ALLOC and not SHT_NOBITS: bytes of the file in memory */
		if (utrace_elf_section(elf, i, &sec, NULL) == 0 && (sec.flags & 2) && sec.type != 8)
			o->secs[o->nr_secs++] = sec;
	}
}

static struct dso *get_dso(struct report *r, const char *path)
{
	struct utrace_elf *elf;
	const char *slash;
	struct dso *o;

	for (o = r->dsos; o; o = o->next)
		if (!strcmp(o->path, path))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return NULL;
	}
	slash = strrchr(o->path, '/');
	o->base = slash && slash[1] ? slash + 1 : o->path;
	if (path[0] == '/' && utrace_elf_open(path, &elf) == 0) {
		struct utrace_error err;

		load_sections(o, elf);
		if (utrace_symtab_load_elf(elf, &o->tab, &err) < 0)
			o->tab = NULL;
		utrace_elf_close(elf);
	}
	o->next = r->dsos;
	r->dsos = o;
	return o;
}

/* The function at file offset off of o, NULL if none. */
static const char *dso_symbol(const struct dso *o, uint64_t off)
{
	for (size_t i = 0; o->tab && i < o->nr_secs; i++) {
		const struct utrace_elf_section *s = &o->secs[i];

		if (off >= s->offset && off - s->offset < s->size) {
			const struct utrace_sym *sym =
			    utrace_symtab_lookup(o->tab, off - s->offset + s->vaddr, NULL);

			return sym ? sym->name : NULL;
		}
	}
	return NULL;
}

/* The columns of one sample, formatted into bufs. */
static int columns(struct report *r, const struct utrace_dat_sample *s, char bufs[4][512])
{
	uint64_t off = 0;
	const char *path = utrace_dat_sample_map(r->d, s->pid, s->ip, &off);
	const char *comm = utrace_dat_sample_comm(r->d, s->tid);
	struct dso *o = path ? get_dso(r, path) : NULL;
	const char *sym = o ? dso_symbol(o, off) : NULL;

	if (path && !o)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++) {
		switch (r->order[i]) {
		case UTRACE_SAMPLE_COMM:
			if (comm)
				snprintf(bufs[i], 512, "%s", comm);
			else
				snprintf(bufs[i], 512, ":%d", s->tid);
			break;
		case UTRACE_SAMPLE_PID:
			snprintf(bufs[i], 512, "%d:%s", s->pid, comm ? comm : "");
			break;
		case UTRACE_SAMPLE_DSO:
			snprintf(bufs[i], 512, "%s", o ? o->base : "[unknown]");
			break;
		case UTRACE_SAMPLE_SYM:
			if (sym)
				snprintf(bufs[i], 512, "[.] %s", sym);
			else
				snprintf(bufs[i], 512, "[.] %#018" PRIx64, s->ip);
			break;
		}
	}
	return 0;
}

/* ---- entries ---- */

static size_t key_slot(const char *key, size_t cap)
{
	uint64_t h = 14695981039346656037ull;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ull;
	return (size_t)h & (cap - 1);
}

static int grow(struct report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 256;
	struct entry *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap; i++) {
		size_t s;

		if (!r->v[i].key)
			continue;
		for (s = key_slot(r->v[i].key, cap); v[s].key; s = (s + 1) & (cap - 1))
			;
		v[s] = r->v[i];
	}
	free(r->v);
	r->v = v;
	r->cap = cap;
	return 0;
}

static int add_sample(void *arg, const struct utrace_dat_sample *s, struct utrace_error *err)
{
	struct report *r = arg;
	char bufs[4][512], key[2100];
	size_t len = 0, slot;
	uint64_t period = s->period ? s->period : 1;

	if (columns(r, s, bufs) < 0 || ((r->nr + 1) * 2 > r->cap && grow(r) < 0))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->n; i++)
		len += (size_t)snprintf(key + len, sizeof(key) - len, "%s\x1f", bufs[i]);
	for (slot = key_slot(key, r->cap); r->v[slot].key; slot = (slot + 1) & (r->cap - 1))
		if (!strcmp(r->v[slot].key, key))
			break;
	if (!r->v[slot].key) {
		struct entry *e = &r->v[slot];

		if (!(e->key = strdup(key)))
			return utrace_error_set(err, -ENOMEM, "out of memory");
		for (unsigned i = 0; i < r->n; i++)
			if (!(e->cols[i] = strdup(bufs[i])))
				return utrace_error_set(err, -ENOMEM, "out of memory");
		r->nr++;
	}
	r->v[slot].period += period;
	r->v[slot].samples++;
	r->total += period;
	r->samples++;
	return 0;
}

static int by_period(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* ---- printing ---- */

static const char *header_name(enum utrace_sample_key k)
{
	return k == UTRACE_SAMPLE_COMM	? "Command"
	       : k == UTRACE_SAMPLE_DSO ? "Shared Object"
	       : k == UTRACE_SAMPLE_SYM ? "Symbol"
					: "Pid:Command";
}

/* perf's "999 " or "3K": the count, and a unit of a thousand or more */
static void print_count(FILE *out, uint64_t n)
{
	const char *units = " KMG";

	while (n >= 1000 && units[1]) {
		n /= 1000;
		units++;
	}
	fprintf(out, "%" PRIu64 "%c", n, *units);
}

static void print_report(struct report *r, struct entry *v, uint64_t lost, bool user_only,
			 FILE *out)
{
	size_t w[4];

	for (unsigned i = 0; i < r->n; i++) {
		w[i] = strlen(header_name(r->order[i]));
		for (size_t e = 0; e < r->nr; e++)
			if (strlen(v[e].cols[i]) > w[i])
				w[i] = strlen(v[e].cols[i]);
	}
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n# Samples: ", lost);
	print_count(out, r->samples);
	fprintf(out, " of event 'cpu-clock%s'\n# Event count (approx.): %" PRIu64 "\n#\n",
		user_only ? ":u" : "", r->total);
	fputs("# Overhead", out);
	for (unsigned i = 0; i < r->n; i++)
		fprintf(out, "  %-*s", (int)w[i], header_name(r->order[i]));
	fputs("\n# ........", out);
	for (unsigned i = 0; i < r->n; i++) {
		fputs("  ", out);
		for (size_t k = 0; k < w[i]; k++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
	for (size_t e = 0; e < r->nr; e++) {
		fprintf(out, "  %7.2f%%", 100.0 * (double)v[e].period / (double)r->total);
		for (unsigned i = 0; i < r->n; i++)
			if (i + 1 < r->n)
				fprintf(out, "  %-*s", (int)w[i], v[e].cols[i]);
			else
				fprintf(out, "  %s", v[e].cols[i]);
		fputc('\n', out);
	}
	fputs("\n\n", out);
}

static void free_report(struct report *r)
{
	for (size_t i = 0; i < r->cap; i++) {
		free(r->v[i].key);
		for (unsigned k = 0; k < 4; k++)
			free(r->v[i].cols[k]);
	}
	free(r->v);
	while (r->dsos) {
		struct dso *o = r->dsos;

		r->dsos = o->next;
		utrace_symtab_free(o->tab);
		free(o->secs);
		free(o->path);
		free(o);
	}
}

int utrace_samples_report(struct utrace_dat *d, const enum utrace_sample_key *order, unsigned n,
			  FILE *out, struct utrace_error *err)
{
	struct report r = {.d = d, .order = order, .n = n};
	struct entry *v = NULL;
	uint64_t lost = 0;
	bool user_only = false;
	int ret;

	if (!utrace_dat_has_samples(d, NULL, &user_only))
		return utrace_error_set(err, -ENOENT,
					"%s: no samples (record with -F HZ to sample)",
					utrace_dat_path(d));
	ret = utrace_dat_samples_each(d, add_sample, &r, &lost, err);
	if (ret == 0 && r.nr) {
		size_t k = 0;

		v = malloc(r.nr * sizeof(*v));
		if (!v)
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; v && i < r.cap; i++)
			if (r.v[i].key)
				v[k++] = r.v[i];
	}
	if (ret == 0) {
		if (v)
			qsort(v, r.nr, sizeof(*v), by_period);
		print_report(&r, v, lost, user_only, out);
	}
	free(v);
	free_report(&r);
	return ret;
}
