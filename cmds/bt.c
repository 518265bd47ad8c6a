/* SPDX-License-Identifier: MIT */
/*
 * bt.c - `utrace bt`: bpftrace's language on utrace's probes, with
 * bpftrace's command line (-e PROGRAM or a script file, -c CMD or -- CMD,
 * -p PID, -l [PATTERN], -f text|json, -o FILE, -v, -d).  Options fill a
 * struct; lib/bt runs the program (lib/bt/bt.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmds/cmds.h"
#include "lib/bt/bt.h"

struct bt_cmd {
	struct utrace_bt_opts o;
	const char *cmd;    /* -c CMD: split at blanks */
	const char *output; /* -o FILE */
	const char *script;
	bool list;
	const char *pattern; /* -l's */
	char *text; /* the script's contents */
	char **argv;
	char **params; /* the positional parameters */
	char **includes, **dirs; /* --include FILE, -I DIR (argv's strings) */
};

static void bt_usage(FILE *f)
{
	fprintf(f, "USAGE:\n"
		   "    utrace bt [options] -e 'PROGRAM' [PARAM...] [-c CMD | -p PID | -- CMD [ARGS...]]\n"
		   "    utrace bt [options] FILE [-c CMD | -p PID] [PARAM...]\n"
		   "    utrace bt [options] - <stdin input>\n"
		   "    utrace bt -l [PATTERN]\n"
		   "\n"
		   "Runs a bpftrace program on utrace's probes in the traced program.\n"
		   "\n"
		   "  -e PROGRAM      the program's text\n"
		   "  -c CMD          run CMD (split at blanks) and trace it\n"
		   "  -p PID          trace the running process PID\n"
		   "  -l [PATTERN]    list the probes of the programs named by PATTERN\n"
		   "                  (uprobe:BIN:FUNC globs)\n"
		   "  -f FORMAT       output format: text (the default) or json\n"
		   "  -o FILE         write the program's output to FILE\n"
		   "  -v              say which mechanism serves each probe\n"
		   "  -q              quiet: no \"Attaching N probes...\" line\n"
		   "  -k              warn when delete() finds no element (twice: a map read too)\n"
		   "  -d              print the compiled programs and run nothing\n"
		   "  -I DIR          search DIR first for the program's #include headers\n"
		   "      --include FILE\n"
		   "                  read the macros of header FILE, as an #include of it\n"
		   "      --unsafe    allow system()\n"
		   "      --usdt-file-activation\n"
		   "                  usdt probes in the processes running their file\n"
		   "  -V, --version   utrace bt's version, and bpftrace's that it follows\n"
		   "      --info      what serves bpftrace's map and probe types here\n"
		   "  -h, --help      this text\n"
		   "\n"
		   "See man utrace-bt.\n");
}

#ifndef UTRACE_VERSION /* set by the Makefile from the file VERSION */
#define UTRACE_VERSION "unknown"
#endif
#define BT_FOLLOWS "v0.17.0" /* the bpftrace whose language and output utrace bt follows */

/* --info: bpftrace's "System" and "Build" sections, then lib/bt's report. */
static void bt_info(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		printf("System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname, u.release, u.version,
		       u.machine);
	printf("Build\n  version: utrace bt %s (the language of bpftrace %s)\n  LLVM: none "
	       "(no BPF: the program is compiled into utrace's bytecode)\n\n",
	       UTRACE_VERSION, BT_FOLLOWS);
	utrace_bt_info(stdout);
}

static char *read_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin; /* bpftrace's `-` */
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while (m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (m)
		fclose(m);
	if (f != stdin)
		fclose(f);
	return buf;
}

/* -c CMD as bpftrace splits it: at blanks. */
static char **split_cmd(const char *cmd)
{
	char *copy = strdup(cmd), *save = NULL;
	char **argv = calloc(strlen(cmd) / 2 + 2, sizeof(*argv));
	unsigned n = 0;

	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	return argv;
}

/* -p PID, bpftrace's checks and errors. */
static int bt_pid(struct bt_cmd *b, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end) {
		fprintf(stderr, "ERROR: pid '%s' is not a valid decimal number\n", arg);
		return 1;
	}
	if (v < 1 || v > 4194304) {
		fprintf(stderr, "ERROR: pid '%s' out of valid pid range [1,4194304]\n", arg);
		return 1;
	}
	b->o.pid = (int)v;
	return 0;
}

static int bt_opt(struct bt_cmd *b, int c, const char *arg)
{
	switch (c) {
	case 'e': b->o.text = arg; return 0;
	case 'c': b->cmd = arg; return 0;
	case 'p': return bt_pid(b, arg);
	case 'l': b->list = true; return 0;
	case 'f':
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			fprintf(stderr, "ERROR: Invalid output format \"%s\"\n", arg);
			return 1;
		}
		b->o.fmt = arg[0] == 'j' ? UTRACE_BT_JSON : UTRACE_BT_TEXT;
		return 0;
	case 'o': b->output = arg; return 0;
	case 'v': b->o.verbose = true; return 0;
	case 'q': b->o.quiet = true; return 0;
	case 'k': b->o.helper_check++; return 0;
	case 'd': b->o.dump = true; return 0;
	case 'U': b->o.unsafe = true; return 0;
	case 'A': b->o.usdt_file_activation = true; return 0;
	case 'h': bt_usage(stdout); return -1;
	case 'V': printf("utrace bt %s (the language of bpftrace %s)\n", UTRACE_VERSION, BT_FOLLOWS);
		  return -1;
	case 'n': bt_info(); return -1;
	case 'I': b->dirs[b->o.ninclude_dirs++] = (char *)arg; return 0;
	case 'H': b->includes[b->o.nincludes++] = (char *)arg; return 0;
	default: return 2;
	}
}

