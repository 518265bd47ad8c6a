/* SPDX-License-Identifier: MIT */
/*
 * record.c - `utrace record`: its options, parsed into a struct
 * record_opts (cmds/record.h); the work is record_run (cmds/record_run.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "cmds/record.h"
#include "lib/elf/callsite.h"
#include "lib/hist/hist.h"
#include "lib/sample/ksyms.h"

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
	    "Run COMMAND with its instrumented functions traced, and write utrace.dat.\n"
	    "COMMAND must be built with the flags of `utrace cflags`.\n"
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
	    "                           [FETCHARGS]' or 'r:... $retval' (docs/utrace-probes.md);\n"
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
	    "  -T, --tid TID            only trace thread TID (repeatable, up to 16)\n"
	    "  -b, --buffer-kb KB       per-thread buffer size (default %d)\n"
	    "      --no-loss            a thread whose buffer is full waits for the recorder\n"
	    "                           (default): every record is saved, a program faster\n"
	    "                           than the disk is slowed down to its pace\n"
	    "      --drop               a thread whose buffer is full drops records and counts\n"
	    "                           them (the kernel's default): never slowed, may lose\n"
	    "      --overwrite          flight recorder: keep the newest records, drop the oldest\n"
	    "      --libcall            also trace the calls into shared libraries, through\n"
	    "                           the PLT, with their names (default for a program\n"
	    "                           built without `utrace cflags`); --no-libcall: not\n"
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
	    "      --tracefs DIR        mount a tracefs of the traced processes at DIR while\n"
	    "                           recording: echo function > DIR/current_tracer ...\n"
	    "                           (FUSE; docs/utrace-tracefs.md)\n"
	    "  -h, --help               this text\n"
	    "\n"
	    "The exit status is COMMAND's.  See docs/utrace-record.md.\n",
	    RECORD_DEFAULT_BUFFER_KB);
}

static int record_parse_uint(const char *opt, const char *s, unsigned long long max,
			     unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || *out > max) {
		utrace_die_msg(record_name, "%s: '%s' is not a number from 0 to %llu", opt, s, max);
		return -1;
	}
	return 0;
}

/* Appends one element to a growing array of n elements of `size` bytes. */
static void *record_push(void *arr, unsigned n, size_t size)
{
	void *p = realloc(arr, (n + 1) * size);

	if (!p)
		utrace_die_msg(record_name, "out of memory");
	return p;
}

/* -l -n -g --graph-notrace */
static int record_opt_filter(struct record_opts *o, int c, const char *arg)
{
	enum utrace_filter_list list = c == 'l'	  ? UTRACE_FILTER
				       : c == 'n' ? UTRACE_NOTRACE
				       : c == 'g' ? UTRACE_GRAPH
						  : UTRACE_GRAPH_NOTRACE;
	struct utrace_error err = {0};

	if (utrace_func_filter_add(o->filter, list, arg, &err) < 0) {
		const char *opt = c == 'l'   ? "-l"
				  : c == 'n' ? "-n"
				  : c == 'g' ? "-g"
					     : "--graph-notrace";

		/* the filter's message names the pattern and column */
		utrace_die_msg(record_name, "%s: %s", opt, err.msg);
		return 1;
	}
	return 0;
}

/* -R: a trigger of the preceding -e.  -1 to go on, else the exit status. */
static int record_opt_trigger(struct record_opts *o, const char *arg)
{
	struct utrace_event_spec *sp;

	if (!o->nspecs) {
		utrace_die_msg(record_name, "-R '%s': a trigger follows the -e it applies to", arg);
		return 2;
	}
	sp = &o->specs[o->nspecs - 1];
	if (sp->nr_triggers == UTRACE_EVENT_HISTS_MAX) {
		utrace_die_msg(record_name, "-R '%s': at most %u triggers per -e", arg,
			       UTRACE_EVENT_HISTS_MAX);
		return 2;
	}
	if (!(sp->triggers = record_push(sp->triggers, sp->nr_triggers, sizeof(*sp->triggers))) ||
	    !(sp->trigs = record_push(sp->trigs, sp->nr_triggers, sizeof(*sp->trigs))))
		return 1;
	sp->trigs[sp->nr_triggers] = NULL; /* parsed by its check (record_triggers.c) */
	sp->triggers[sp->nr_triggers++] = arg;
	return -1;
}

