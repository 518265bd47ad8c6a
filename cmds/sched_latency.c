/* SPDX-License-Identifier: MIT */
/*
 * sched_latency.c - `utrace sched-latency [-p] -- COMMAND`: perf sched
 * latency for one command.  Records COMMAND with the kernel's sched
 * events and the hist triggers and synthetic event that turn them into
 * wakeup-to-run delays in the recorder (lib/report/sched_latency.h lists
 * them), into a temporary utrace.dat (or -o FILE), then prints perf's
 * table after the command's own output.
 *
 * As for record, the command's stdout, stderr and exit status (or the
 * signal that ended it) are passed on unchanged.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/kernel/kernel_tracefs.h"
#include "lib/hist/hist.h"
#include "lib/session/session.h"
#include "lib/report/sched_latency.h"
#include "lib/tracefile/dat_reader.h"

#define CMD "sched-latency"
#define SL_MAX_SPECS 8

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utrace sched-latency [OPTIONS] [--] COMMAND [ARGS...]\n"
		"\n"
		"Run COMMAND with the kernel's scheduler events and print, after it ends,\n"
		"how long each of its tasks waited to run once woken (or preempted), as\n"
		"perf sched latency does.  The delays are made while recording by hist\n"
		"triggers and a synthetic event (wakeup_latency) on sched_waking and\n"
		"sched_switch.  Needs root (tracefs).\n"
		"\n"
		"  -p, --pids         one row per task (default: per command name)\n"
		"  -o, --output FILE  keep the recording in FILE (utrace report --hist reads it)\n"
		"  -h, --help         this text\n"
		"\n"
		"The exit status is COMMAND's.  See man utrace-sched-latency.\n");
}

/* What the options set. */
struct sched_latency_args {
	struct utrace_sched_lat_opts print;
	const char *output; /* -o, NULL: a temporary file */
	char **argv;
};

/* Fills a from the command line; -1 to go on, else the exit status. */
static int sched_latency_parse(int argc, char **argv, struct sched_latency_args *a)
{
	static const struct option longopts[] = {
	    {"pids", no_argument, NULL, 'p'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0; /* our own one-line messages */
	while ((c = utrace_getopt(argc, argv, "+po:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			a->print.per_pid = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (c == '?' && optopt == 'o')
				utrace_die_msg(CMD, "-o needs an argument (see 'utrace %s --help')",
					       CMD);
			else
				utrace_die_msg(CMD, "unknown option '%s' (see 'utrace %s --help')",
					       argv[optind - 1], CMD);
			return 2;
		}
	}
	if (optind >= argc) {
		utrace_die_msg(CMD, "no command to run (usage: utrace %s -- COMMAND)", CMD);
		return 2;
	}
	a->argv = argv + optind;
	return -1;
}

/* The -e/-R of lib/report/sched_latency.c, one spec per event. */
static unsigned sched_latency_specs(struct utrace_event_spec *specs, const char **trig,
				    struct utrace_trigger **parsed)
{
	const struct utrace_sched_lat_spec *s = utrace_sched_latency_specs();
	unsigned n = 0, k = 0;

	for (; s->event && k < SL_MAX_SPECS; s++, k++) {
		if (!n || strcmp(specs[n - 1].pattern, s->event))
			specs[n++] = (struct utrace_event_spec){
			    .pattern = s->event, .triggers = &trig[k], .trigs = &parsed[k],
			    .exclude = !s->record};
		trig[k] = s->trigger;
		specs[n - 1].nr_triggers += s->trigger != NULL;
	}
	return n;
}

/* The table comes from the kernel's sched events: without them say so
 * in this command's words (record's would name an -e the user never
 * typed).  0, or 1 after saying why. */
static int sched_latency_access(void)
{
	const char *root = utrace_tracefs_root();
	char path[PATH_MAX];

	if (root && !access(utrace_tracefs_path(path, root, "events/sched/sched_waking"), R_OK))
		return 0;
	if (!root)
		utrace_die_msg(CMD, "needs the kernel's sched events, and tracefs is not mounted "
				    "(run as root: utrace mounts it)");
	else
		utrace_die_msg(CMD, "needs the kernel's sched events (%s: %s)%s", path,
			       strerror(errno), errno == EACCES ? ": run as root" : "");
	return 1;
}

/* Reads the recording and prints the table.  0, or 1. */
static int sched_latency_report(const char *path, const struct utrace_sched_lat_opts *o)
{
	struct utrace_error err = {0};
	struct utrace_dat *d;
	int ret = utrace_dat_open(path, &d, &err);

	if (ret == 0) {
		fflush(stdout); /* after everything the command wrote, as perf prints it */
		ret = utrace_sched_latency_print(d, o, stdout, &err);
		utrace_dat_close(d);
	}
	if (ret < 0)
		utrace_die_msg(CMD, "%s", err.msg);
	else if (fflush(stdout) == EOF)
		ret = -1;
	return ret < 0;
}

int cmd_sched_latency(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR"), *trig[SL_MAX_SPECS];
	struct utrace_trigger *parsed[SL_MAX_SPECS] = {0}; /* each trig[k] once parsed */
	const char *synth[] = {UTRACE_SCHED_LAT_SYNTH};
	struct utrace_event_spec specs[SL_MAX_SPECS];
	char tmp[PATH_MAX];
	struct sched_latency_args a = {0};
	struct utrace_session_opts o = {
	    .rec = {.tracer = UTRACE_TRACER_NOP, .buffer_kb = UTRACE_SESSION_BUFFER_KB},
	    .quiet = true,
	    .log = stderr,
	};
	int ret = sched_latency_parse(argc, argv, &a), fd = -1, status = 0;

	if (ret < 0 && sched_latency_access())
		return 1;
	snprintf(tmp, sizeof(tmp), "%s/utrace-sched-latency-XXXXXX.dat",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (ret < 0 && !a.output && (fd = mkstemps(tmp, 4)) < 0) {
		utrace_die_msg(CMD, "cannot create a temporary file %s: %s", tmp, strerror(errno));
		ret = 1;
	}
	if (ret < 0) {
		o.specs = specs;
		o.nspecs = sched_latency_specs(specs, trig, parsed);
		o.synth_defs = synth;
		o.nsynth = 1;
		o.argv = a.argv;
		o.children = true; /* its threads and children from their start */
		o.rec.output = a.output ? a.output : tmp;
		ret = record_run(&o, &status);
		if (ret == UTRACE_SESSION_RAN && sched_latency_report(o.rec.output, &a.print))
			ret = 1;
	}
	for (unsigned k = 0; k < SL_MAX_SPECS; k++)
		utrace_trigger_free(parsed[k]);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	/* end as the command ended, once the table is out */
	return ret == UTRACE_SESSION_RAN ? utrace_exit_like(status) : ret;
}
