/* SPDX-License-Identifier: MIT */
/*
 * prog_list.c - the lists of `utrace list` (prog_list.h).
 *
 * A function is traceable if the compiler recorded a call site for it
 * (lib/elf/callsite.c).  The main executable's functions print bare, those of
 * the shared libraries it loads as "name [module]".  The libraries are
 * found the way ldd finds them (lib/elf/libdeps.c).
 *
 * Events are read from the __utrace_events section of the program and of
 * the same libraries (lib/events/event_format_elf.c) and print as "system:event",
 * once each even if several objects define one: the recorder gives an
 * event one id by that name, whichever object fires it.  A sanitized
 * program also has the sanitizer:* events of libutrace.so (read from its
 * file the same way).
 *
 * USDT probes (<sys/sdt.h>) are read from .note.stapsdt (usdt.c) and print
 * as "provider:name", once each however many sites it has, like `perf list
 * sdt`; verbose: every site, its address, semaphore, argument spec and the
 * uprobe fetchargs that `utrace record -e usdt:PROVIDER:NAME` would use.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/base/error.h"
#include "lib/base/runtime_path.h"
#include "lib/elf/callsite.h"
#include "lib/elf/elf.h"
#include "lib/elf/libdeps.h"
#include "lib/elf/sanitizer.h"
#include "lib/elf/symtab.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/base/glob.h"
#include "lib/events/ftrace_filter.h"
#include "lib/probes/fpatch_list.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/prog_list.h"
#include "lib/probes/usdt.h"

#define EVENT_SYSTEM_MAX 128 /* as utrace record -e */

/* Hands a warning to ls->warn, if any. */
static void __attribute__((format(printf, 2, 3)))
warn(struct utrace_prog_list *ls, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (!ls->warn)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		ls->warn(ls->warn_arg, msg);
		free(msg);
	}
}

/* Prints the traceable functions of one object; module NULL for the
 * main executable.  Returns the number of call sites, or -1. */
long utrace_prog_list_object(struct utrace_prog_list *ls, const char *path, const char *module,
			     struct utrace_error *err)
{
	struct utrace_symtab *tab = NULL;
	struct utrace_elf *elf;
	const char *why = NULL;
	uint64_t *sites = NULL;
	bool *seen = NULL;
	unsigned kind;
	size_t n = 0, from_symbols = 0;
	int ret;

