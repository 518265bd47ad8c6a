/* SPDX-License-Identifier: MIT */
/*
 * reset.c - `utrace reset`: end the session of utrace start, as
 * trace-cmd reset ends the kernel's tracing (tracing off, the buffers
 * freed, the mount gone; the program runs on untraced: its recorder
 * stops it writing records and lets it go, lib/session/session_folder.c), and remove
 * what a recorder that was killed (kill -9, a crash) left in the kernel:
 * its tracefs instance
 * instances/utrace-<pid> and the probes of its group utrace_<pid>.  Only
 * those whose recorder is gone are touched, so a reset while another
 * recording runs is safe.  The work is lib/kernel/kernel_trace.c's; this prints
 * what was removed.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/session/session_folder.h"
#include "lib/tracefs/live.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/probes/uprobe.h"

static void reset_usage(FILE *f)
{
	fprintf(f, "usage: utrace reset\n"
		   "\n"
		   "End the utrace start session (tracing off, its buffers freed, its tracefs\n"
		   "unmounted; the program runs on untraced), and remove the tracefs instances\n"
		   "(" UTRACE_KTRACE_PREFIX "PID), probes and the --tracefs mounts that\n"
		   "recorders which are no longer running left behind.\n"
		   "\n"
		   "  -h, --help  this text\n"
		   "\n"
		   "See man utrace-reset.\n");
}

static void reset_removed(void *arg, const char *what, const char *name)
{
	printf("utrace reset: removed %s %s\n", what, name);
}

static void reset_unmounted(void *arg, const char *dir)
{
	printf("utrace reset: unmounted the tracefs at %s\n", dir);
}

/* The utrace start session, ended; its buffers (or an ended session's)
 * freed.  How many: 0 or 1; -1 (said) if the session directory is not
 * ours to use. */
static int reset_session(void)
{
	char last[PATH_MAX + 16], file[PATH_MAX + 16];
	struct utrace_session_folder s;
	struct utrace_error err = {0};
	bool running;

	if (utrace_session_folder_open(&s, &err) < 0) {
		utrace_die_msg("reset", "%s", err.msg);
		return -1;
	}
	running = utrace_session_folder_find(NULL, &s, &err) > 0;

	utrace_session_folder_path(&s, "last.dat", last, sizeof(last));
	utrace_session_folder_path(&s, "session", file, sizeof(file));
	if (!running && access(last, F_OK) != 0) {
		/* a recorder that was killed: its files (the mount is
		 * utrace_live_reset's) */
		if (access(file, F_OK) == 0)
			utrace_session_end(&s, false);
		return 0;
	}
	if (utrace_session_end(&s, running))
		printf("utrace reset: ended the utrace start session (recorder %d, tracefs at %s)\n",
		       (int)s.pid, s.tracefs);
	else
		printf("utrace reset: freed the buffers of the ended utrace start session\n");
	return 1;
}

int cmd_reset(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct utrace_error err = {0};
	int c, n, probes, mounts, ended, status = 0;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+h", longopts, NULL)) != -1) {
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
	/* a session directory not ours is left alone (said); what the
	 * kernel holds is cleaned up all the same */
	if ((ended = reset_session()) < 0)
		status = 1;
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
	n += probes + (mounts > 0 ? mounts : 0) + (ended > 0 ? ended : 0);
	if (!n && !status)
		printf("utrace reset: nothing to remove\n");
	return status;
}