static int record_opt_tracer(struct record_opts *o, const char *arg)
{
	if (!strcmp(arg, "nop"))
		o->rec.tracer = UTRACE_TRACER_NOP;
	else if (!strcmp(arg, "function"))
		o->rec.tracer = UTRACE_TRACER_FUNCTION;
	else if (!strcmp(arg, "function_graph"))
		o->rec.tracer = UTRACE_TRACER_FUNCTION_GRAPH;
	else {
		utrace_die_msg(record_name,
			       "-p %s: no such tracer (available: nop function function_graph)",
			       arg);
		return 1;
	}
	return 0;
}

/* The options with a number. */
static int record_opt_number(struct record_opts *o, int c, const char *arg)
{
	struct utrace_recorder_opts *ro = &o->rec;
	unsigned long long v;

	switch (c) {
	case 'D':
		if (record_parse_uint("--max-graph-depth", arg, 1u << 20, &v) < 0)
			return 1;
		ro->max_depth = (uint32_t)v;
		return 0;
	case 'H':
		if (record_parse_uint("--thresh", arg, 1ull << 40, &v) < 0)
			return 1;
		ro->thresh_ns = v * 1000;
		return 0;
	case 'T': {
		unsigned ntids = 0;

		if (record_parse_uint("-T", arg, INT_MAX, &v) < 0)
			return 1;
		while (ntids < 16 && ro->tids[ntids])
			ntids++;
		if (ntids == 15 || !v) {
			utrace_die_msg(record_name, "-T %s: at most 15 non-zero thread ids", arg);
			return 1;
		}
		ro->tids[ntids] = (int32_t)v;
		return 0;
	}
	case 'F':
		if (record_parse_uint("-F", arg, 100000, &v) < 0)
			return 1;
		if (!v) {
			utrace_die_msg(record_name, "-F 0: a frequency of at least 1 Hz");
			return 1;
		}
		o->sample.freq = (unsigned)v;
		return 0;
	default: /* 'b' */
		if (record_parse_uint("-b", arg, 1u << 22, &v) < 0)
			return 1;
		if (v < 64) {
			utrace_die_msg(record_name, "-b %s: the smallest buffer is 64 KB", arg);
			return 1;
		}
		ro->buffer_kb = (uint32_t)v;
		return 0;
	}
}

/* -e cpu-clock[:u]: the sampled event, perf's name, with perf's :u
 * (user space only: no kernel address, no kernel stack) or, without it,
 * the kernel too. */
static int record_opt_sample_event(struct record_opts *o, const char *arg)
{
	if (arg[9] && strcmp(arg + 9, ":u")) {
		utrace_die_msg(record_name,
			       "-e %s: unknown modifier '%s' at column 11 (cpu-clock samples user "
			       "and kernel; cpu-clock:u user space only)",
			       arg, arg + 10);
		return 1;
	}
	o->sample_event = arg;
	o->sample.user_only = arg[9] != 0;
	return 0;
}

/* --call-graph fp|dwarf[,SIZE], perf record's syntax, limits and words. */
static int record_opt_callgraph(struct record_opts *o, const char *arg)
{
	const char *size = strchr(arg, ',');
	size_t mode = size ? (size_t)(size - arg) : strlen(arg);
	unsigned long long v = UTRACE_SAMPLER_DEFAULT_STACK;
	char *end;

	if (mode == 2 && !strncmp(arg, "fp", 2) && !size) {
		o->sample.callchain = true;
		o->sample.stack_size = 0;
		return 0;
	}
	if (mode != 5 || strncmp(arg, "dwarf", 5)) {
		utrace_die_msg(record_name,
			       "--call-graph %s: unknown mode '%.*s' (fp or dwarf[,SIZE])", arg,
			       (int)mode, arg);
		return 1;
	}
	if (size) {
		errno = 0;
		v = strtoull(size + 1, &end, 0);
		v = (v + 7) & ~7ull; /* perf rounds up to whole u64s */
		if (!size[1] || *end || errno || !v || v > UTRACE_SAMPLER_MAX_STACK) {
			utrace_die_msg(record_name,
				       "--call-graph %s: incorrect stack dump size (max %u) at "
				       "column %d",
				       arg, UTRACE_SAMPLER_MAX_STACK, (int)(size - arg) + 2);
			return 1;
		}
	}
	o->sample.callchain = false;
	o->sample.stack_size = (uint32_t)v;
	return 0;
}

