/* SPDX-License-Identifier: MIT */
/*
 * session_args.c - the options of a recording as utrace record, start
 * and stream spell them (lib/session/session.h utrace_session_opts_set):
 * each value checked and stored into struct utrace_session_opts, its
 * error in the command line's words.  The command keeps its usage and
 * its getopt table and hands each option here by its long name.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/session/session.h"

/* A whole number from min to max; the error names the range. */
static int record_parse_range(const char *opt, const char *s, unsigned long long min,
			      unsigned long long max, unsigned long long *out,
			      struct utrace_error *err)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || *out < min || *out > max) {
		utrace_error_set(err, -EINVAL, "%s: '%s' is not a number from %llu to %llu", opt,
				 s, min, max);
		return -1;
	}
	return 0;
}

static int record_parse_uint(const char *opt, const char *s, unsigned long long max,
			     unsigned long long *out, struct utrace_error *err)
{
	return record_parse_range(opt, s, 0, max, out, err);
}

/* Room for one more element in array arr of n (capacity cap): 0 or
 * -ENOMEM with err. */
#define RECORD_PUSH(arr, cap, n, err)                                                              \
	(UTRACE_GROW(arr, cap, (size_t)(n) + 1) < 0                                                \
		 ? utrace_error_set(err, -ENOMEM, "out of memory")                                 \
		 : 0)

/* -l -n -g --graph-notrace */
static int record_opt_filter(struct utrace_session_opts *o, int c, const char *arg,
			     struct utrace_error *err)
{
	enum utrace_filter_list list = c == 'l'	  ? UTRACE_FILTER
				       : c == 'n' ? UTRACE_NOTRACE
				       : c == 'g' ? UTRACE_GRAPH
						  : UTRACE_GRAPH_NOTRACE;
	struct utrace_error ferr = {0};

	if (utrace_func_filter_add(o->filter, list, arg, &ferr) < 0) {
		const char *opt = c == 'l'   ? "-l"
				  : c == 'n' ? "-n"
				  : c == 'g' ? "-g"
					     : "--graph-notrace";

		/* the filter's message names the pattern and column */
		utrace_error_set(err, -EINVAL, "%s: %s", opt, ferr.msg);
		return 1;
	}
	return 0;
}

/* -R: a trigger of the preceding -e.  -1 to go on, else the exit status. */
static int record_opt_trigger(struct utrace_session_opts *o, const char *arg,
			      struct utrace_error *err)
{
	struct utrace_event_spec *sp;

	if (!o->nspecs) {
		utrace_error_set(err, -EINVAL, "-R '%s': a trigger follows the -e it applies to",
				 arg);
		return 2;
	}
	sp = &o->specs[o->nspecs - 1];
	if (sp->nr_triggers == UTRACE_EVENT_HISTS_MAX) {
		utrace_error_set(err, -EINVAL, "-R '%s': at most %u triggers per -e", arg,
				 UTRACE_EVENT_HISTS_MAX);
		return 2;
	}
	if (RECORD_PUSH(sp->triggers, sp->cap_triggers, sp->nr_triggers, err) < 0 ||
	    RECORD_PUSH(sp->trigs, sp->cap_trigs, sp->nr_triggers, err) < 0)
		return 1;
	sp->trigs[sp->nr_triggers] = NULL; /* parsed by its check (session_triggers.c) */
	sp->triggers[sp->nr_triggers++] = arg;
	return -1;
}

static int record_opt_tracer(struct utrace_session_opts *o, const char *arg,
			     struct utrace_error *err)
{
	if (!strcmp(arg, "nop"))
		o->rec.tracer = UTRACE_TRACER_NOP;
	else if (!strcmp(arg, "function"))
		o->rec.tracer = UTRACE_TRACER_FUNCTION;
	else if (!strcmp(arg, "function_graph"))
		o->rec.tracer = UTRACE_TRACER_FUNCTION_GRAPH;
	else {
		utrace_error_set(err, -EINVAL,
				 "-p %s: no such tracer (available: nop function function_graph)",
				 arg);
		return 1;
	}
	return 0;
}

/* The options with a number. */
static int record_opt_number(struct utrace_session_opts *o, int c, const char *arg,
			     struct utrace_error *err)
{
	struct utrace_recorder_opts *ro = &o->rec;
	unsigned long long v;

