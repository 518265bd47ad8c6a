/* SPDX-License-Identifier: MIT */
/*
 * list.c - "utrace list -f PROGRAM": the traceable functions of a program,
 * like tracefs available_filter_functions; "utrace list -e PROGRAM": its
 * static tracepoints, like trace-cmd list -e (-F: with their formats).
 *
 * A function is traceable if the compiler recorded a call site for it
 * (lib/elf/callsite.c).  The main executable's functions print bare, those of
 * the shared libraries it loads as "name [module]".  The libraries are
 * found the way ldd finds them (lib/elf/libdeps.c).
 *
 * Events are read from the __utrace_events section of the program and of
 * the same libraries (lib/events/event_format_elf.c) and print as "system:event",
 * once each even if several objects define one: the recorder gives an
 * event one id by that name, whichever object fires it.
 *
 * "utrace list --usdt PROGRAM" prints the USDT probes (<sys/sdt.h>) of
 * PROGRAM's .note.stapsdt (lib/probes/usdt.c) as "provider:name", once each
 * however many sites it has, like `perf list sdt`; with -v, every site:
 * its address, semaphore, argument spec and the uprobe fetchargs that
 * `utrace record -e usdt:PROVIDER:NAME` would use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "common/proto.h"
#include "lib/elf/callsite.h"
#include "lib/elf/elf.h"
#include "lib/elf/libdeps.h"
#include "lib/base/error.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/synth.h"
#include "lib/probes/fpatch_list.h"
#include "lib/probes/kprobe.h"
#include "lib/probes/prog_list.h"
#include "lib/base/glob.h"
#include "lib/elf/symtab.h"
#include "lib/probes/usdt.h"

#define CMD "list"
#define EVENT_SYSTEM_MAX 128 /* as utrace record -e */

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace list -f PROGRAM [FILTER...]\n"
		   "       utrace list -f [--why] PROGRAM [FILTER...]\n"
		   "       utrace list -e PROGRAM [-F] [--probe DEF]... [--synthetic DEF]... [EVENT...]\n"
		   "       utrace list --usdt PROGRAM [-v] [PROBE...]\n"
		   "\n"
		   "  -f, --functions PROGRAM  list the traceable functions of PROGRAM and of\n"
		   "                           the instrumented shared libraries it loads,\n"
		   "                           like tracefs available_filter_functions\n"
		   "                           (a program built without utrace cflags: the\n"
		   "                           functions whose entries utrace record patches)\n"
		   "      --why                with -f: the functions of a program without\n"
		   "                           call sites that are not patched, and why\n"
		   "  FILTER                   only those matching a set_ftrace_filter\n"
		   "                           expression: GLOB, !GLOB, GLOB:mod:MODULE\n"
		   "  -e, --events PROGRAM     list the static tracepoints (TRACE_EVENT) of\n"
		   "                           PROGRAM and of the shared libraries it loads,\n"
		   "                           as SYSTEM:EVENT, like trace-cmd list -e\n"
		   "  -F, --format             with -e: print each event's format, as in\n"
		   "                           tracefs events/SYSTEM/EVENT/format\n"
		   "      --probe DEF          with -e: also the event of an in-process probe\n"
		   "                           (utrace record --probe, no PATH:)\n"
		   "      --synthetic DEF      with -e: also the synthetic event DEF defines\n"
		   "                           (utrace record --synthetic), synthetic:NAME\n"
		   "  EVENT                    only events matching SYSTEM:EVENT, SYSTEM, EVENT\n"
		   "                           or all (globs), as utrace record -e\n"
		   "      --usdt PROGRAM       list the USDT probes (<sys/sdt.h>) of PROGRAM\n"
		   "                           (an executable or a shared library) as\n"
		   "                           PROVIDER:NAME, for utrace record -e usdt:...\n"
		   "  -v, --verbose            with --usdt: every site, with its address,\n"
		   "                           semaphore, arguments and uprobe fetchargs\n"
		   "  PROBE                    only probes matching PROVIDER:NAME, PROVIDER or\n"
		   "                           NAME (globs)\n"
		   "  -h, --help               show this help\n");
}

