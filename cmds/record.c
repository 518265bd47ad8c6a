/* SPDX-License-Identifier: MIT */
/*
 * record.c - `utrace record`: its options, parsed into a struct
 * utrace_session_opts (lib/session/session.h), and the recording run
 * through lib/session; start and stream take the same options
 * (record_parse, record_run: cmds/cmds.h).
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/session/session.h"

/* The command whose options are parsed (utrace start and stream take
 * record's), for the messages. */
static const char *record_name = "record";

static void record_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: utrace record [OPTIONS] [--] COMMAND [ARGS...]\n"
	    "       utrace record [OPTIONS] -P PID [-P PID]... [--duration SEC]\n"
	    "\n"
	    "Run COMMAND with its functions traced, and write utrace.dat.  Built with the\n"
	    "flags of `utrace cflags`, its call sites are patched; built without, its\n"
	    "function entries (found from its symbols) and its library calls.\n"
	    "\n"
	    "  -p, --tracer NAME        nop, function or function_graph (default)\n"
	    "  -l, --filter GLOB        trace only matching functions (set_ftrace_filter);\n"
	    "                           repeatable; !GLOB removes; GLOB:mod:LIB limits to a "
	    "library\n"
	    "  -n, --notrace GLOB       never trace matching functions (set_ftrace_notrace)\n"
	    "  -g, --graph GLOB         graph only below matching functions (set_graph_function);\n"
	    "                           -g followed by another option or --: with -F, the\n"
	    "                           call graph of each sample (perf record -g, --call-graph fp)\n"
	    "      --graph-notrace GLOB hide matching functions and their callees "
	    "(set_graph_notrace)\n"
	    "      --max-graph-depth N  do not trace deeper than N levels (max_graph_depth)\n"
	    "      --thresh USEC        only record calls of at least USEC microseconds "
	    "(tracing_thresh)\n"
	    "  -e, --event EVENT        enable static tracepoints: SYSTEM:EVENT, SYSTEM, EVENT\n"
	    "                           or all (globs allowed); repeatable\n"
	    "                           a SYSTEM of the kernel's (tracefs events/, e.g.\n"
	    "                           sched:sched_switch, syscalls) records kernel events\n"
	    "  -f, --filter-event EXPR  filter for the preceding -e, in the kernel's event\n"
	    "                           filter syntax, e.g. 'count > 5 && word ~ \"a*\"'\n"
	    "  -R, --trigger TRIGGER    a trigger of the preceding -e, in the kernel's syntax:\n"
	    "                           'hist:keys=len:vals=count:sort=hitcount.descending'\n"
	    "                           (utrace report --hist prints the histograms),\n"
	    "                           'snapshot:1 if id == 3' (utrace report --snapshot),\n"
	    "                           'stacktrace', 'traceoff', 'enable_event:SYS:EVENT', ...\n"
	    "  -v                       the -e after it are not recorded, their -R triggers\n"
	    "                           run (trace-cmd's -v; the kernel's soft enable)\n"
	    "      --synthetic DEF      a synthetic event, kernel syntax: 'req_lat u64 lat; int id'\n"
	    "                           (-e synthetic:req_lat; an -R onmatch() action fires it)\n"
	    "  -c, --children           kernel events: of the processes COMMAND starts too\n"
	    "  -a, --system-wide        kernel events: of every process, not only COMMAND's\n"
	    "      --probe DEF          a uprobe, kernel syntax: 'p:[GRP/]EVENT PATH:SYMBOL[+OFF]\n"
	    "                           [FETCHARGS]' or 'r:... $retval' (man utrace-probes);\n"
	    "                           without PATH: run in-process: 'p:EV SYM[+OFF] ARGS',\n"
	    "                           'r:EV SYM', 'f:EV SYM[%%return]', '-:EV'\n"
	    "                           (-e usdt:PROVIDER:NAME attaches a USDT probe of COMMAND)\n"
	    "  -F, --freq HZ            also sample the command's CPU time HZ times a second\n"
	    "                           (perf_event_open cpu-clock, like perf record -F); the\n"
	    "                           kernel too where this user may see it (-e cpu-clock:u:\n"
	    "                           user space only, perf's :u)\n"
	    "      --call-graph MODE    with -F: the stack of each sample; fp: by frame pointers;\n"
	    "                           dwarf[,SIZE]: a copy of SIZE bytes of the user stack\n"
	    "                           (default 8192) and the registers, unwound at report\n"
	    "                           time by the files' CFI (for code without frame pointers)\n"
	    "      --off-cpu            with -F: also the time threads spend switched out\n"
	    "                           (blocked, sleeping), at their user stack: perf record\n"
	    "                           --off-cpu's offcpu-time samples\n"
	    "  -T, --tid TID            only trace thread TID (repeatable, up to 15)\n"
	    "  -b, --buffer-kb KB       per-thread buffer size (default %d)\n"
	    "      --no-loss            a thread whose buffer is full waits for the recorder\n"
	    "                           (default): every record is saved, a program faster\n"
	    "                           than the disk is slowed down to its pace\n"
	    "      --drop               a thread whose buffer is full drops records and counts\n"
	    "                           them (the kernel's default): never slowed, may lose\n"
	    "      --overwrite          flight recorder: keep the newest records, drop the oldest\n"
	    "      --libcall            also trace the calls into shared libraries, through\n"
	    "                           the PLT, with their names (the default, as uftrace)\n"
	    "      --no-libcall         the program's own functions only\n"
	    "  -O, --option OPT         funcgraph-args: the arguments of functions with\n"
	    "                           parameters (DWARF); funcgraph-retval: return values\n"
	    "  -o, --output FILE        output file (default utrace.dat)\n"
	    "  -P, --pid PID            attach to a running process (a thread's id: that thread\n"
	    "                           only) instead of running COMMAND; repeatable; detach\n"
	    "                           at Ctrl-C, --duration or its exit, every byte put back\n"
	    "      --duration SEC       with -P: detach after SEC seconds (e.g. 0.5)\n"
	    "      --follow-daemons     go on recording the daemons COMMAND started (processes\n"
	    "                           that left its session, as gpg-agent, ssh-agent, tmux\n"
	    "                           do) until they exit; by default the recording ends\n"
	    "                           with COMMAND and they run on untraced\n"
	    "      --dump-on-crash[=N|=all]\n"
	    "                           when COMMAND dies of SIGSEGV, SIGBUS, SIGILL, SIGFPE\n"
	    "                           or SIGABRT, print the last N calls (default %d) of\n"
	    "                           the thread that took it (=all: of every thread) with\n"
	    "                           the signal, its address and function+offset (the\n"
	    "                           kernel's ftrace_dump_on_oops); the file keeps all\n"
	    "      --tracefs DIR        mount a tracefs of the traced processes at DIR while\n"
	    "                           recording: echo function > DIR/current_tracer ...\n"
	    "                           (FUSE; man utrace-tracefs)\n"
	    "  -h, --help               this text\n"
	    "\n"
	    "The exit status is COMMAND's.  See man utrace-record.\n",
	    UTRACE_SESSION_BUFFER_KB, UTRACE_SESSION_DUMP_CALLS);
}

