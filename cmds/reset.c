/* SPDX-License-Identifier: MIT */
/*
 * reset.c - `utrace reset`: remove what a recorder that was killed (kill
 * -9, a crash) left in the kernel: its tracefs instance
 * instances/utrace-<pid> and the probes of its group utrace_<pid>.  Only
 * those whose recorder is gone are touched, so a reset while another
 * recording runs is safe.  The work is lib/kernel/kernel_trace.c's; this prints
 * what was removed.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "lib/live/live.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/probes/uprobe.h"

static void reset_usage(FILE *f)
{
	fprintf(f, "usage: utrace reset\n"
		   "\n"
		   "Remove the tracefs instances (" UTRACE_KTRACE_PREFIX "PID), probes and the\n"
		   "--tracefs mounts that recorders which are no longer running left behind.\n"
		   "\n"
		   "  -h, --help  this text\n"
		   "\n"
		   "See docs/utrace-reset.md.\n");
}

static void reset_removed(void *arg, const char *what, const char *name)
{
	printf("utrace reset: removed %s %s\n", what, name);
}

static void reset_unmounted(void *arg, const char *dir)
{
	printf("utrace reset: unmounted the tracefs at %s\n", dir);
}

int cmd_reset(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_error err = {0};
	int c, n, probes, mounts;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			reset_usage(stdout);
			return 0;
		}
		utrace_die_msg("reset", "unknown option '%s' (see 'utrace reset --help')",
			       argv[optind - 1]);
		return 2;
	}
	if (optind < argc) {
		utrace_die_msg("reset", "unexpected argument '%s' (see 'utrace reset --help')",
			       argv[optind]);
		return 2;
	}
	/* tracefs mounts (record --tracefs) of recorders killed */
	mounts = utrace_live_reset(reset_unmounted, NULL, &err);
	if (mounts < 0)
		utrace_die_msg("reset", "%s", err.msg);
	n = utrace_ktrace_reset(reset_removed, NULL, &err);
	if (n < 0) {
		utrace_die_msg("reset", "%s", err.msg);
		return 1;
	}
	/* uprobes (--probe, -e usdt:) of recorders that are gone */
	probes = utrace_uprobe_remove_stale(NULL, &err);
	if (probes < 0) {
		utrace_die_msg("reset", "%s", err.msg);
		return 1;
	}
	if (probes)
		printf("utrace reset: removed %d stale uprobe event%s\n", probes,
		       probes == 1 ? "" : "s");
	n += probes + (mounts > 0 ? mounts : 0);
	if (!n)
		printf("utrace reset: nothing to remove\n");
	return 0;
}