	ret = utrace_elf_open_why(path, &elf, &why);
	if (ret < 0)
		return utrace_error_set(err, -1, "%s: %s", path, why ? why : strerror(-ret));
	ret = utrace_elf_call_sites(elf, &sites, &n, &kind, &from_symbols, err);
	if (ret == 0 && from_symbols)
		warn(ls,
		     "%s: %zu functions start with the instrumented NOP but are missing from its "
		     "%s (the linker dropped them with a discarded COMDAT function: a gcc 12 "
		     "bug, see utrace cflags); found from its symbols",
		     path, from_symbols,
		     kind & UTRACE_OBJ_MCOUNT ? UTRACE_SECTION_MCOUNT : UTRACE_SECTION_PATCHABLE);
	if (ret == 0 && n)
		ret = utrace_symtab_load_elf(elf, &tab, err);
	if (ret == 0 && n) {
		seen = calloc(utrace_symtab_count(tab) + 1, sizeof(*seen));
		if (!seen)
			ret = utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (ret < 0)
		goto out;
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
			fprintf(ls->out, "%s [%s]\n", sym->name, module);
		else
			fprintf(ls->out, "%s\n", sym->name);
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
static int event_first_time(struct utrace_prog_list *ls, const char *system, const char *name)
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
long utrace_prog_list_object_events(struct utrace_prog_list *ls, const char *path,
				    struct utrace_error *err)
{
	struct utrace_event_list *l;
	unsigned n;

	if (utrace_event_list_load(path, &l, err) < 0)
		return -1;
	n = utrace_event_list_count(l);
	for (unsigned i = 0; i < n; i++) {
		const struct utrace_event_format *f = utrace_event_list_get(l, i);
		int fresh;

		if (!utrace_prog_list_matches(ls, f->system, f->name))
			continue;
		fresh = event_first_time(ls, f->system, f->name);
		if (fresh < 0) {
			utrace_error_set(err, -ENOMEM, "out of memory");
			utrace_event_list_free(l);
			return -1;
		}
		if (!fresh)
			continue;
		if (ls->format) {
			/* No id before recording: the recorder gives them out. */
			char *text = utrace_event_format_text(f, 0);

			if (!text) {
				utrace_error_set(err, -ENOMEM, "out of memory");
				utrace_event_list_free(l);
				return -1;
			}
			fprintf(ls->out, "system: %s\n%s", f->system, text);
			free(text);
		} else {
			fprintf(ls->out, "%s:%s\n", f->system, f->name);
		}
		ls->printed++;
	}
	utrace_event_list_free(l);
	return (long)n;
}

/* Lists the instrumented libraries prog loads.  Returns their total
 * number of call sites (with -e: events), or -1 if one could not be read. */
long utrace_prog_list_libraries(struct utrace_prog_list *ls, const char *prog,
				const struct utrace_libdeps *deps, struct utrace_error *err)
{
	long total = 0;

	if (deps->ldd_failed)
		warn(ls, "%s: cannot list its shared libraries", prog);
	for (size_t i = 0; i < deps->nr_missing; i++)
		warn(ls, "%s: library %s not found", prog, deps->missing[i]);
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
			r = utrace_prog_list_object_events(ls, path, err);
		else
			r = utrace_prog_list_object(ls, path, base ? base + 1 : path, err);
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

/* --probe DEF (in-process, lib/probes/inproc_probe.h): its event, as the
 * recording would define it.  Returns how many, or -1. */
long utrace_prog_list_probes(struct utrace_prog_list *ls, const char *prog, const char *const *defs,
			     int n, struct utrace_error *err)
{
	for (int i = 0; i < n; i++) {
		struct utrace_inproc_probe *p;
		const struct utrace_event_format *f;
		bool match;

		if (!utrace_inproc_probe_is_in_process(defs[i]))
			return utrace_error_set(err, -1,
						"--probe '%s': a PATH: probe is the kernel's (see "
						"its events/ in tracefs)",
						defs[i]);
		if (utrace_inproc_probe_parse(defs[i], prog, &p, NULL, err) < 0) {
			struct utrace_error e = *err;

			return utrace_error_set(err, -1, "--probe '%s': %s", defs[i], e.msg);
		}
		f = utrace_inproc_probe_format(p);
		match = f && utrace_prog_list_matches(ls, f->system, f->name);
		if (match && ls->format)
			fprintf(ls->out, "system: %s\n%s", f->system, utrace_inproc_probe_format_text(p));
		else if (match)
			fprintf(ls->out, "%s:%s\n", f->system, f->name);
		ls->printed += match;
		utrace_inproc_probe_free(p);
	}
	return n;
}

/* One USDT site in -v form: where, semaphore, arguments, fetchargs. */
static void print_usdt_site(FILE *out, const struct utrace_usdt_list *l, size_t i)
{
	const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
	struct utrace_error err = {0};
	char *args = NULL;
	int len;

	fprintf(out, "\tlocation 0x%" PRIx64 " (file offset 0x%" PRIx64 ")", s->pc, s->offset);
	if (s->semaphore && s->sem_offset)
		fprintf(out, ", semaphore 0x%" PRIx64 " (file offset 0x%" PRIx64 ")\n",
			s->semaphore, s->sem_offset);
	else if (s->semaphore)
		fprintf(out, ", semaphore 0x%" PRIx64 " (not in the file)\n", s->semaphore);
	else
		fprintf(out, ", no semaphore\n");
	fprintf(out, "\targuments: %s\n", *s->args ? s->args : "(none)");
	len = utrace_usdt_fetchargs(l, i, NULL, 0, &err);
	if (len >= 0 && (args = malloc((size_t)len + 1)))
		utrace_usdt_fetchargs(l, i, args, (size_t)len + 1, &err);
	if (args)
		fprintf(out, "\tfetchargs: %s\n", *args ? args : "(none)");
	else
		fprintf(out, "\tfetchargs: cannot be fetched by a uprobe: %s\n", err.msg);
	free(args);
}

int utrace_prog_list_usdt(FILE *out, const char *prog, char **patterns, int npatterns, bool verbose,
			  struct utrace_error *err)
{
	struct utrace_usdt_list *l;
	size_t n;

	if (utrace_usdt_load(prog, &l, err) < 0)
		return -1;
	n = utrace_usdt_count(l);
	if (!n) {
		utrace_usdt_free(l);
		return utrace_error_set(err, -ENOENT,
					"%s has no USDT probes (no .note.stapsdt section)", prog);
	}
	for (size_t i = 0; i < n; i++) {
		const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
		bool match = !npatterns, first = true;

		for (int p = 0; !match && p < npatterns; p++)
			match = utrace_event_spec_matches(patterns[p], s->provider, s->name);
		/* Once per provider:name, at its first site. */
		for (size_t j = 0; match && first && j < i; j++)
			first = strcmp(utrace_usdt_get(l, j)->provider, s->provider) ||
				strcmp(utrace_usdt_get(l, j)->name, s->name);
		if (!match || !first)
			continue;
		fprintf(out, "%s:%s\n", s->provider, s->name);
		for (size_t j = i; verbose && j < n; j++)
			if (!strcmp(utrace_usdt_get(l, j)->provider, s->provider) &&
			    !strcmp(utrace_usdt_get(l, j)->name, s->name))
				print_usdt_site(out, l, j);
	}
	utrace_usdt_free(l);
	return 0;
}

/* ls->filter made of the set_ftrace_filter expressions filters: 0, or -1. */
static int make_filter(struct utrace_prog_list *ls, char **filters, int nfilters,
		       struct utrace_func_filter **filter, struct utrace_error *err)
{
	*filter = NULL;
	if (!nfilters)
		return 0;
	ls->filter = *filter = utrace_func_filter_new();
	if (!*filter)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < nfilters; i++)
		if (utrace_func_filter_add(*filter, UTRACE_FILTER, filters[i], err) < 0)
			return -1;
	return 0;
}

int utrace_prog_list_functions(struct utrace_prog_list *ls, const char *prog, char **filters,
			       int nfilters, bool why, struct utrace_prog_list_found *found,
			       struct utrace_error *err)
{
	struct utrace_func_filter *filter;
	struct utrace_libdeps deps = {0};
	long n = -1;

	*found = (struct utrace_prog_list_found){0};
	if (make_filter(ls, filters, nfilters, &filter, err) < 0 ||
	    utrace_libdeps_get(prog, &deps, err) < 0)
		goto out;
	n = why ? 0 : utrace_prog_list_object(ls, prog, NULL, err);
	if (n == 0) { /* uninstrumented: its patched entries */
		found->patched = true;
		n = utrace_fpatch_list(ls->out, prog, NULL, ls->filter, why, &found->counts, err);
	} else if (n > 0) {
		found->main = n;
		n = found->libs = utrace_prog_list_libraries(ls, prog, &deps, err);
	}
out:
	utrace_libdeps_free(&deps);
	utrace_func_filter_free(filter);
	ls->filter = NULL;
	return n < 0 ? -1 : 0;
}

/* A sanitized program: the sanitizer:* events libutrace.so defines for
 * it (runtime/sanitizer.c), counted with the libraries'.  0, or -1. */
static long prog_list_sanitizer(struct utrace_prog_list *ls, const char *prog,
				const struct utrace_libdeps *deps, struct utrace_prog_list_found *found,
				struct utrace_error *err)
{
	char runtime[PATH_MAX];
	long n;

	if (!utrace_sanitizer_find(prog, deps) || utrace_runtime_path(runtime, sizeof(runtime)) < 0)
		return 0;
	n = utrace_prog_list_object_events(ls, runtime, err);
	if (n > 0)
		found->libs += n;
	return n < 0 ? -1 : 0;
}

int utrace_prog_list_events(struct utrace_prog_list *ls, const char *prog,
			    const char *const *probes, int nprobes,
			    struct utrace_prog_list_found *found, struct utrace_error *err)
{
	struct utrace_libdeps deps = {0};
	long n;

	*found = (struct utrace_prog_list_found){0};
	if (utrace_libdeps_get(prog, &deps, err) < 0)
		return -1;
	n = found->main = utrace_prog_list_object_events(ls, prog, err);
	if (n >= 0)
		n = found->libs = utrace_prog_list_libraries(ls, prog, &deps, err);
	if (n >= 0)
		n = prog_list_sanitizer(ls, prog, &deps, found, err);
	if (n >= 0)
		n = utrace_prog_list_probes(ls, prog, probes, nprobes, err);
	utrace_libdeps_free(&deps);
	return n < 0 ? -1 : 0;
}

int utrace_prog_list_check(const char *pattern, bool event, struct utrace_error *err)
{
	const char *colon = strchr(pattern, ':');
	struct utrace_error e = {0};

	if (*pattern && !(event && colon && colon - pattern >= EVENT_SYSTEM_MAX) &&
	    utrace_glob_check(pattern, &e) == 0)
		return 0;
	return utrace_error_set(err, -EINVAL, "bad %s '%s'%s%s", event ? "EVENT" : "PROBE", pattern,
				e.msg[0] ? ": " : "", e.msg);
}

bool utrace_prog_list_matches(const struct utrace_prog_list *ls, const char *system,
			      const char *name)
{
	bool match = !ls->npatterns;

	for (int p = 0; !match && p < ls->npatterns; p++)
		match = utrace_event_spec_matches(ls->patterns[p], system, name);
	return match;
}

void utrace_prog_list_free(struct utrace_prog_list *ls)
{
	for (size_t i = 0; i < ls->nseen; i++)
		free(ls->seen[i]);
	free(ls->seen);
	ls->seen = NULL;
	ls->nseen = ls->cap_seen = 0;
}