static const struct option record_longopts[] = {
    {"tracer", required_argument, NULL, 'p'},
    {"filter", required_argument, NULL, 'l'},
    {"notrace", required_argument, NULL, 'n'},
    {"graph", required_argument, NULL, 'g'},
    {"graph-notrace", required_argument, NULL, 'G'},
    {"max-graph-depth", required_argument, NULL, 'D'},
    {"thresh", required_argument, NULL, 'H'},
    {"tid", required_argument, NULL, 'T'},
    {"event", required_argument, NULL, 'e'},
    {"filter-event", required_argument, NULL, 'f'},
    {"trigger", required_argument, NULL, 'R'},
    {"probe", required_argument, NULL, 'U'},
    {"synthetic", required_argument, NULL, 'Y'},
    {"children", no_argument, NULL, 'c'},
    {"system-wide", no_argument, NULL, 'a'},
    {"buffer-kb", required_argument, NULL, 'b'},
    {"overwrite", no_argument, NULL, 'W'},
    {"option", required_argument, NULL, 'O'},
    {"no-loss", no_argument, NULL, 'N'},
    {"drop", no_argument, NULL, 'X'},
    {"output", required_argument, NULL, 'o'},
    {"freq", required_argument, NULL, 'F'},
    {"call-graph", required_argument, NULL, 'C'},
    {"off-cpu", no_argument, NULL, 'K'},
    {"tracefs", required_argument, NULL, 'M'},
    {"libcall", no_argument, NULL, 'L'},
    {"no-libcall", no_argument, NULL, 'Q'},
    {"pid", required_argument, NULL, 'P'},
    {"duration", required_argument, NULL, 'd'},
    {"follow-daemons", no_argument, NULL, 'J'},
    {"dump-on-crash", optional_argument, NULL, 'z'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* One option: -h and getopt's errors here, the others to lib/session by
 * their long name.  -1 to go on, else the exit status. */
static int record_opt(struct utrace_session_opts *o, int c, const char *arg, char **argv)
{
	struct utrace_error err = {0};
	const char *name = c == 'v' ? "v" : NULL;
	int ret;

	if (c == 'h') {
		record_usage(stdout);
		return 0;
	}
	for (const struct option *l = record_longopts; !name && l->name; l++)
		if (l->val == c)
			name = l->name;
	if (!name) {
		return utrace_opt_error(record_name, "p:l:n:g:T:b:o:e:f:R:F:O:P:", argv);
	}
	if (!(ret = utrace_session_opts_set(o, name, arg, &err)))
		return -1;
	if (err.msg[0])
		utrace_die_msg(record_name, "%s", err.msg);
	return ret;
}

int record_parse(const char *name, int argc, char **argv, struct utrace_session_opts *o)
{
	struct utrace_error err = {0};
	int c, ret;

	record_name = name;
	opterr = 0; /* our own one-line messages */
	while ((c = utrace_getopt(argc, argv, "+p:l:n:g:T:b:o:e:f:R:F:O:P:cavh", record_longopts,
				NULL)) != -1) {
		/* -g is trace-cmd's set_graph_function (-g GLOB) and perf
		 * record's call graph (-F HZ -g): a -g that another option or
		 * "--" follows is perf's, --call-graph fp */
		if (c == 'g' && optarg == argv[optind - 1] && optarg[0] == '-') {
			optind--;
			c = 'C';
			optarg = (char *)"fp";
		}
		if (c == 'h' && strcmp(name, "record"))
			return -2; /* the caller's own --help */
		if ((ret = record_opt(o, c, optarg, argv)) >= 0)
			return ret;
	}
	o->argv = argv + optind;
	if (utrace_session_opts_finish(o, &err) < 0) {
		utrace_die_msg(record_name, "%s", err.msg);
		return 2;
	}
	return -1;
}

int record_run(struct utrace_session_opts *o, int *status)
{
	struct utrace_error err = {0};
	struct utrace_session *s;
	int ret, st;

	if (utrace_session_new(o, &s) < 0) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	ret = utrace_session_start(s, &err);
	if (ret) {
		if (err.msg[0])
			utrace_die_msg("record", "%s", err.msg);
		fputs(utrace_session_error_tail(s), stderr);
	} else {
		utrace_session_run(s);
		ret = utrace_session_stop(s);
	}
	st = utrace_session_status(s);
	utrace_session_free(s);
	if (ret == UTRACE_SESSION_RAN && status) {
		*status = st;
		return UTRACE_SESSION_RAN;
	}
	/* end as the command ended: this may raise its signal on ourselves,
	 * so only once everything is cleaned up */
	return ret == UTRACE_SESSION_RAN ? utrace_exit_like(st) : ret;
}

/* The progress line: on the terminal, rewritten in place (secs < 0: the
 * end, the line cleared). */
static void record_progress(void *arg, const struct utrace_recorder_progress *p, double secs)
{
	FILE *tty = arg;

	if (secs < 0) {
		fputs("\r\033[K", tty);
	} else {
		fprintf(tty,
			"\r\033[Kutrace record: %.0f s, %" PRIu64 " records (%" PRIu64
			" lost) from %u thread%s, %.1f MB, %.1f MB/s",
			secs, p->records, p->lost, p->threads, p->threads == 1 ? "" : "s",
			p->bytes / 1e6, secs > 0 ? p->bytes / 1e6 / secs : 0.0);
	}
	fflush(tty);
}

/* A progress line goes where it cannot mix with the command's output:
 * the terminal, when the command's output and ours both go elsewhere
 * (`utrace record -- make >log 2>&1`), and we are its foreground job.
 * Returns the terminal's stream, or NULL. */
static FILE *record_progress_tty(void)
{
	int fd;
	FILE *f;

	if (isatty(STDOUT_FILENO) || isatty(STDERR_FILENO) ||
	    (fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
		return NULL;
	if (tcgetpgrp(fd) != getpgrp() || !(f = fdopen(fd, "w"))) {
		close(fd);
		return NULL;
	}
	return f;
}

int cmd_record(int argc, char **argv)
{
	struct utrace_session_opts o;
	FILE *tty = NULL;
	int ret;

	if (utrace_session_opts_init(&o) < 0) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	ret = record_parse("record", argc, argv, &o);
	if (ret < 0 && (tty = record_progress_tty())) {
		o.progress = record_progress;
		o.progress_arg = tty;
	}
	if (ret < 0)
		ret = record_run(&o, NULL);
	if (tty)
		fclose(tty);
	utrace_session_opts_free(&o);
	return ret;
}
