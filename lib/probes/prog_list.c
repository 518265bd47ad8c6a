/* SPDX-License-Identifier: MIT */
/*
 * prog_list.c - the lists of `utrace list` (prog_list.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "common/proto.h"
#include "lib/base/error.h"
#include "lib/elf/callsite.h"
#include "lib/elf/elf.h"
#include "lib/elf/libdeps.h"
#include "lib/elf/symtab.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/kprobe.h"
#include "lib/probes/prog_list.h"
#include "lib/probes/usdt.h"

#define CMD "list"

/* Prints the traceable functions of one object; module NULL for the
 * main executable.  Returns the number of call sites, or -1. */
long list_object(struct lister *ls, const char *path, const char *module)
{
	struct utrace_error err = {0};
	struct utrace_symtab *tab = NULL;
	struct utrace_elf *elf;
	const char *why = NULL;
	uint64_t *sites = NULL;
	bool *seen = NULL;
	unsigned kind;
	size_t n = 0, from_symbols = 0;
	int ret;

	ret = utrace_elf_open_why(path, &elf, &why);
	if (ret < 0) {
		utrace_die_msg(CMD, "%s: %s", path, why ? why : strerror(-ret));
		return -1;
	}
	ret = utrace_elf_call_sites(elf, &sites, &n, &kind, &from_symbols, &err);
	if (ret == 0 && from_symbols)
		fprintf(stderr,
			"utrace %s: warning: %s: %zu functions start with the instrumented NOP but "
			"are missing from its %s (the linker dropped them with a discarded "
			"COMDAT function: a gcc 12 bug, see utrace cflags); found from its "
			"symbols\n",
			CMD, path, from_symbols,
			kind & UTRACE_OBJ_MCOUNT ? UTRACE_SECTION_MCOUNT
						 : UTRACE_SECTION_PATCHABLE);
	if (ret == 0 && n)
		ret = utrace_symtab_load_elf(elf, &tab, &err);
	if (ret == 0 && n) {
		seen = calloc(utrace_symtab_count(tab) + 1, sizeof(*seen));
		if (!seen)
			ret = utrace_error_set(&err, -ENOMEM, "out of memory");
	}
	if (ret < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct utrace_sym *sym;
		size_t idx;

		if (!sites[i] || !(sym = utrace_symtab_lookup(tab, sites[i], NULL)))
			continue;
		idx = (size_t)(sym - utrace_symtab_get(tab, 0));
		if (seen[idx])
			continue;
		seen[idx] = true;
		if (ls->filter &&
		    !(utrace_func_filter_select(ls->filter, sym->name, sym->raw, path) &
		      UTRACE_SITE_TRACE))
			continue;
		if (module)
			printf("%s [%s]\n", sym->name, module);
		else
			printf("%s\n", sym->name);
		ls->printed++;
	}
out:
	free(seen);
	free(sites);
	utrace_symtab_free(tab);
	utrace_elf_close(elf);
	return ret < 0 ? -1 : (long)n;
}

/* Remembers system:name; 1 if new, 0 if printed before, -1 out of memory. */
static int event_first_time(struct lister *ls, const char *system, const char *name)
{
	char *key;

	for (size_t i = 0; i < ls->nseen; i++) {
		const char *k = ls->seen[i];
		size_t n = strlen(system);

		if (!strncmp(k, system, n) && k[n] == ':' && !strcmp(k + n + 1, name))
			return 0;
	}
	if (ls->nseen == ls->cap_seen) {
		size_t cap = ls->cap_seen ? ls->cap_seen * 2 : 32;
		char **n = realloc(ls->seen, cap * sizeof(*n));

		if (!n)
			return -1;
		ls->seen = n;
		ls->cap_seen = cap;
	}
	if (asprintf(&key, "%s:%s", system, name) < 0)
		return -1;
	ls->seen[ls->nseen++] = key;
	return 1;
}

/* Prints the events of one object that the patterns select.  Returns
 * the number of events it defines, or -1. */
long list_object_events(struct lister *ls, const char *path)
{
	struct utrace_error err = {0};
	struct utrace_event_list *l;
	unsigned n;

	if (utrace_event_list_load(path, &l, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		return -1;
	}
	n = utrace_event_list_count(l);
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_event_format *f = utrace_event_list_get(l, i);
		bool match = !ls->npatterns;
		int fresh;

		for (int p = 0; !match && p < ls->npatterns; p++)
			match = utrace_event_spec_matches(ls->patterns[p], f->system, f->name);
		if (!match)
			continue;
		fresh = event_first_time(ls, f->system, f->name);
		if (fresh < 0) {
			utrace_die_msg(CMD, "out of memory");
			utrace_event_list_free(l);
			return -1;
		}
		if (!fresh)
			continue;
		if (ls->format) {
			/* No id before recording: the recorder gives them out. */
			char *text = utrace_event_format_text(f, 0);

			if (!text) {
				utrace_die_msg(CMD, "out of memory");
				utrace_event_list_free(l);
				return -1;
			}
			printf("system: %s\n%s", f->system, text);
			free(text);
		} else {
			printf("%s:%s\n", f->system, f->name);
		}
		ls->printed++;
	}
	utrace_event_list_free(l);
	return (long)n;
}

