/* SPDX-License-Identifier: MIT */
/*
 * cflags.c - "utrace cflags": the compiler flags that make a program
 * traceable, for use as CFLAGS += $(utrace cflags).
 *
 * The default, -fpatchable-function-entry=5, reserves a 5-byte nop at
 * every function entry and records its address in the section
 * __patchable_function_entries; it works for PIE and shared libraries
 * with gcc >= 8 and clang >= 10.  --mcount gives gcc's older scheme
 * (a nop'ed call to __fentry__ recorded in __mcount_loc), which needs a
 * non-PIE executable.  The compiler's family and version come from
 * "CC --version", run through the shell so CC may be "ccache gcc".
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/base/cc_probe.h"

#define CMD "cflags"

#define FLAGS_PATCHABLE "-fpatchable-function-entry=5"
/* Compile only: -pg at link time would pull in glibc's gprof start-up
 * (gcrt1.o: a SIGPROF timer and gmon.out), which -mnop-mcount objects
 * never call; link them with LDFLAGS_MCOUNT instead. */
#define FLAGS_MCOUNT "-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie"
#define LDFLAGS_MCOUNT "-no-pie"

static void usage(FILE *f)
{
	fprintf(f, "usage: utrace cflags [--cc CC] [--mcount] [--ldflags]\n"
		   "\n"
		   "Print the compiler flags that make a program traceable.\n"
		   "\n"
		   "  --cc CC    the compiler to check (default: $CC, else cc)\n"
		   "  --mcount   gcc's -pg/__mcount_loc scheme instead of\n"
		   "             " FLAGS_PATCHABLE " (non-PIE only); compile with\n"
		   "             these flags and link with those of --ldflags, not -pg\n"
		   "  --ldflags  print the link flags instead (none are needed but for\n"
		   "             --mcount, which links with " LDFLAGS_MCOUNT ")\n"
		   "  -h, --help show this help\n");
}

/* The directory of utrace's assembler fix (scripts/utrace-as, as gcc-as/as):
 * next to utrace in the build tree, or PREFIX/lib/utrace when installed. */
static bool find_as_dir(char *out, size_t len)
{
	static const char *const rel[] = {"/gcc-as", "/../lib/utrace/gcc-as"};

	return utrace_find_near_self(rel, 2, "as", X_OK, out, len);
}

/* " -IDIR" for <utrace/...> (a program with tracepoints): the source tree's
 * include/ from the build tree, PREFIX/include when installed; nothing for
 * the compiler's own folders, which it searches anyway. */
static void include_flag(char *out, size_t len)
{
	static const char *const rel[] = {"/../include"};
	char dir[4096];

	out[0] = '\0';
	if (!utrace_find_near_self(rel, 1, "utrace/tracepoint.h", R_OK, dir, sizeof(dir)) ||
	    !strcmp(dir, "/usr/include") || !strcmp(dir, "/usr/local/include"))
		return;
	snprintf(out, len, " -I%s", dir);
}

/* The flags, with -B DIR/ when gcc needs its records fixed, and -I for
 * utrace's headers when they are not where the compiler looks. */
static int print_flags(const char *cc, const struct utrace_cc_info *info, bool mcount)
{
	const char *flags = mcount ? FLAGS_MCOUNT : FLAGS_PATCHABLE;
	char dir[4096], inc[4200];

	include_flag(inc, sizeof(inc));
	/* gcc's __mcount_loc records never link to their function: always fixed */
	if (info->family != UTRACE_CC_GCC ||
	    (!mcount && !utrace_cc_links_one_section(cc, FLAGS_PATCHABLE))) {
		printf("%s%s\n", flags, inc);
		return 0;
	}
	if (!find_as_dir(dir, sizeof(dir))) {
		fprintf(stderr,
			"utrace %s: warning: %s writes its call-site records so that the linker "
			"can drop those of whole files (COMDAT functions), and utrace's fix, "
			"gcc-as/as, is not next to utrace: such functions are found from their "
			"symbols instead\n",
			CMD, cc);
		printf("%s%s\n", flags, inc);
		return 0;
	}
	printf("%s -B%s/%s\n", flags, dir, inc);
	return 0;
}

int cmd_cflags(int argc, char **argv)
{
	const char *cc = NULL;
	struct utrace_cc_info info;
	bool mcount = false, ldflags = false;

	static const struct option longopts[] = {
	    {"cc", required_argument, NULL, 'c'},
	    {"mcount", no_argument, NULL, 'm'},
	    {"ldflags", no_argument, NULL, 'l'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = utrace_getopt(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'm') {
			mcount = true;
		} else if (c == 'l') {
			ldflags = true;
		} else if (c == 'c') {
			cc = optarg;
		} else {
			return utrace_opt_error(CMD, "h", argv);
		}
	}
	if (optind < argc) {
		utrace_die_msg(CMD, "unexpected argument '%s' (see 'utrace cflags --help')",
			       argv[optind]);
		return 2;
	}
	if (!cc || !*cc)
		cc = getenv("CC");
	if (!cc || !*cc)
		cc = "cc";
	if (utrace_cc_probe(cc, &info) < 0) {
		utrace_die_msg(CMD, "cannot run '%s --version': is %s a C compiler?", cc, cc);
		return 1;
	}
	if (mcount) {
		if (info.family == UTRACE_CC_CLANG) {
			utrace_die_msg(CMD,
				       "--mcount needs gcc: clang (%s) has no -mnop-mcount; "
				       "use the default " FLAGS_PATCHABLE,
				       cc);
			return 1;
		}
		if (info.family != UTRACE_CC_GCC) {
			utrace_die_msg(CMD, "--mcount needs gcc, and '%s' is not gcc", cc);
			return 1;
		}
		if (info.major && info.major < 5) {
			utrace_die_msg(CMD, "%s is gcc %d: --mcount needs gcc >= 5", cc,
				       info.major);
			return 1;
		}
		if (ldflags) {
			puts(LDFLAGS_MCOUNT);
			return 0;
		}
		return print_flags(cc, &info, true);
	}
	if (info.family == UTRACE_CC_GCC && info.major && info.major < 8) {
		utrace_die_msg(CMD, "%s is gcc %d: " FLAGS_PATCHABLE " needs gcc >= 8", cc,
			       info.major);
		return 1;
	}
	if (info.family == UTRACE_CC_CLANG && info.major && info.major < 10) {
		utrace_die_msg(CMD, "%s is clang %d: " FLAGS_PATCHABLE " needs clang >= 10", cc,
			       info.major);
		return 1;
	}
	if (ldflags) {
		puts("");
		return 0;
	}
	return print_flags(cc, &info, false);
}
