/* SPDX-License-Identifier: MIT */
/*
 * extract.c - `utrace extract -o FILE`: trace-cmd extract over the
 * session of utrace start (lib/session/session_folder.h): what its buffers hold, saved
 * as a utrace.dat that report and convert read.  The recorder makes the
 * file (the mount's utrace.dat: the file so far and a copy of every
 * thread's ring, lib/record/recorder_extract.c); the buffers are not
 * consumed.  Once the session's program has ended, the buffers as they
 * were then (the session's last.dat) are what is saved.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/session/session_folder.h"
#include "lib/base/private_file.h"
#include "lib/tracefile/dat_format.h"

static void extract_usage(FILE *f)
{
	fprintf(f, "usage: utrace extract [-o FILE]\n"
		   "\n"
		   "Save what the buffers of the utrace start session hold as a utrace.dat\n"
		   "(trace-cmd extract); the session goes on.\n"
		   "\n"
		   "  -o, --output FILE  the file (default utrace.dat)\n"
		   "      --tracefs DIR  the session served at DIR (default: utrace start's)\n"
		   "  -h, --help         this text\n"
		   "\n"
		   "See man utrace-extract.\n");
}

/* The recording into output, through a temporary file renamed at the
 * end, so that a failure leaves no half file. */
static int extract_copy(struct utrace_session_folder *s, const char *from, const char *output)
{
	struct utrace_error err = {0};
	char tmp[PATH_MAX + 16];
	FILE *out = NULL;
	int ret, fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", output);
	/* 0600 as utrace.dat; never through a link planted at the name */
	if ((fd = utrace_create_private(tmp, O_NOFOLLOW)) >= 0 && !(out = fdopen(fd, "w")))
		close(fd);
	if (!out) {
		utrace_die_msg("extract", "%s: %s", tmp, strerror(errno));
		return 1;
	}
	ret = utrace_session_cat(s, from, out, &err) < 0;
	if (ret)
		utrace_die_msg("extract", "%s", err.msg);
	if (fclose(out) == EOF && !ret) {
		utrace_die_msg("extract", "%s: %s", tmp, strerror(errno));
		ret = 1;
	}
	if (!ret && rename(tmp, output) < 0) {
		utrace_die_msg("extract", "%s: %s", output, strerror(errno));
		ret = 1;
	}
	if (ret)
		unlink(tmp);
	return ret;
}

int cmd_extract(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"tracefs", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *output = UTRACE_DAT_DEFAULT, *dir = NULL;
	struct utrace_session_folder s;
	struct utrace_error err = {0};
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+o:h", longopts, NULL)) != -1) {
		if (c == 'o') {
			output = optarg;
		} else if (c == 'M') {
			dir = optarg;
		} else if (c == 'h') {
			extract_usage(stdout);
			return 0;
		} else {
			return utrace_opt_error("extract", "o:h", argv);
		}
	}
	if (optind < argc) {
		utrace_die_msg("extract", "unexpected argument '%s' (see 'utrace extract --help')",
			       argv[optind]);
		return 2;
	}
	if (utrace_session_folder_open(&s, &err) < 0) {
		utrace_die_msg("extract", "%s", err.msg);
		return 1;
	}
	if (utrace_session_folder_find(dir, &s, &err) > 0) /* the recorder makes the file */
		return extract_copy(&s, UTRACE_DAT_DEFAULT, output);
	if (!dir) {
		/* the session's program has ended: its buffers as they were
		 * then, the file the recorder finished */
		char last[PATH_MAX + 16];

		utrace_session_folder_path(&s, "last.dat", last, sizeof(last));
		if (access(last, R_OK) == 0) {
			snprintf(s.tracefs, sizeof(s.tracefs), "%s", s.dir);
			return extract_copy(&s, "last.dat", output);
		}
	}
	utrace_session_folder_find(dir, &s, &err); /* says there is none */
	utrace_die_msg("extract", "%s", err.msg);
	return 1;
}
