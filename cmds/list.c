/* SPDX-License-Identifier: MIT */
/*
 * list.c - "utrace list -f PROGRAM": the traceable functions of a program,
 * like tracefs available_filter_functions; "-e PROGRAM": its static
 * tracepoints, like trace-cmd list -e (-F: with their formats); "--usdt
 * PROGRAM": its USDT probes, like `perf list sdt` (-v: every site).  The
 * lists are lib/probes/prog_list.c's; here, the options and the messages.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/base/error.h"
#include "lib/elf/libdeps.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/synth_list.h"
#include "lib/kernel/kernel_list.h"
#include "lib/probes/prog_list.h"

#define CMD "list"

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace list -f PROGRAM [FILTER...]\n"
		   "       utrace list -f [--why] PROGRAM [FILTER...]\n"
		   "       utrace list -e PROGRAM [-F] [--probe DEF]... [--synthetic DEF]... [EVENT...]\n"
		   "       utrace list -e [-F] [SYSTEM:EVENT...]\n"
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
		   "                           as SYSTEM:EVENT, like trace-cmd list -e; without\n"
		   "                           PROGRAM (-e last, or before an option or a\n"
		   "                           SYSTEM:EVENT pattern): the kernel's events\n"
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

/* utrace list -e without PROGRAM: the kernel's events. */
static int list_kernel(char **patterns, int npatterns, bool format)
{
	struct utrace_error err = {0};
	unsigned printed;

	if (check_patterns(patterns, npatterns, true))
		return 2;
	if (utrace_kernel_events_list(stdout, patterns, npatterns, format, &printed, &err) < 0)
		return list_failed(&err, 1);
	if (!printed && npatterns) {
		utrace_die_msg(CMD, "no kernel event matches '%s'%s", patterns[0],
			       npatterns > 1 ? " or the other patterns" : "");
		return 1;
	}
	return flush_out();
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

/* What utrace list was asked: one of -f, -e, --usdt, and its options. */
struct list_opts {
	const char *prog, *events, *usdt;
	bool kernel; /* -e without PROGRAM: the kernel's events */
	struct list_defs defs;
	bool format, verbose, why;
	char **patterns; /* the operands after the options */
	int npatterns;
};

static const char list_shortopts[] = "+f:e:Fvh";
static const struct option list_longopts[] = {
    {"functions", required_argument, NULL, 'f'},
    {"events", required_argument, NULL, 'e'},
    {"format", no_argument, NULL, 'F'},
    {"probe", required_argument, NULL, 'P'},
    {"synthetic", required_argument, NULL, 'S'},
    {"usdt", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {"why", no_argument, NULL, 'w'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* --probe or --synthetic DEF: -1 after saying there are too many. */
static int list_def(struct list_opts *o, int c, const char *def)
{
	int *n = c == 'P' ? &o->defs.nprobes : &o->defs.nsynths;

	if (*n == 64) {
		utrace_die_msg(CMD, "--%s: at most 64", c == 'P' ? "probe" : "synthetic");
		return -1;
	}
	(c == 'P' ? o->defs.probes : o->defs.synths)[(*n)++] = def;
	return 0;
}

/* The options into o: -1 to go on, else the exit status. */
static int list_parse(int argc, char **argv, struct list_opts *o)
{
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, list_shortopts, list_longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			/* the spelling: -f --why PROGRAM */
			if (!strcmp(optarg, "--why") && optind < argc) {
				o->why = true;
				optarg = argv[optind++];
			}
			o->prog = optarg;
			break;
		case 'e':
			/* -e last, before another option or before a
			 * SYSTEM:EVENT pattern: the kernel's events
			 * (trace-cmd list -e) */
			if (optarg[0] == '-' || (strchr(optarg, ':') && !strchr(optarg, '/'))) {
				optind--;
				o->kernel = true;
			} else {
				o->events = optarg;
			}
			break;
		case 'u':
			o->usdt = optarg;
			break;
		case 'F':
			o->format = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'w':
			o->why = true;
			break;
		case 'P':
		case 'S':
			if (list_def(o, c, optarg) < 0)
				return 2;
			break;
		default:
			if (c == '?' && optopt == 'e') {
				o->kernel = true;
				break;
			}
			return utrace_opt_error(CMD, list_shortopts + 1, argv);
		}
	}
	o->patterns = argv + optind;
	o->npatterns = argc - optind;
	return -1;
}

/* What the options given cannot do together, or NULL. */
static const char *list_conflict(const struct list_opts *o)
{
	const char *one = o->usdt ? o->usdt : o->prog ? o->prog : o->events;

	if (o->kernel)
		return o->prog || o->events || o->usdt ? "give one of -f, -e and --usdt"
		       : o->defs.nprobes || o->defs.nsynths
			   ? "--probe and --synthetic list with a PROGRAM's events (-e PROGRAM)"
			   : NULL;
	return !!o->prog + !!o->events + !!o->usdt > 1 ? "give one of -f, -e and --usdt"
	       : o->why && !o->prog ? "--why tells why functions are not patched: it needs -f PROGRAM"
	       : o->verbose && !o->usdt ? "-v shows USDT sites: it needs --usdt PROGRAM"
	       : o->format && !o->events && !o->usdt
		   ? "-F shows event formats: it needs -e PROGRAM"
	       : !one ? "nothing to list: give -f PROGRAM, -e PROGRAM or --usdt PROGRAM "
			"(see 'utrace list --help')"
	       : !*one ? "empty PROGRAM"
		       : NULL;
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = {.defs = {.nprobes = 0}};
	int ret = list_parse(argc, argv, &o);
	const char *bad;

	if (ret >= 0)
		return ret;
	if ((bad = list_conflict(&o))) {
		utrace_die_msg(CMD, "%s", bad);
		return 2;
	}
	if (o.kernel)
		return list_kernel(o.patterns, o.npatterns, o.format);
	if (o.usdt)
		return list_usdt(o.usdt, o.patterns, o.npatterns, o.verbose);
	if (o.events)
		return list_events(o.events, o.patterns, o.npatterns, o.format, &o.defs);
	return list_functions(o.prog, o.patterns, o.npatterns, o.why);
}