	switch (c) {
	case 'D':
		if (record_parse_uint("--max-graph-depth", arg, 1u << 20, &v, err) < 0)
			return 1;
		ro->max_depth = (uint32_t)v;
		return 0;
	case 'H':
		if (record_parse_uint("--thresh", arg, 1ull << 40, &v, err) < 0)
			return 1;
		ro->thresh_ns = v * 1000;
		return 0;
	case 'T': {
		unsigned ntids = 0;

		if (record_parse_uint("-T", arg, INT_MAX, &v, err) < 0)
			return 1;
		while (ntids < 16 && ro->tids[ntids])
			ntids++;
		if (ntids == 15 || !v) {
			utrace_error_set(err, -EINVAL, "-T %s: at most 15 non-zero thread ids",
					 arg);
			return 1;
		}
		ro->tids[ntids] = (int32_t)v;
		return 0;
	}
	case 'F':
		/* uftrace's -F is a function filter: say what ours is */
		if (*arg && !strspn(arg, "0123456789")) {
			utrace_error_set(err, -EINVAL,
					 "-F %s: -F is the sampling frequency here (1 to 100000 "
					 "Hz); -l FUNC and -g FUNC select functions (uftrace's -F)",
					 arg);
			return 1;
		}
		if (record_parse_range("-F", arg, 1, 100000, &v, err) < 0)
			return 1;
		o->sample.freq = (unsigned)v;
		return 0;
	default: /* 'b' */
		if (record_parse_range("-b", arg, 64, 1u << 22, &v, err) < 0)
			return 1;
		ro->buffer_kb = (uint32_t)v;
		return 0;
	}
}

/* -e cpu-clock[:u]: the sampled event, perf's name, with perf's :u
 * (user space only: no kernel address, no kernel stack) or, without it,
 * the kernel too. */