static int list_functions(const char *arg, char **filters, int nfilters, bool why)
{
	struct utrace_func_filter *filter = NULL;
	struct lister ls = {0};
	struct utrace_error err = {0};
	struct utrace_libdeps deps = {0};
	char *prog;
	long main_sites, lib_sites = 0;
	int ret = 1;

	prog = utrace_program_path(arg);
	if (!prog) {
		utrace_die_msg(CMD, "%s: %s", arg, strerror(errno));
		return 1;
	}
	if (nfilters) {
		filter = utrace_func_filter_new();
		if (!filter) {
			utrace_die_msg(CMD, "out of memory");
			goto out;
		}
		for (int i = 0; i < nfilters; i++) {
			if (utrace_func_filter_add(filter, UTRACE_FILTER, filters[i], &err) < 0) {
				utrace_die_msg(CMD, "%s", err.msg);
				goto out;
			}
		}
		ls.filter = filter;
	}
	ret = 1;
	if (utrace_libdeps_get(prog, &deps, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		goto out;
	}
	main_sites = why ? 0 : list_object(&ls, prog, NULL);
	if (main_sites < 0)
		goto out;
	if (main_sites == 0) { /* uninstrumented: its patched entries */
		ret = list_fpatch(prog, NULL, ls.filter, why) < 0 ||
		      fflush(stdout) != 0 || ferror(stdout);
		goto out;
	}
	lib_sites = list_libraries(&ls, prog, &deps);
	if (lib_sites < 0)
		goto out;
	if (main_sites == 0 && lib_sites == 0) {
		utrace_die_msg(CMD,
			       "%s has no traceable functions: build it with $(utrace cflags) "
			       "(-fpatchable-function-entry=5)",
			       prog);
		goto out;
	}
	if (main_sites == 0)
		fprintf(stderr,
			"utrace %s: warning: %s itself is not instrumented (see utrace cflags)\n",
			CMD, prog);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		utrace_die_msg(CMD, "write error: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	utrace_func_filter_free(filter);
	utrace_libdeps_free(&deps);
	free(prog);
	return ret;
}

/* --synthetic DEF (lib/hist/synth.h): its event, synthetic:NAME, as the
 * recording would define it (its ID there is the recording's).  Returns
 * how many, or -1. */
static long list_synth_events(struct lister *ls, const char *const *defs, int n)
{
	for (int i = 0; i < n; i++) {
		struct utrace_error err = {0};
		struct utrace_synth *sy;
		bool match = !ls->npatterns;
		int code;

		if (utrace_synth_parse(defs[i], 0, &sy, &code, &err) < 0) {
			utrace_die_msg(CMD, "--synthetic: %s", err.msg);
			if (err.column > 0)
				fprintf(stderr, "  %s\n  %*s^\n", defs[i], err.column - 1, "");
			return -1;
		}
		for (int k = 0; !match && k < ls->npatterns; k++)
			match = utrace_event_spec_matches(ls->patterns[k], sy->fmt->system,
							  sy->fmt->name);
		if (match && ls->format)
			printf("system: %s\n%s", sy->fmt->system, sy->format);
		else if (match)
			printf("%s:%s\n", sy->fmt->system, sy->fmt->name);
		ls->printed += match;
		utrace_synth_free(sy);
	}
	return n;
}

/* The definitions that add events to a program's for utrace list -e. */
struct list_defs {
	const char *probes[64], *synths[64];
	int nprobes, nsynths;
};

/* utrace list -e: the events of prog and of its libraries. */
static int list_events(const char *arg, char **patterns, int npatterns, bool format,
		       const struct list_defs *defs)
{
	struct lister ls = {.events = true, .format = format};
	struct utrace_error err = {0};
	struct utrace_libdeps deps = {0};
	char *prog;
	long main_events, lib_events = 0;
	int ret;

	for (int i = 0; i < npatterns; i++) {
		const char *colon = strchr(patterns[i], ':');

		if (!*patterns[i] || (colon && colon - patterns[i] >= EVENT_SYSTEM_MAX) ||
		    utrace_glob_check(patterns[i], &err) < 0) {
			utrace_die_msg(CMD, "bad EVENT '%s'%s%s", patterns[i],
				       err.msg[0] ? ": " : "", err.msg);
			return 2;
		}
	}
	ls.patterns = patterns;
	ls.npatterns = npatterns;
	prog = utrace_program_path(arg);
	if (!prog) {
		utrace_die_msg(CMD, "%s: %s", arg, strerror(errno));
		return 1;
	}
	if (utrace_libdeps_get(prog, &deps, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		free(prog);
		return 1;
	}
	ret = 1;
	main_events = list_object_events(&ls, prog);
	if (main_events < 0)
		goto out;
	lib_events = list_libraries(&ls, prog, &deps);
	if (lib_events < 0 || list_probe_events(&ls, prog, defs->probes, defs->nprobes) < 0 ||
	    list_synth_events(&ls, defs->synths, defs->nsynths) < 0)
		goto out;
	if (main_events == 0 && lib_events == 0 && !defs->nprobes && !defs->nsynths) {
		utrace_die_msg(CMD,
			       "%s has no static tracepoints: define CREATE_TRACE_POINTS before "
			       "including an events header (see <utrace/tracepoint.h>)",
			       prog);
		goto out;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		utrace_die_msg(CMD, "write error: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < ls.nseen; i++)
		free(ls.seen[i]);
	free(ls.seen);
	utrace_libdeps_free(&deps);
	free(prog);
	return ret;
}

/* utrace list --usdt: the USDT probes of one file. */
static int list_usdt(const char *arg, char **patterns, int npatterns, bool verbose)
{
	struct utrace_error err = {0};
	struct utrace_usdt_list *l;
	char *prog;
	size_t n;

	for (int i = 0; i < npatterns; i++) {
		if (!*patterns[i] || utrace_glob_check(patterns[i], &err) < 0) {
			utrace_die_msg(CMD, "bad PROBE '%s'%s%s", patterns[i],
				       err.msg[0] ? ": " : "", err.msg);
			return 2;
		}
	}
	prog = utrace_program_path(arg);
	if (!prog) {
		utrace_die_msg(CMD, "%s: %s", arg, strerror(errno));
		return 1;
	}
	if (utrace_usdt_load(prog, &l, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		free(prog);
		return 1;
	}
	n = utrace_usdt_count(l);
	if (!n) {
		utrace_die_msg(CMD, "%s has no USDT probes (no .note.stapsdt section)", prog);
		utrace_usdt_free(l);
		free(prog);
		return 1;
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
		printf("%s:%s\n", s->provider, s->name);
		for (size_t j = i; verbose && j < n; j++)
			if (!strcmp(utrace_usdt_get(l, j)->provider, s->provider) &&
			    !strcmp(utrace_usdt_get(l, j)->name, s->name))
				print_usdt_site(l, j);
	}
	utrace_usdt_free(l);
	free(prog);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		utrace_die_msg(CMD, "write error: %s", strerror(errno));
		return 1;
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	const char *prog = NULL, *events = NULL, *usdt = NULL;
	struct list_defs defs = {.nprobes = 0};
	bool format = false, verbose = false, why = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--functions")) {
			/* the spelling: -f --why PROGRAM */
			if (i + 2 < argc && !strcmp(argv[i + 1], "--why")) {
				why = true;
				i++;
			}
			if (i + 1 >= argc) {
				utrace_die_msg(CMD, "%s needs a PROGRAM", a);
				return 2;
			}
			prog = argv[++i];
		} else if (!strncmp(a, "--functions=", 12)) {
			prog = a + 12;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--events")) {
			if (i + 1 >= argc) {
				utrace_die_msg(CMD, "%s needs a PROGRAM", a);
				return 2;
			}
			events = argv[++i];
		} else if (!strncmp(a, "--events=", 9)) {
			events = a + 9;
		} else if (!strcmp(a, "-F") || !strcmp(a, "--format")) {
			format = true;
		} else if (!strcmp(a, "--probe") || !strcmp(a, "--synthetic")) {
			bool probe = a[2] == 'p';
			int *n = probe ? &defs.nprobes : &defs.nsynths;

			if (i + 1 >= argc || *n == 64) {
				utrace_die_msg(CMD, "%s needs a DEF (at most 64)", a);
				return 2;
			}
			(probe ? defs.probes : defs.synths)[(*n)++] = argv[++i];
		} else if (!strcmp(a, "--usdt")) {
			if (i + 1 >= argc) {
				utrace_die_msg(CMD, "%s needs a PROGRAM", a);
				return 2;
			}
			usdt = argv[++i];
		} else if (!strncmp(a, "--usdt=", 7)) {
			usdt = a + 7;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = true;
		} else if (!strcmp(a, "--why")) {
			why = true;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (a[0] == '-' && a[1]) {
			utrace_die_msg(CMD, "unknown option '%s' (see 'utrace list --help')", a);
			return 2;
		} else {
			break;
		}
	}
	if (!!prog + !!events + !!usdt > 1) {
		utrace_die_msg(CMD, "give one of -f, -e and --usdt");
		return 2;
	}
	if (why && !prog) {
		utrace_die_msg(CMD, "--why tells why functions are not patched: it needs -f PROGRAM");
		return 2;
	}
	if (verbose && !usdt) {
		utrace_die_msg(CMD, "-v shows USDT sites: it needs --usdt PROGRAM");
		return 2;
	}
	if (usdt) {
		if (!*usdt) {
			utrace_die_msg(CMD, "empty PROGRAM");
			return 2;
		}
		return list_usdt(usdt, argv + i, argc - i, verbose);
	}
	if (format && !events) {
		utrace_die_msg(CMD, "-F shows event formats: it needs -e PROGRAM");
		return 2;
	}
	if (!prog && !events) {
		utrace_die_msg(CMD,
			       "nothing to list: give -f PROGRAM, -e PROGRAM or --usdt PROGRAM "
			       "(see 'utrace list --help')");
		return 2;
	}
	if (!*(prog ? prog : events)) {
		utrace_die_msg(CMD, "empty PROGRAM");
		return 2;
	}
	if (events)
		return list_events(events, argv + i, argc - i, format, &defs);
	return list_functions(prog, argv + i, argc - i, why);
}
