/* SPDX-License-Identifier: MIT */
/*
 * utrace.c - the command line: dispatches to cmds/<name>.c.
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/base/nearest.h"
#include "lib/base/spawn.h"
#include "lib/tracefile/dat_reader.h"

#ifndef UTRACE_VERSION /* set by the Makefile from the file VERSION */
#define UTRACE_VERSION "unknown"
#endif

struct utrace_cmd {
	const char *name;
	const char *help;
	int (*fn)(int argc, char **argv);
};

#define UTRACE_CMD_ENTRY(n, h) {#n, h, cmd_##n},
static const struct utrace_cmd commands[] = {UTRACE_COMMANDS(UTRACE_CMD_ENTRY)};
#undef UTRACE_CMD_ENTRY

/* Is arg the command name (its '_' spelled '-')? */
static bool cmd_is(const char *arg, const char *name)
{
	for (; *arg && *name; arg++, name++)
		if (*arg != (*name == '_' ? '-' : *name))
			return false;
	return !*arg && !*name;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace COMMAND [OPTIONS] [ARGS]\n\n"
		   "Function tracing for user programs, modelled on ftrace and trace-cmd.\n\n"
		   "Commands:\n");
	int width = 8;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if ((int)strlen(commands[i].name) > width)
			width = (int)strlen(commands[i].name);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s", commands[i].name);
		for (char *p = name; (p = strchr(p, '_'));)
			*p = '-';
		fprintf(f, "  %-*s %s\n", width, name, commands[i].help);
	}
	fprintf(f, "\nRun 'utrace COMMAND --help' for a command's options,\n"
		   "'utrace --version' for the version.\n");
}

/* One line: not a command, and the nearest one when a typo is likely. */
static void unknown_command(const char *arg)
{
	enum { N = sizeof(commands) / sizeof(commands[0]) };
	char names[N][32];
	const char *cands[N], *near;

	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", commands[i].name);
		for (char *p = names[i]; (p = strchr(p, '_'));)
			*p = '-';
		cands[i] = names[i];
	}
	near = utrace_nearest(arg, cands, N, 2);
	if (near)
		fprintf(stderr, "utrace: '%s' is not a command; did you mean '%s'? (see 'utrace --help')\n",
			arg, near);
	else
		fprintf(stderr, "utrace: '%s' is not a command (see 'utrace --help')\n", arg);
}

/* UTRACE_READ_THREADS=N|auto: threads that decode a trace's buffers in
 * parallel as it is read (auto: one a core this process may use). */
static void read_threads_from_env(void)
{
	const char *v = getenv("UTRACE_READ_THREADS");
	cpu_set_t set;
	char *end;
	unsigned long n;

	if (!v || !*v)
		return;
	if (!strcmp(v, "auto")) {
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			utrace_dat_read_threads((unsigned)CPU_COUNT(&set));
		return;
	}
	n = strtoul(v, &end, 10);
	if (*end || n > 1024)
		fprintf(stderr, "utrace: UTRACE_READ_THREADS='%s' is not a number or auto: ignored\n",
			v);
	else
		utrace_dat_read_threads((unsigned)n);
}

int main(int argc, char **argv)
{
	/* before any command changes one: what the commands utrace starts
	 * get back (lib/base/spawn.h) */
	utrace_spawn_save_signals();
	/* an ignored SIGCHLD would reap our commands behind waitpid's back;
	 * they get it back ignored */
	if (utrace_spawn_signal_ignored(SIGCHLD))
		signal(SIGCHLD, SIG_DFL);
	read_threads_from_env();
	/* run as `bpftrace` (a link of that name to utrace): utrace bt, whose
	 * process is then named bpftrace, as scripts and tools expect */
	if (!strcmp(strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0], "bpftrace"))
		return cmd_bt(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version")) {
		printf("utrace %s\n", UTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (cmd_is(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	unknown_command(argv[1]);
	return 2;
}