/* Lists the instrumented libraries prog loads.  Returns their total
 * number of call sites (with -e: events), or -1 if one could not be read. */
long list_libraries(struct lister *ls, const char *prog, const struct utrace_libdeps *deps)
{
	long total = 0;

	if (deps->ldd_failed)
		fprintf(stderr, "utrace %s: warning: %s: cannot list its shared libraries\n", CMD,
			prog);
	for (size_t i = 0; i < deps->nr_missing; i++)
		fprintf(stderr, "utrace %s: warning: %s: library %s not found\n", CMD, prog,
			deps->missing[i]);
	for (size_t i = 0; i < deps->n; i++) {
		const char *path = deps->paths[i], *base;
		struct utrace_elf *elf;
		struct utrace_elf_section sec;
		long r;

		/* Skip uninstrumented libraries (libc, ...) without a word. */
		if (utrace_elf_open(path, &elf) < 0)
			continue;
		if (ls->events)
			r = utrace_elf_find_section(elf, "__utrace_events", &sec) == 0;
		else
			r = utrace_elf_find_section(elf, UTRACE_SECTION_PATCHABLE, &sec) == 0 ||
			    utrace_elf_find_section(elf, UTRACE_SECTION_MCOUNT, &sec) == 0;
		utrace_elf_close(elf);
		if (!r)
			continue;
		base = strrchr(path, '/');
		if (ls->events)
			r = list_object_events(ls, path);
		else
			r = list_object(ls, path, base ? base + 1 : path);
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

/* --probe DEF (in-process, lib/probes/kprobe.h): its event, as the
 * recording would define it.  Returns how many, or -1. */
long list_probe_events(struct lister *ls, const char *prog, const char *const *defs, int n)
{
	for (int i = 0; i < n; i++) {
		struct utrace_error err = {0};
		struct utrace_kprobe *p;
		const struct utrace_event_format *f;
		bool match = !ls->npatterns;

		if (!utrace_kprobe_is_in_process(defs[i])) {
			utrace_die_msg(CMD, "--probe '%s': a PATH: probe is the kernel's (see its "
					    "events/ in tracefs)", defs[i]);
			return -1;
		}
		if (utrace_kprobe_parse(defs[i], prog, &p, NULL, &err) < 0) {
			utrace_die_msg(CMD, "--probe '%s': %s", defs[i], err.msg);
			return -1;
		}
		f = utrace_kprobe_format(p);
		for (int k = 0; f && !match && k < ls->npatterns; k++)
			match = utrace_event_spec_matches(ls->patterns[k], f->system, f->name);
		if (f && match && ls->format)
			printf("system: %s\n%s", f->system, utrace_kprobe_format_text(p));
		else if (f && match)
			printf("%s:%s\n", f->system, f->name);
		ls->printed += f && match;
		utrace_kprobe_free(p);
	}
	return n;
}

/* One USDT site in -v form: where, semaphore, arguments, fetchargs. */
void print_usdt_site(const struct utrace_usdt_list *l, size_t i)
{
	const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
	struct utrace_error err = {0};
	char *args = NULL;
	int len;

	printf("\tlocation 0x%" PRIx64 " (file offset 0x%" PRIx64 ")", s->pc, s->offset);
	if (s->semaphore && s->sem_offset)
		printf(", semaphore 0x%" PRIx64 " (file offset 0x%" PRIx64 ")\n", s->semaphore,
		       s->sem_offset);
	else if (s->semaphore)
		printf(", semaphore 0x%" PRIx64 " (not in the file)\n", s->semaphore);
	else
		printf(", no semaphore\n");
	printf("\targuments: %s\n", *s->args ? s->args : "(none)");
	len = utrace_usdt_fetchargs(l, i, NULL, 0, &err);
	if (len >= 0 && (args = malloc((size_t)len + 1)))
		utrace_usdt_fetchargs(l, i, args, (size_t)len + 1, &err);
	if (args)
		printf("\tfetchargs: %s\n", *args ? args : "(none)");
	else
		printf("\tfetchargs: cannot be fetched by a uprobe: %s\n", err.msg);
	free(args);
}