/* -P PID (repeatable) and --duration SEC (code 'd'); 0 or -1 (said). */
static int record_opt_attach(struct record_opts *o, int c, const char *arg)
{
	unsigned long long v;
	char *end;

	if (c == 'd') {
		errno = 0;
		o->duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->duration > 0)) {
			utrace_die_msg(record_name, "--duration %s: a number of seconds above 0", arg);
			return -1;
		}
		return 0;
	}
	if (record_parse_uint("-P", arg, INT_MAX, &v) < 0 || !v)
		return -1;
	if (!(o->pids = record_push(o->pids, o->npids, sizeof(*o->pids))))
		return -1;
	o->pids[o->npids++] = (int)v;
	return 0;
}

/* One option; -1 to go on, else the exit status. */
static int record_opt(struct record_opts *o, int c, char *arg, char **argv)
{
	switch (c) {
	case 'p':
		return record_opt_tracer(o, arg) ? 1 : -1;
	case 'l':
	case 'n':
	case 'g':
	case 'G':
		return record_opt_filter(o, c, arg) ? 1 : -1;
	case 'D':
	case 'H':
	case 'T':
	case 'b':
	case 'F':
		return record_opt_number(o, c, arg) ? 1 : -1;
	case 'C':
		return record_opt_callgraph(o, arg) ? 2 : -1;
	case 'W':
		o->rec.overwrite = true;
		return -1;
	case 'O': /* the kernel's trace_options that change what is recorded */
		if (!strcmp(arg, "funcgraph-args")) {
			o->rec.funcgraph_args = true;
			return -1;
		}
		if (!strcmp(arg, "funcgraph-retval")) {
			o->rec.funcgraph_retval = true;
			return -1;
		}
		utrace_die_msg(record_name,
			       "-O %s: funcgraph-args or funcgraph-retval (the others are "
			       "utrace report's -O)",
			       arg);
		return 2;
	case 'N':
		o->rec.drop = false;
		return -1;
	case 'X':
		o->rec.drop = true;
		return -1;
	case 'K':
		o->sample.off_cpu = true;
		return -1;
	case 'L':
	case 'Q':
		o->libcall = c == 'L';
		return -1;
	case 'e':
		if (!strncmp(arg, "cpu-clock", 9) && (!arg[9] || arg[9] == ':'))
			return record_opt_sample_event(o, arg) ? 2 : -1;
		if (!(o->specs = record_push(o->specs, o->nspecs, sizeof(*o->specs))))
			return 1;
		o->specs[o->nspecs++] =
		    (struct utrace_event_spec){.pattern = arg, .exclude = o->excluding};
		return -1;
	case 'R':
		return record_opt_trigger(o, arg);
	case 'v':
		o->excluding = true;
		return -1;
	case 'Y':
		if (!(o->synth_defs = record_push(o->synth_defs, o->nsynth, sizeof(*o->synth_defs))))
			return 1;
		o->synth_defs[o->nsynth++] = arg;
		return -1;
	case 'U':
		if (!(o->probe_defs =
			  record_push(o->probe_defs, o->nprobes, sizeof(*o->probe_defs))))
			return 1;
		o->probe_defs[o->nprobes++] = arg;
		return -1;
	case 'f':
		if (!o->nspecs) {
			utrace_die_msg(record_name, "-f '%s': a filter follows the -e it applies to",
				       arg);
			return 2;
		}
		o->specs[o->nspecs - 1].filter = arg;
		return -1;
	case 'o':
		o->rec.output = arg;
		return -1;
	case 'c':
		o->children = true;
		return -1;
	case 'J':
		o->follow_daemons = true;
		return -1;
	case 'a':
		o->system_wide = true;
		return -1;
	case 'M':
		o->tracefs = arg;
		o->rec.live = true;
		return -1;
	case 'P':
	case 'd':
		return record_opt_attach(o, c, arg) ? 2 : -1;
	case 'h':
		record_usage(stdout);
		return 0;
	default:
		if (optopt && c == '?' && strchr("plngTboefRFP", optopt))
			utrace_die_msg(
			    record_name, "-%c needs an argument (see 'utrace record --help')", optopt);
		else
			utrace_die_msg(record_name, "unknown option '%s' (see 'utrace record --help')",
				       argv[optind - 1]);
		return 2;
	}
}

