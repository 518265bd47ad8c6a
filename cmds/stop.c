/* SPDX-License-Identifier: MIT */
/*
 * stop.c - `utrace stop` and `utrace restart`: trace-cmd's, over the
 * session of utrace start (lib/session/session_folder.h): tracing_on 0 or 1 in the
 * running processes (they go on; nothing is unpatched).  One file for the
 * two, since each is the other's undo and they share everything but the
 * value.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/session/session_folder.h"

static void onoff_usage(FILE *f, const char *cmd, int on)
{
	fprintf(f,
		"usage: utrace %s [--tracefs DIR]\n"
		"\n"
		"%s the traced threads of the utrace start session %s records\n"
		"(tracing_on %d; trace-cmd %s).  The program runs on.\n"
		"\n"
		"      --tracefs DIR  the session served at DIR (default: the one utrace start made)\n"
		"  -h, --help         this text\n"
		"\n"
		"See man utrace-%s.\n",
		cmd, on ? "Let" : "Stop", on ? "write" : "writing", on, cmd, cmd);
}

static int onoff(const char *cmd, int on, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"tracefs", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = NULL;
	struct utrace_session_folder s;
	struct utrace_error err = {0};
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			onoff_usage(stdout, cmd, on);
			return 0;
		}
		if (c == 'M') {
			dir = optarg;
			continue;
		}
		utrace_die_msg(cmd, "unknown option '%s' (see 'utrace %s --help')", argv[optind - 1],
			       cmd);
		return 2;
	}
	if (optind < argc) {
		utrace_die_msg(cmd, "unexpected argument '%s' (see 'utrace %s --help')", argv[optind],
			       cmd);
		return 2;
	}
	if (utrace_session_folder_find(dir, &s, &err) <= 0 ||
	    utrace_session_write(&s, "tracing_on", on ? "1\n" : "0\n", &err) < 0) {
		utrace_die_msg(cmd, "%s", err.msg);
		return 1;
	}
	return 0;
}

int cmd_stop(int argc, char **argv)
{
	return onoff("stop", 0, argc, argv);
}

int cmd_restart(int argc, char **argv)
{
	return onoff("restart", 1, argc, argv);
}
