/* SPDX-License-Identifier: MIT */
/*
 * ksyms.c - the kernel symbols a recording's samples need (ksyms.h).
 *
 * Design: the addresses go into an open-addressing set as the buffers
 * are drained (a few thousand distinct ones for a long recording); at the
 * end they are sorted and /proc/kallsyms (some 200k lines, sorted by
 * address on a running kernel, but not promised: sorted here) is read
 * once, its text symbols into a table, and the last symbol starting at
 * or below each address names it (a binary search).  Only
 * those symbols are kept, so the file holds kilobytes, not kallsyms' 10
 * MB.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/sample/ksyms.h"

struct utrace_ksyms {
	uint64_t *set; /* 0: a free slot (no kernel address is 0) */
	size_t cap, nr;
};

struct best {
	uint64_t start; /* of the symbol naming the address so far, 0: none */
	char name[128];
};

struct utrace_ksyms *utrace_ksyms_new(void)
{
	return calloc(1, sizeof(struct utrace_ksyms));
}

void utrace_ksyms_free(struct utrace_ksyms *k)
{
	if (k)
		free(k->set);
	free(k);
}

static size_t slot(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int put(struct utrace_ksyms *k, uint64_t a)
{
	size_t s;

	if ((k->nr + 1) * 2 > k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < k->cap; i++)
			if (k->set[i]) {
				for (s = slot(k->set[i], cap); v[s]; s = (s + 1) & (cap - 1))
					;
				v[s] = k->set[i];
			}
		free(k->set);
		k->set = v;
		k->cap = cap;
	}
	for (s = slot(a, k->cap); k->set[s]; s = (s + 1) & (k->cap - 1))
		if (k->set[s] == a)
			return 0;
	k->set[s] = a;
	k->nr++;
	return 0;
}

/* A kernel address: the upper half of the address space (x86_64,
 * arm64 and the others perf names [kernel.kallsyms] for). */
static int is_kernel(uint64_t a)
{
	return (int64_t)a < 0;
}

static int add_sample(struct utrace_ksyms *k, uint64_t t, const unsigned char *p, size_t size)
{
	size_t at = sizeof(struct perf_event_header);
	uint64_t v, nr = 0;
	int ret = 0;

	if ((t & PERF_SAMPLE_IP) && at + 8 <= size) {
		memcpy(&v, p + at, 8);
		if (is_kernel(v))
			ret = put(k, v);
		at += 8;
	}
	at += 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_CPU) +
		   !!(t & PERF_SAMPLE_PERIOD));
	if (!(t & PERF_SAMPLE_CALLCHAIN) || at + 8 > size)
		return ret;
	memcpy(&nr, p + at, 8);
	at += 8;
	for (uint64_t i = 0; ret == 0 && i < nr && at + 8 <= size; i++, at += 8) {
		memcpy(&v, p + at, 8);
		if (v < (uint64_t)PERF_CONTEXT_MAX && is_kernel(v))
			ret = put(k, v);
	}
	return ret;
}

int utrace_ksyms_add(struct utrace_ksyms *k, uint64_t sample_type, const void *records, size_t len)
{
	const unsigned char *p = records;
	size_t off = 0;
	int ret = 0;

	while (ret == 0 && off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			ret = add_sample(k, sample_type, p + off, h.size);
		off += h.size;
	}
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct ksym {
	uint64_t start;
	size_t name; /* offset in the names */
};

struct utrace_kallsyms {
	struct ksym *v;
	size_t nr, cap;
	char *names;
	size_t used, room;
};

static int cmp_ksym(const void *a, const void *b)
{
	return cmp_u64(&((const struct ksym *)a)->start, &((const struct ksym *)b)->start);
}

static int table_add(struct utrace_kallsyms *t, uint64_t start, const char *name)
{
	size_t l = strlen(name) + 1;

	if (UTRACE_GROW(t->v, t->cap, t->nr + 1) < 0 ||
	    UTRACE_GROW(t->names, t->room, t->used + l) < 0)
		return -ENOMEM;
	memcpy(t->names + t->used, name, l);
	t->v[t->nr++] = (struct ksym){start, t->used};
	t->used += l;
	return 0;
}

/* kallsyms' text symbols, sorted by address; 0 if every address is
 * hidden (zero), 1 if read. */
static int read_kallsyms(const char *path, struct utrace_kallsyms *t, struct utrace_error *err)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int any = 0, ret = 0;

	if (!f)
		return utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	/* "ffffffff81000000 T _stext\t[module]": by hand, sscanf is the
	 * cost of the whole pass over 200k lines */
	while (ret == 0 && fgets(line, sizeof(line), f)) {
		char *end, *name, type;
		unsigned long long start = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		any |= start != 0;
		type = end[1];
		name = end + 3;
		name[strcspn(name, " \t\n")] = 0;
		if (type == 't' || type == 'T' || type == 'w' || type == 'W')
			ret = table_add(t, start, name);
	}
	fclose(f);
	if (ret < 0)
		return utrace_error_set(err, ret, "out of memory");
	qsort(t->v, t->nr, sizeof(*t->v), cmp_ksym);
	return any;
}