/* Whether the program was built with `utrace cflags` (it has call
 * sites): else --libcall is the default, as in uftrace, so that a
 * distribution binary shows at least its library calls.  A program that
 * cannot be read has none here; running it says why. */
static bool record_has_sites(const char *name)
{
	char *exe = record_which(name);
	struct utrace_elf_section sec;
	struct utrace_elf *elf;
	bool has = false;

	if (exe && utrace_elf_open(exe, &elf) == 0) {
		has = utrace_elf_find_section(elf, UTRACE_SECTION_PATCHABLE, &sec) == 0 ||
		      utrace_elf_find_section(elf, UTRACE_SECTION_MCOUNT, &sec) == 0;
		utrace_elf_close(elf);
	}
	free(exe);
	return has;
}

int record_parse(const char *name, int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
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
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, ret;

	record_name = name;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+p:l:n:g:T:b:o:e:f:R:F:O:P:cavh", longopts, NULL)) != -1) {
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
	if (o->npids && optind < argc) {
		utrace_die_msg(record_name, "-P and a command: attach to processes or run one, not both");
		return 2;
	}
	if (o->duration > 0 && !o->npids) {
		utrace_die_msg(record_name, "--duration goes with -P (a command is recorded until it ends)");
		return 2;
	}
	if (optind >= argc && !o->npids) {
		utrace_die_msg(record_name,
			       "no command to run (usage: utrace record [OPTIONS] -- COMMAND, "
			       "or -P PID)");
		return 2;
	}
	o->argv = o->npids ? NULL : argv + optind;
	/* the samples' file layout and names come with the sampling */
	if (o->sample.off_cpu && !o->sample.freq) {
		utrace_die_msg(record_name, "--off-cpu goes with -F HZ");
		return 2;
	}
	if (o->sample_event && !o->sample.freq) {
		utrace_die_msg(record_name, "-e %s goes with -F HZ", o->sample_event);
		return 2;
	}
	/* as perf: the kernel's addresses too where this user may see them,
	 * else user space only (perf's :u) */
	if (o->sample.freq && !o->sample_event)
		o->sample.user_only = !utrace_ksyms_allowed();
	if (o->libcall < 0) {
		char exe[64];

		snprintf(exe, sizeof(exe), "/proc/%d/exe", o->npids ? o->pids[0] : 0);
		o->libcall = !record_has_sites(o->npids ? exe : o->argv[0]);
	}
	o->rec.libcall = o->libcall && o->rec.tracer != UTRACE_TRACER_NOP;
	return -1;
}

int record_opts_init(struct record_opts *o)
{
	*o = (struct record_opts){
	    .rec =
		{
		    .output = "utrace.dat",
		    .tracer = UTRACE_TRACER_FUNCTION_GRAPH,
		    .buffer_kb = RECORD_DEFAULT_BUFFER_KB,
		},
	    .filter = utrace_func_filter_new(),
	    /* decided with -F (record_parse) */
	    .sample = {.user_only = true},
	    .libcall = -1,
	};
	if (!o->filter)
		utrace_die_msg(record_name, "out of memory");
	return o->filter ? 0 : -1;
}

void record_opts_free(struct record_opts *o)
{
	utrace_func_filter_free(o->filter);
	for (unsigned i = 0; i < o->nspecs; i++) {
		utrace_trigger_free_spec(&o->specs[i]);
		free(o->specs[i].triggers);
	}
	free(o->specs);
	free(o->probe_defs);
	free(o->synth_defs);
	free(o->pids);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int ret;

	if (record_opts_init(&o) < 0)
		return 1;
	ret = record_parse("record", argc, argv, &o);
	if (ret < 0)
		ret = record_run(&o);
	record_opts_free(&o);
	return ret;
}
