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

/* What utrace list was asked: one of -f, -e, --usdt, and its options. */
/* The definitions that add events to a program's for utrace list -e. */
struct list_defs {
	const char *probes[64], *synths[64];
	int nprobes, nsynths;
};

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
		case 'S': {
			int *n = c == 'P' ? &o->defs.nprobes : &o->defs.nsynths;

			if (*n == 64) {
				utrace_die_msg(CMD, "--%s: at most 64", c == 'P' ? "probe" : "synthetic");
				return 2;
			}
			(c == 'P' ? o->defs.probes : o->defs.synths)[(*n)++] = optarg;
			break;
		}
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

/* The EVENT (event) or PROBE patterns checked: 0, or 2 after saying why. */
static int check_patterns(char **patterns, int n, bool event)
{
	struct utrace_error err = {0};

	for (int i = 0; i < n; i++)
		if (utrace_prog_list_check(patterns[i], event, &err) < 0) {
			utrace_die_msg(CMD, "%s", err.msg);
			return 2;
		}
	return 0;
}

/* -f --why's count, after the list (the list's write error says nothing) */
static void list_why(const char *prog, const struct utrace_prog_list_found *r)
{
	fprintf(stderr, "utrace list: %s: %zu of %zu functions left out, %zu patched with int3\n",
		prog, r->counts.left, r->counts.found, r->counts.nint3);
}

/* The listing o asks for, from lib/: the exit status. */
static int list_run(const struct list_opts *o, const char *prog)
{
	struct utrace_prog_list ls = {.out = stdout,
				      .warn = warn,
				      .events = !o->prog,
				      .format = o->format,
				      .patterns = o->patterns,
				      .npatterns = o->npatterns};
	struct utrace_prog_list_found r = {0};
	struct utrace_error err = {0};
	unsigned printed;
	int ret, bad = -1;

	if (o->kernel)
		ret = utrace_kernel_events_list(stdout, o->patterns, o->npatterns, o->format,
						&printed, &err);
	else if (o->usdt)
		ret = utrace_prog_list_usdt(stdout, prog, o->patterns, o->npatterns, o->verbose,
					    &err);
	else if (o->events)
		ret = utrace_list_events_defs(&ls, prog, o->defs.probes, o->defs.nprobes,
					      o->defs.synths, o->defs.nsynths, &bad, &err);
	else
		ret = utrace_prog_list_functions(&ls, prog, o->patterns, o->npatterns, o->why,
						 &r, &err);
	utrace_prog_list_free(&ls);
	if (ret < 0) {
		utrace_die_msg(CMD, "%s%s", bad >= 0 ? "--synthetic: " : "", err.msg);
		if (bad >= 0 && err.column > 0)
			fprintf(stderr, "  %s\n  %*s^\n", o->defs.synths[bad], err.column - 1, "");
		return 1;
	}
	if (r.patched && o->why)
		list_why(prog, &r);
	return r.patched ? fflush(stdout) != 0 || ferror(stdout) : utrace_flush_stdout(CMD);
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = {.defs = {.nprobes = 0}};
	int ret = list_parse(argc, argv, &o);
	const char *bad, *arg = o.usdt ? o.usdt : o.events ? o.events : o.prog;
	char *prog = NULL;

	if (ret >= 0)
		return ret;
	if ((bad = list_conflict(&o))) {
		utrace_die_msg(CMD, "%s", bad);
		return 2;
	}
	if (!o.prog && check_patterns(o.patterns, o.npatterns, !o.usdt))
		return 2;
	if (!o.kernel && !(prog = utrace_program_path(arg))) {
		utrace_die_msg(CMD, "%s: %s", arg, strerror(errno));
		return 1;
	}
	ret = list_run(&o, prog);
	free(prog);
	return ret;
}