const char *utrace_kallsyms_find(const struct utrace_kallsyms *t, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*start = t->v[lo - 1].start;
	return t->names + t->v[lo - 1].name;
}

int utrace_kallsyms_load(const char *path, struct utrace_kallsyms **out, struct utrace_error *err)
{
	struct utrace_kallsyms *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = read_kallsyms(path ? path : "/proc/kallsyms", t, err);
	if (ret <= 0) {
		utrace_kallsyms_free(t);
		return ret;
	}
	*out = t;
	return 1;
}

void utrace_kallsyms_free(struct utrace_kallsyms *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->names);
	free(t);
}

/* Each address's symbol: the last starting at or below it. */
static void name_all(const struct utrace_kallsyms *t, const uint64_t *a, struct best *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t start;
		const char *name = utrace_kallsyms_find(t, a[i], &start);

		if (name) {
			b[i].start = start;
			snprintf(b[i].name, sizeof(b[i].name), "%s", name);
		}
	}
}

/* The symbols found, each once, in the file's layout. */
static int pack(const struct best *b, size_t n, void **out, size_t *len)
{
	size_t cap = 0, used = 0;
	unsigned char *p = NULL;

	for (size_t i = 0; i < n; i++)
		cap += 8 + strlen(b[i].name) + 1;
	if (!(p = malloc(cap ? cap : 1)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(b[i].name) + 1;

		if (!b[i].start || (i && b[i - 1].start == b[i].start))
			continue;
		memcpy(p + used, &b[i].start, 8);
		memcpy(p + used + 8, b[i].name, l);
		used += 8 + l;
	}
	*out = p;
	*len = used;
	return 0;
}

int utrace_ksyms_resolve(struct utrace_ksyms *k, const char *kallsyms, void **out, size_t *len,
			 struct utrace_error *err)
{
	uint64_t *a = malloc((k->nr ? k->nr : 1) * sizeof(*a));
	struct best *b = calloc(k->nr ? k->nr : 1, sizeof(*b));
	struct utrace_kallsyms *t = NULL;
	size_t n = 0;
	int ret;

	*out = NULL;
	*len = 0;
	if (!a || !b) {
		free(a);
		free(b);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < k->cap; i++)
		if (k->set[i])
			a[n++] = k->set[i];
	qsort(a, n, sizeof(*a), cmp_u64);
	ret = n ? utrace_kallsyms_load(kallsyms, &t, err) : 0;
	if (ret > 0)
		name_all(t, a, b, n);
	utrace_kallsyms_free(t);
	if (ret > 0 && pack(b, n, out, len) < 0)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	free(a);
	free(b);
	return ret < 0 ? ret : 0;
}

int utrace_ksyms_allowed(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	char line[256];
	int paranoid = 2, shown = 0;

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (geteuid() != 0 && paranoid > 1)
		return 0;
	/* kptr_restrict may hide the addresses even from root */
	if ((f = fopen("/proc/kallsyms", "r"))) {
		for (int i = 0; i < 16 && fgets(line, sizeof(line), f); i++)
			shown |= strtoull(line, NULL, 16) != 0;
		fclose(f);
	}
	return shown;
}
