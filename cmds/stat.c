/* SPDX-License-Identifier: MIT */
/*
 * stat.c - "utrace stat [-e EVENTS] [-r N] -- COMMAND": runs a command
 * with perf events counted on it and prints the counts like perf stat.
 *
 * lib/perf/perf_counter.c forks, counts and reaps one run; lib/perf/stat_print.c
 * averages the runs and prints perf stat's report, on standard error as
 * perf does (or into -o FILE).  utrace stat then ends the way the command
 * ended: its exit status, or its signal raised again.  An interrupt
 * (SIGINT, SIGTERM, SIGQUIT) reaches the command, which is still reaped
 * and reported; no further repeat is started.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds/cmds.h"
#include "lib/base/error.h"
#include "lib/perf/perf_counter.h"
#include "lib/perf/stat_print.h"

#define CMD "stat"

static volatile sig_atomic_t stat_interrupted;

static void stat_on_signal(int sig)
{
	stat_interrupted = sig;
}

static void stat_usage(FILE *f)
{
	fprintf(f, "usage: utrace stat [-e EVENTS]... [-r N] [-o FILE] [--] COMMAND [ARGS...]\n"
		   "\n"
		   "Runs COMMAND and prints how many times perf events happened in it and\n"
		   "in the processes it starts, like perf stat.\n"
		   "\n"
		   "  -e, --event EVENTS   events to count, comma separated (repeatable); perf's\n"
		   "                       names, rNNNN for a raw event, NAME:u / :k for user or\n"
		   "                       kernel mode only, {A,B} for a group.  Default,\n"
		   "                       perf's: task-clock, context-switches,\n"
		   "                       cpu-migrations, page-faults, cycles, instructions,\n"
		   "                       branches, branch-misses\n"
		   "  -r, --repeat N       run COMMAND N times; print the means and their\n"
		   "                       spread ( +- stddev of the mean %% )\n"
		   "  -o, --output FILE    write the report to FILE instead of standard error\n"
		   "      --append         append to FILE rather than truncating it\n"
		   "      --list-events    list the event names and exit\n"
		   "  -h, --help           show this help\n");
}

static void stat_list_events(FILE *f)
{
	size_t n;
	const struct utrace_perf_event_info *t = utrace_perf_event_table(&n);

	for (size_t i = 0; i < n; i++) {
		const char *kind = t[i].type == PERF_TYPE_HARDWARE   ? "Hardware event"
				   : t[i].type == PERF_TYPE_SOFTWARE ? "Software event"
								     : "Hardware cache event";

		fprintf(f, "  %-40s [%s]\n", t[i].name, kind);
	}
	fprintf(f, "  %-40s [Raw hardware event descriptor]\n", "rNNN");
}

static int stat_parse_runs(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < 1 || v > 1000000) {
		utrace_die_msg(CMD, "-r %s: the number of runs must be from 1 to 1000000", s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static enum utrace_stat_state stat_state(enum utrace_perf_state s)
{
	switch (s) {
	case UTRACE_PERF_COUNTED:
		return UTRACE_STAT_COUNTED;
	case UTRACE_PERF_NOT_COUNTED:
		return UTRACE_STAT_NOT_COUNTED;
	default:
		return UTRACE_STAT_NOT_SUPPORTED;
	}
}

/* The counters, as named after the first run opened them, into t. */
static int stat_table_setup(struct utrace_stat_table *t, const struct utrace_perf_counters *pc,
			    struct utrace_error *err)
{
	for (size_t i = 0; i < utrace_perf_counters_nr(pc); i++) {
		const char *unit = utrace_perf_counters_unit(pc, i);

		if (utrace_stat_table_add_counter(t, utrace_perf_counters_name(pc, i), unit,
						  utrace_perf_unit_scale(unit),
						  utrace_perf_counters_type(pc, i),
						  utrace_perf_counters_config(pc, i), err) < 0)
			return -1;
	}
	return 0;
}

