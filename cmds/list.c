/* SPDX-License-Identifier: MIT */
/*
 * list.c - "utrace list -f PROGRAM": the traceable functions of a program,
 * like tracefs available_filter_functions; "-e PROGRAM": its static
 * tracepoints, like trace-cmd list -e (-F: with their formats); "--usdt
 * PROGRAM": its USDT probes, like `perf list sdt` (-v: every site).  The
 * lists are lib/probes/prog_list.c's; here, the options and the messages.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/base/error.h"
#include "lib/elf/libdeps.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/synth_list.h"
#include "lib/probes/prog_list.h"

#define CMD "list"

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

/* The lists' warnings, as the command's. */
static void warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "utrace %s: warning: %s\n", CMD, msg);
}

/* A failed listing's error, printed; returns status (the exit status). */
static int list_failed(const struct utrace_error *err, int status)
{
	utrace_die_msg(CMD, "%s", err->msg);
	return status;
}

/* The EVENT (event) or PROBE patterns checked: 0, or 2 after saying why. */
static int check_patterns(char **patterns, int n, bool event)
{
	struct utrace_error err = {0};

	for (int i = 0; i < n; i++)
		if (utrace_prog_list_check(patterns[i], event, &err) < 0)
			return list_failed(&err, 2);
	return 0;
}

/* The resolved path of PROGRAM, or NULL after saying why. */
static char *program(const char *arg)
{
	char *prog = utrace_program_path(arg);

	if (!prog)
		utrace_die_msg(CMD, "%s: %s", arg, strerror(errno));
	return prog;
}

/* Standard output flushed; 0, or 1 after saying why not. */
static int flush_out(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	utrace_die_msg(CMD, "write error: %s", strerror(errno));
	return 1;
}

static int list_functions(const char *arg, char **filters, int nfilters, bool why)
{
	struct utrace_prog_list ls = {.out = stdout, .warn = warn};
	struct utrace_prog_list_found r;
	struct utrace_error err = {0};
	char *prog = program(arg);
	int ret;

	if (!prog)
		return 1;
	ret = utrace_prog_list_functions(&ls, prog, filters, nfilters, why, &r, &err);
	if (ret < 0)
		ret = list_failed(&err, 1);
	else if (r.patched) { /* (its write error says nothing) */
		if (why)
			fprintf(stderr,
				"utrace list: %s: %zu of %zu functions left out, %zu patched with "
				"int3\n",
				prog, r.counts.left, r.counts.found, r.counts.nint3);
		ret = fflush(stdout) != 0 || ferror(stdout);
	} else {
		ret = flush_out();
	}
	free(prog);
	return ret;
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
	struct utrace_prog_list ls = {
	    .out = stdout, .events = true, .format = format, .warn = warn};
	struct utrace_prog_list_found r;
	struct utrace_error err = {0};
	char *prog;
	int ret;

	if (check_patterns(patterns, npatterns, true))
		return 2;
	ls.patterns = patterns;
	ls.npatterns = npatterns;
	prog = program(arg);
	if (!prog)
		return 1;
	ret = 1;
	if (utrace_prog_list_events(&ls, prog, defs->probes, defs->nprobes, &r, &err) < 0) {
		list_failed(&err, 1);
		goto out;
	}
	for (int i = 0; i < defs->nsynths; i++) {
		if (utrace_synth_list(&ls, defs->synths[i], &err) < 0) {
			utrace_die_msg(CMD, "--synthetic: %s", err.msg);
			if (err.column > 0)
				fprintf(stderr, "  %s\n  %*s^\n", defs->synths[i], err.column - 1,
					"");
			goto out;
		}
	}
	if (r.main == 0 && r.libs == 0 && !defs->nprobes && !defs->nsynths) {
		utrace_die_msg(CMD,
			       "%s has no static tracepoints: define CREATE_TRACE_POINTS before "
			       "including an events header (see <utrace/tracepoint.h>)",
			       prog);
		goto out;
	}
	ret = flush_out();
out:
	utrace_prog_list_free(&ls);
	free(prog);
	return ret;
}

/* utrace list --usdt: the USDT probes of one file. */
static int list_usdt(const char *arg, char **patterns, int npatterns, bool verbose)
{
	struct utrace_error err = {0};
	char *prog;
	int ret;

	if (check_patterns(patterns, npatterns, false))
		return 2;
	prog = program(arg);
	if (!prog)
		return 1;
	ret = utrace_prog_list_usdt(stdout, prog, patterns, npatterns, verbose, &err);
	free(prog);
	return ret < 0 ? list_failed(&err, 1) : flush_out();
}

/* argv[*i] is SHORT or LONG taking a PROGRAM (the next argument), or
 * LONG=PROGRAM: 1 with *v set; 0 if it is not; -1 after saying that
 * PROGRAM is missing. */
static int program_opt(int argc, char **argv, int *i, const char *shrt, const char *lng,
		       const char **v)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=') {
		*v = a + n + 1;
		return 1;
	}
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return 0;
	if (*i + 1 >= argc) {
		utrace_die_msg(CMD, "%s needs a PROGRAM", a);
		return -1;
	}
	*v = argv[++*i];
	return 1;
}

int cmd_list(int argc, char **argv)
{
	const char *prog = NULL, *events = NULL, *usdt = NULL, *one, *bad;
	struct list_defs defs = {.nprobes = 0};
	bool format = false, verbose = false, why = false;
	int i, r;

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
		} else if ((r = program_opt(argc, argv, &i, "-e", "--events", &events))) {
			if (r < 0)
				return 2;
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
		} else if ((r = program_opt(argc, argv, &i, NULL, "--usdt", &usdt))) {
			if (r < 0)
				return 2;
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
	one = usdt ? usdt : prog ? prog : events;
	bad = !!prog + !!events + !!usdt > 1 ? "give one of -f, -e and --usdt"
	      : why && !prog	 ? "--why tells why functions are not patched: it needs -f PROGRAM"
	      : verbose && !usdt ? "-v shows USDT sites: it needs --usdt PROGRAM"
	      : format && !events && !usdt ? "-F shows event formats: it needs -e PROGRAM"
	      : !one  ? "nothing to list: give -f PROGRAM, -e PROGRAM or --usdt PROGRAM "
			"(see 'utrace list --help')"
	      : !*one ? "empty PROGRAM"
		      : NULL;
	if (bad) {
		utrace_die_msg(CMD, "%s", bad);
		return 2;
	}
	if (usdt)
		return list_usdt(usdt, argv + i, argc - i, verbose);
	if (events)
		return list_events(events, argv + i, argc - i, format, &defs);
	return list_functions(prog, argv + i, argc - i, why);
}