static int bt_parse_args(int argc, char **argv, struct bt_cmd *b)
{
	static const struct option longopts[] = {
	    {"unsafe", no_argument, NULL, 'U'},
	    {"usdt-file-activation", no_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {"info", no_argument, NULL, 'n'},
	    {"include", required_argument, NULL, 'H'},
	    {NULL, 0, NULL, 0},
	};
	static const char shortopts[] = "+e:c:p:lf:o:vqkdhVI:";
	int c, ret;

	opterr = 0;
	if (!(b->params = calloc((size_t)argc + 1, sizeof(*b->params))) ||
	    !(b->includes = calloc((size_t)argc + 1, sizeof(*b->includes))) ||
	    !(b->dirs = calloc((size_t)argc + 1, sizeof(*b->dirs))))
		return 1;
	b->o.params = b->params;
	b->o.includes = b->includes;
	b->o.include_dirs = b->dirs;
	for (;;) {
		while ((c = utrace_getopt(argc, argv, shortopts, longopts, NULL)) != -1) {
			if (c == '?' || c == ':') {
				ret = utrace_opt_error("bt", shortopts, argv);
				/* the usage, as bpftrace gives it, on stdout: the
				 * error stays one line, as every command's */
				bt_usage(stdout);
				return ret;
			}
			if ((ret = bt_opt(b, c, optarg)) != 0)
				return ret;
		}
		/* the script, positional parameters ($1 ...), more options
		 * (bpftrace's `FILE -c CMD`); after --, the command */
		if (b->list && !b->pattern && optind < argc && strcmp(argv[optind - 1], "--")) {
			b->pattern = argv[optind++]; /* -l PATTERN -p PID */
			continue;
		}
		if (b->list || optind >= argc || !strcmp(argv[optind - 1], "--"))
			break;
		if (b->o.text || b->script)
			b->params[b->o.nparams++] = argv[optind++];
		else
			b->script = argv[optind++];
	}
	if (b->list)
		return 0;
	if (optind < argc) {
		if (b->cmd) {
			utrace_die_msg("bt", "-c and a command after -- both given");
			return 2;
		}
		b->o.argv = argv + optind;
	}
	if (!b->o.text && !b->script) {
		utrace_die_msg("bt", "no program: -e 'PROGRAM' or a script file (see 'utrace bt "
				     "--help')");
		return 2;
	}
	if (b->o.pid && (b->cmd || b->o.argv)) {
		utrace_die_msg("bt", "-p and a command both given");
		return 2;
	}
	return 0;
}

static int bt_setup(struct bt_cmd *b)
{
	if (b->script) {
		b->text = read_file(b->script);
		if (!b->text) {
			fprintf(stderr, "ERROR: failed to open file '%s': %s\n", b->script,
				strerror(errno));
			return 1;
		}
		b->o.text = b->text;
		b->o.name = b->script;
	}
	if (b->cmd && !(b->argv = split_cmd(b->cmd)))
		return 1;
	if (b->cmd)
		b->o.argv = b->argv;
	if (b->output && !(b->o.out = fopen(b->output, "w"))) {
		utrace_die_msg("bt", "%s: %s", b->output, strerror(errno));
		return 1;
	}
	return 0;
}

int cmd_bt(int argc, char **argv)
{
	struct bt_cmd b = {.o = {.out = stdout, .term = stdout, .log = stderr, .name = "stdin"}};
	struct utrace_error err = {0};
	int ret = bt_parse_args(argc, argv, &b);

	if (ret) {
		free(b.params);
		free(b.includes);
		free(b.dirs);
		return ret < 0 ? 0 : ret;
	}
	if (b.list) {
		ret = utrace_bt_list_pid(b.pattern ? b.pattern : optind < argc ? argv[optind] : NULL,
					 b.o.pid, b.o.verbose, stdout, &err);
		if (ret < 0 && strstr(err.msg, ": ERROR: ")) /* bpftrace's lines */
			fprintf(stderr, "%s\n", err.msg);
		else if (ret < 0)
			utrace_die_msg("bt", "%s", err.msg);
		return ret < 0 ? 1 : utrace_flush_stdout("bt");
	}
	ret = bt_setup(&b);
	if (!ret) {
		ret = utrace_bt_run(&b.o, &err);
		if (ret && err.msg[0])
			fprintf(stderr, "%s%s\n",
				strstr(err.msg, ": ERROR: ") || strstr(err.msg, ": fatal error: ")
					? ""
					: "ERROR: ",
				err.msg);
	}
	if (b.o.out && b.o.out != stdout)
		fclose(b.o.out);
	if (b.argv)
		free(b.argv[0]);
	free(b.argv);
	free(b.params);
	free(b.includes);
	free(b.dirs);
	free(b.text);
	return ret ? ret : utrace_flush_stdout("bt");
}