static void stat_add_run(struct utrace_stat_table *t, const struct utrace_perf_counters *pc,
			 const struct utrace_perf_run *run)
{
	for (size_t i = 0; i < utrace_perf_counters_nr(pc); i++) {
		struct utrace_perf_count c;

		utrace_perf_counters_get(pc, i, &c);
		utrace_stat_table_add_count(t, (int)i, stat_state(c.state), c.value, c.enabled,
					    c.running);
	}
	utrace_stat_table_add_run(t, run->elapsed_ns,
				  (double)run->utime.tv_sec + (double)run->utime.tv_usec / 1e6,
				  (double)run->stime.tv_sec + (double)run->stime.tv_usec / 1e6);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"event", required_argument, NULL, 'e'},
	    {"repeat", required_argument, NULL, 'r'},
	    {"output", required_argument, NULL, 'o'},
	    {"append", no_argument, NULL, 'A'},
	    {"list-events", no_argument, NULL, 'L'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_perf_counters *pc = utrace_perf_counters_new();
	struct utrace_stat_table *t = utrace_stat_table_new();
	struct utrace_error err = {0};
	struct sigaction sa, old_int, old_term, old_quit;
	const char *output = NULL;
	FILE *out = stderr;
	bool append = false, have_events = false;
	int c, runs = 1, status = 0, ret = 1;

	if (!pc || !t) {
		utrace_die_msg(CMD, "out of memory");
		goto out;
	}
	/* counts grouped by thousands as the user's locale writes them, as
	 * perf stat does */
	setlocale(LC_NUMERIC, "");
	opterr = 0; /* one line of our own (utrace_opt_error) */
	while ((c = utrace_getopt(argc, argv, "+e:r:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (utrace_perf_counters_add(pc, optarg, &err) < 0) {
				utrace_die_msg(CMD, "-e: %s", err.msg);
				ret = 2;
				goto out;
			}
			have_events = true;
			break;
		case 'r':
			if (stat_parse_runs(optarg, &runs) < 0) {
				ret = 2;
				goto out;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'A':
			append = true;
			break;
		case 'L':
			stat_list_events(stdout);
			ret = 0;
			goto out;
		case 'h':
			stat_usage(stdout);
			ret = 0;
			goto out;
		default:
			ret = utrace_opt_error(CMD, "e:r:o:h", argv);
			goto out;
		}
	}
	if (optind >= argc) {
		utrace_die_msg(CMD, "no command to run (usage: utrace stat [OPTIONS] -- COMMAND)");
		ret = 2;
		goto out;
	}
	if (append && !output) {
		utrace_die_msg(CMD, "--append needs -o FILE");
		ret = 2;
		goto out;
	}
	if (!have_events && utrace_perf_counters_add(pc, UTRACE_PERF_DEFAULT_EVENTS, &err) < 0) {
		utrace_die_msg(CMD, "%s", err.msg);
		goto out;
	}
	if (output) {
		time_t now = time(NULL);

		out = fopen(output, append ? "a" : "w");
		if (!out) {
			utrace_die_msg(CMD, "cannot open %s: %s", output, strerror(errno));
			out = stderr;
			goto out;
		}
		fprintf(out, "# started on %s\n", ctime(&now));
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stat_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGQUIT, &sa, &old_quit);

	for (int r = 0; r < runs && !stat_interrupted; r++) {
		struct utrace_perf_run run;

		if (utrace_perf_counters_run(pc, argv + optind, &run, &err) < 0) {
			utrace_die_msg(CMD, "%s", err.msg);
			if (run.exec_errno)
				ret = run.exec_errno == ENOENT ? 127 : 126;
			goto restore;
		}
		if (r == 0 && stat_table_setup(t, pc, &err) < 0) {
			utrace_die_msg(CMD, "%s", err.msg);
			goto restore;
		}
		stat_add_run(t, pc, &run);
		status = run.status;
	}
	if (utrace_stat_table_print(t, out, argc - optind, argv + optind, &err) < 0) {
		utrace_die_msg(CMD, "%s%s%s", output ? output : "", output ? ": " : "", err.msg);
		goto restore;
	}
	ret = -1;
restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
out:
	if (out != stderr && fclose(out) == EOF && ret == -1) {
		utrace_die_msg(CMD, "%s: %s", output, strerror(errno));
		ret = 1;
	}
	utrace_perf_counters_free(pc);
	utrace_stat_table_free(t);
	if (ret == -1)
		return utrace_exit_like(status);
	return ret;
}
