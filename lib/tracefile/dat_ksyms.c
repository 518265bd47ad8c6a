/* SPDX-License-Identifier: MIT */
/*
 * dat_ksyms.c - the kernel's symbols of a recording (the KSYMS record:
 * the /proc/kallsyms lines of the symbols its kernel stacks' frames are
 * in, and of the next ones, saved when recording ends), so that the
 * kernel's addresses of a kernel_stack entry or a common_stacktrace key
 * are named as the kernel names them: %ps "name [module]", %pS
 * "name+0xoff/0xsize [module]".
 * A symbol's size is the distance to the next one, as kallsyms gives it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefile/dat_kernel.h"

struct ksym {
	uint64_t addr;
	char *name; /* "name" or "name [module]" */
};

struct dat_ksyms {
	struct ksym *syms;
	size_t n;
	char *text;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line "ffffffff81000000 T name[\t[module]]" into s, in place. */
static bool ksym_line(char *line, struct ksym *s)
{
	char *end, *name, *mod;

	s->addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ' || !s->addr)
		return false;
	name = end + 3;
	if ((mod = strchr(name, '\t'))) /* "\t[mod]" -> " [mod]", as %ps prints it */
		*mod = ' ';
	s->name = name;
	return *name != 0;
}

int dat_ksyms_meta(struct utrace_dat *d, char *p, uint32_t len, bool *kept)
{
	struct dat_ksyms *k;
	size_t cap = 1;

	if (d->ksyms)
		return 0; /* one per recording */
	for (size_t i = 0; i < len; i++)
		cap += p[i] == '\n';
	if (!(k = calloc(1, sizeof(*k))) || !(k->syms = calloc(cap, sizeof(*k->syms)))) {
		free(k);
		return -ENOMEM;
	}
	k->text = p;
	*kept = true;
	for (char *line = p, *nl; line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (k->n < cap && ksym_line(line, &k->syms[k->n]))
			k->n++;
	}
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	d->ksyms = k;
	return 0;
}

void dat_ksyms_free(struct utrace_dat *d)
{
	if (!d->ksyms)
		return;
	free(d->ksyms->syms);
	free(d->ksyms->text);
	free(d->ksyms);
	d->ksyms = NULL;
}

const char *utrace_dat_ksym(const struct utrace_dat *d, uint64_t addr, uint64_t *off,
			    uint64_t *size)
{
	const struct dat_ksyms *k = d->ksyms;
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) { /* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = addr - k->syms[lo - 1].addr;
	*size = lo < k->n ? k->syms[lo].addr - k->syms[lo - 1].addr : 0;
	return k->syms[lo - 1].name;
}

bool utrace_dat_has_ksyms(const struct utrace_dat *d)
{
	return d->ksyms && d->ksyms->n;
}
