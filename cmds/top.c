/* SPDX-License-Identifier: MIT */
/*
 * top.c - `utrace top`: the functions that take the CPU now, refreshed
 * every few seconds, like `perf top --stdio` (the work: lib/report/top.c).
 *
 * The options fill a struct top_opts; the loop drains the sampler every
 * 100 ms (so its buffers never fill, whatever -d) and prints a screen
 * every -d seconds, until -n screens, Ctrl-C (SIGINT, SIGTERM: the loop
 * sees a flag, the screen in progress ends, everything is closed) or the
 * end of the command it started.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/base/spawn.h"
#include "lib/report/top.h"

struct top_opts {
	struct utrace_top_opts top;
	double delay;	     /* -d SECS */
	unsigned iterations; /* -n N, 0: until stopped */
	char **argv;	     /* -- COMMAND, NULL if none */
};

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace top [-F HZ] [-d SECS] [-n N] [-z] [-E N] [--stdio]\n"
		   "       utrace top [...] -p PID\n"
		   "       utrace top [...] -- COMMAND [ARGS...]\n"
		   "\n"
		   "Sample the CPU time of every task (or of one process, or of COMMAND) and\n"
		   "print the functions that take it, largest first, every SECS seconds, as\n"
		   "perf top --stdio does: Overhead, Shared Object, Symbol.  The kernel's\n"
		   "functions too where this user may see them.  Ctrl-C ends it.\n"
		   "\n"
		   "  -F, --freq HZ       samples a second of CPU time (default 999)\n"
		   "  -p, --pid PID       only the process PID (its threads)\n"
		   "  -d, --delay SECS    seconds between screens (default 2; fractions allowed)\n"
		   "  -n, --iterations N  stop after N screens (default: until Ctrl-C)\n"
		   "  -z, --zero          each screen counts its own interval only\n"
		   "  -E, --entries N     print at most N entries a screen (default 20; 0: all)\n"
		   "      --stdio         plain text screens one after the other (the only mode)\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "With a COMMAND, it ends when COMMAND does.  See man utrace-top.\n");
}

static int number(const char *opt, const char *arg, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || *out > max || arg[0] == '-') {
		utrace_die_msg("top", "%s %s: a number from 0 to %lu", opt, arg, max);
		return -1;
	}
	return 0;
}

/* One option into o; -1 on a bad value (said). */
static int top_opt(struct top_opts *o, int c, const char *arg)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'F':
		if (number("-F", arg, 100000, &v) < 0)
			return -1;
		if (!v) {
			utrace_die_msg("top", "-F 0: a frequency of at least 1 Hz");
			return -1;
		}
		o->top.freq = (unsigned)v;
		return 0;
	case 'p':
		if (number("-p", arg, 4194304, &v) < 0)
			return -1;
		if (!v) {
			utrace_die_msg("top", "-p 0: a process id");
			return -1;
		}
		o->top.pid = (pid_t)v;
		o->top.target = UTRACE_SAMPLE_PROCESS;
		return 0;
	case 'd':
		errno = 0;
		o->delay = strtod(arg, &end);
		if (!*arg || *end || errno || !(o->delay >= 0.01 && o->delay <= 3600)) {
			utrace_die_msg("top", "-d %s: seconds from 0.01 to 3600", arg);
			return -1;
		}
		return 0;
	case 'n':
		if (number("-n", arg, 1000000, &v) < 0)
			return -1;
		o->iterations = (unsigned)v;
		return 0;
	case 'E':
		if (number("-E", arg, 1000000, &v) < 0)
			return -1;
		o->top.lines = (unsigned)v;
		return 0;
	case 'z':
		o->top.zero = true;
		return 0;
	default: /* 'S': --stdio, the one mode */
		return 0;
	}
}

/* The options into o: -1 to go on, else the exit status. */
static int top_parse(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
	    {"freq", required_argument, NULL, 'F'},
	    {"pid", required_argument, NULL, 'p'},
	    {"delay", required_argument, NULL, 'd'},
	    {"iterations", required_argument, NULL, 'n'},
	    {"zero", no_argument, NULL, 'z'},
	    {"entries", required_argument, NULL, 'E'},
	    {"stdio", no_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+F:p:d:n:zE:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			utrace_die_msg("top", "%s '%s' (see 'utrace top --help')",
				       c == ':' ? "missing value for" : "unknown option",
				       argv[optind - 1]);
			return 2;
		}
		if (top_opt(o, c, optarg) < 0)
			return 2;
	}
	if (optind < argc) {
		if (o->top.target == UTRACE_SAMPLE_PROCESS) {
			utrace_die_msg("top", "-p PID or a COMMAND, not both");
			return 2;
		}
		o->argv = argv + optind;
		o->top.target = UTRACE_SAMPLE_EXEC;
	}
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Screens until -n, a signal or the command's end; 0 or 1 (said). */
static int top_loop(struct top_opts *o, struct utrace_top *t, pid_t child, bool *reaped)
{
	struct utrace_error err = {0};
	double last = now(), next = last + o->delay;
	unsigned screens = 0;
	bool done = false;
	int status;

	while (!done) {
		struct timespec nap = {0, 100 * 1000 * 1000};
		double at;

		nanosleep(&nap, NULL); /* a signal cuts it short */
		done = top_stop;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child)
			done = *reaped = true;
		if (utrace_top_drain(t, &err) < 0)
			break;
		at = now();
		if (at < next && !done)
			continue;
		if (utrace_top_print(t, at - last, stdout, &err) < 0)
			break;
		last = at;
		next = at + o->delay;
		done |= o->iterations && ++screens >= o->iterations;
	}
	if (err.msg[0]) {
		utrace_die_msg("top", "%s", err.msg);
		return 1;
	}
	return 0;
}

/* -- COMMAND: started held, sampled from its exec on. */
static int top_command(struct top_opts *o, struct utrace_top **t, struct utrace_spawn *sp,
		       struct utrace_error *err)
{
	if (utrace_spawn_held(o->argv, NULL, NULL, sp, err) < 0)
		return -1;
	o->top.pid = sp->pid;
	if (utrace_top_open(&o->top, t, err) < 0) {
		utrace_spawn_abandon(sp);
		return -1;
	}
	return utrace_spawn_release(sp, err);
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {.top = {.freq = 999, .target = UTRACE_SAMPLE_SYSTEM, .lines = 20},
			     .delay = 2};
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: the nap ends */
	struct utrace_spawn sp = {.pid = -1};
	struct utrace_error err = {0};
	struct utrace_top *t = NULL;
	char what[64];
	int ret = top_parse(argc, argv, &o);
	bool reaped = false;

	if (ret >= 0)
		return ret;
	if (o.argv)
		snprintf(what, sizeof(what), "command: %.50s", o.argv[0]);
	else if (o.top.pid)
		snprintf(what, sizeof(what), "target_pid: %d", (int)o.top.pid);
	else
		snprintf(what, sizeof(what), "all");
	o.top.what = what;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if ((o.argv ? top_command(&o, &t, &sp, &err) : utrace_top_open(&o.top, &t, &err)) < 0) {
		utrace_die_msg("top", "%s", err.msg);
		utrace_top_close(t);
		return 1;
	}
	ret = top_loop(&o, t, sp.pid, &reaped);
	utrace_top_close(t);
	if (sp.pid > 0 && !reaped) { /* stopped before the command ended */
		kill(sp.pid, SIGTERM);
		waitpid(sp.pid, NULL, 0);
	}
	return ret;
}