static int record_opt_sample_event(struct utrace_session_opts *o, const char *arg,
				   struct utrace_error *err)
{
	if (arg[9] && strcmp(arg + 9, ":u")) {
		utrace_error_set(
		    err, -EINVAL,
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
static int record_opt_callgraph(struct utrace_session_opts *o, const char *arg,
				struct utrace_error *err)
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
		utrace_error_set(err, -EINVAL,
				 "--call-graph %s: unknown mode '%.*s' (fp or dwarf[,SIZE])", arg,
				 (int)mode, arg);
		return 1;
	}
	if (size) {
		errno = 0;
		v = strtoull(size + 1, &end, 0);
		v = (v + 7) & ~7ull; /* perf rounds up to whole u64s */
		if (!size[1] || *end || errno || !v || v > UTRACE_SAMPLER_MAX_STACK) {
			utrace_error_set(err, -EINVAL,
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
static int record_opt_attach(struct utrace_session_opts *o, int c, const char *arg,
			     struct utrace_error *err)
{
	unsigned long long v;
	char *end;

	if (c == 'd') {
		errno = 0;
		o->duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->duration > 0)) {
			utrace_error_set(err, -EINVAL, "--duration %s: a number of seconds above 0",
					 arg);
			return -1;
		}
		return 0;
	}
	if (record_parse_uint("-P", arg, INT_MAX, &v, err) < 0 || !v)
		return -1;
	if (RECORD_PUSH(o->pids, o->cap_pids, o->npids, err) < 0)
		return -1;
	o->pids[o->npids++] = (int)v;
	return 0;
}

/* One option, by its letter in NAMES; -1 to go on, else the exit
 * status (err). */
/* --dump-on-crash[=N|=all]: N calls of the thread that crashed, or the
 * default number of every thread's (the kernel's ftrace_dump_on_oops=1
 * dumps every CPU's, =2 the one that oopsed). */
static int record_opt_dump(struct utrace_session_opts *o, const char *arg,
			   struct utrace_error *err)
{
	char *end;
	unsigned long n;

	o->dump_calls = UTRACE_SESSION_DUMP_CALLS;
	o->rec.dump_on_crash = true;
	if (!arg)
		return 0;
	if (!strcmp(arg, "all")) {
		o->dump_all = true;
		return 0;
	}
	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !n || n > 1000000 || arg[0] == '-')
		return utrace_error_set(err, -EINVAL,
					"--dump-on-crash=%s: a number of calls (1 to 1000000) or all",
					arg);
	o->dump_calls = (unsigned)n;
	return 0;
}

static int record_opt(struct utrace_session_opts *o, int c, const char *arg,
		      struct utrace_error *err)
{
	switch (c) {
	case 'p':
		return record_opt_tracer(o, arg, err) ? 2 : -1;
	case 'l':
	case 'n':
	case 'g':
	case 'G':
		return record_opt_filter(o, c, arg, err) ? 2 : -1;
	case 'D':
	case 'H':
	case 'T':
	case 'b':
	case 'F':
		return record_opt_number(o, c, arg, err) ? 2 : -1;
	case 'C':
		return record_opt_callgraph(o, arg, err) ? 2 : -1;
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
		utrace_error_set(err, -EINVAL,
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
			return record_opt_sample_event(o, arg, err) ? 2 : -1;
		if (RECORD_PUSH(o->specs, o->cap_specs, o->nspecs, err) < 0)
			return 1;
		o->specs[o->nspecs++] =
		    (struct utrace_event_spec){.pattern = arg, .exclude = o->excluding};
		return -1;
	case 'R':
		return record_opt_trigger(o, arg, err);
	case 'v':
		o->excluding = true;
		return -1;
	case 'Y':
		if (RECORD_PUSH(o->synth_defs, o->cap_synth, o->nsynth, err) < 0)
			return 1;
		o->synth_defs[o->nsynth++] = arg;
		return -1;
	case 'U':
		if (RECORD_PUSH(o->probe_defs, o->cap_probes, o->nprobes, err) < 0)
			return 1;
		o->probe_defs[o->nprobes++] = arg;
		return -1;
	case 'f':
		if (!o->nspecs) {
			utrace_error_set(err, -EINVAL,
					 "-f '%s': a filter follows the -e it applies to", arg);
			return 2;
		}
		o->specs[o->nspecs - 1].filter = arg;
		return -1;
	case 'o':
		o->rec.output = arg;
		o->output_given = true;
		return -1;
	case 'c':
		o->children = true;
		return -1;
	case 'J':
		o->follow_daemons = true;
		return -1;
	case 'z':
		return record_opt_dump(o, arg, err) ? 2 : -1;
	case 'a':
		o->system_wide = true;
		return -1;
	case 'M':
		o->tracefs = arg;
		o->rec.live = true;
		return -1;
	case 'P':
	case 'd':
		return record_opt_attach(o, c, arg, err) ? 2 : -1;
	default: /* utrace_session_opts_set knows no other */
		return 2;
	}
}

/* The long names of record's options (cmds/record.c), "v" for -v, which
 * has none, and the letter record_opt knows each by. */
static const struct {
	const char *name;
	char c;
} session_args_names[] = {
    {"tracer", 'p'},
    {"filter", 'l'},
    {"notrace", 'n'},
    {"graph", 'g'},
    {"graph-notrace", 'G'},
    {"max-graph-depth", 'D'},
    {"thresh", 'H'},
    {"tid", 'T'},
    {"event", 'e'},
    {"filter-event", 'f'},
    {"trigger", 'R'},
    {"probe", 'U'},
    {"synthetic", 'Y'},
    {"children", 'c'},
    {"system-wide", 'a'},
    {"buffer-kb", 'b'},
    {"overwrite", 'W'},
    {"option", 'O'},
    {"no-loss", 'N'},
    {"drop", 'X'},
    {"output", 'o'},
    {"freq", 'F'},
    {"call-graph", 'C'},
    {"off-cpu", 'K'},
    {"tracefs", 'M'},
    {"libcall", 'L'},
    {"no-libcall", 'Q'},
    {"pid", 'P'},
    {"duration", 'd'},
    {"follow-daemons", 'J'},
    {"dump-on-crash", 'z'},
    {"v", 'v'},
};

int utrace_session_opts_set(struct utrace_session_opts *o, const char *name, const char *arg,
			    struct utrace_error *err)
{
	int ret;

	for (size_t i = 0; i < sizeof(session_args_names) / sizeof(session_args_names[0]); i++)
		if (!strcmp(session_args_names[i].name, name)) {
			ret = record_opt(o, session_args_names[i].c, arg, err);
			return ret < 0 ? 0 : ret;
		}
	utrace_error_set(err, -EINVAL, "unknown option '--%s'", name);
	return 2;
}
