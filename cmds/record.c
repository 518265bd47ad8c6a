/* SPDX-License-Identifier: MIT */
/*
 * record.c - `utrace record`: run a command with libutrace.so preloaded and
 * save what it traces, like `trace-cmd record` does for the kernel.
 *
 * The command runs in our process group with our stdin/stdout/stderr, and
 * we end as it ended: the same exit status, or the same signal raised on
 * ourselves, so a shell sees no difference.  Ctrl-C stops the recording
 * (tracing_on = 0 everywhere), saves the file, then waits for the command.
 *
 * Kernel events (-e SYSTEM:EVENT of a system in tracefs) go through a
 * tracefs instance of our own (lib/kernel/kernel_trace.c): created before the
 * command runs (a bad kernel filter stops us there), scoped to the
 * command's pid while the child waits on a pipe before its exec, read
 * along with the user buffers, removed on every way out.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "lib/events/event_select.h"
#include "lib/events/ftrace_filter.h"
#include "cmds/record_probes.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/record/recorder.h"
#include "lib/base/spawn.h"

#define DEFAULT_BUFFER_KB 16384

static volatile sig_atomic_t record_interrupted;

static void record_on_signal(int sig)
{
	record_interrupted = sig;
}

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: utrace record [OPTIONS] [--] COMMAND [ARGS...]\n"
		"\n"
		"Run COMMAND with its instrumented functions traced, and write utrace.dat.\n"
		"COMMAND must be built with the flags of `utrace cflags`.\n"
		"\n"
		"  -p, --tracer NAME        nop, function or function_graph (default)\n"
		"  -l, --filter GLOB        trace only matching functions (set_ftrace_filter);\n"
		"                           repeatable; !GLOB removes; GLOB:mod:LIB limits to a library\n"
		"  -n, --notrace GLOB       never trace matching functions (set_ftrace_notrace)\n"
		"  -g, --graph GLOB         graph only below matching functions (set_graph_function)\n"
		"      --graph-notrace GLOB hide matching functions and their callees (set_graph_notrace)\n"
		"      --max-graph-depth N  do not trace deeper than N levels (max_graph_depth)\n"
		"      --thresh USEC        only record calls of at least USEC microseconds (tracing_thresh)\n"
		"  -e, --event EVENT        enable static tracepoints: SYSTEM:EVENT, SYSTEM, EVENT\n"
		"                           or all (globs allowed); repeatable\n"
		"                           a SYSTEM of the kernel's (tracefs events/, e.g.\n"
		"                           sched:sched_switch, syscalls) records kernel events\n"
		"  -f, --filter-event EXPR  filter for the preceding -e, in the kernel's event\n"
		"                           filter syntax, e.g. 'count > 5 && word ~ \"a*\"'\n"
		"  -c, --children           kernel events: of the processes COMMAND starts too\n"
		"  -a, --system-wide        kernel events: of every process, not only COMMAND's\n"
		"      --probe DEF          a uprobe, kernel syntax: 'p:[GRP/]EVENT PATH:SYMBOL[+OFF]\n"
		"                           [FETCHARGS]' or 'r:... $retval' (docs/utrace-probes.md)\n"
		"                           (-e usdt:PROVIDER:NAME attaches a USDT probe of COMMAND)\n"
		"  -T, --tid TID            only trace thread TID (repeatable, up to 16)\n"
		"  -b, --buffer-kb KB       per-thread buffer size (default %d)\n"
		"      --overwrite          flight recorder: keep the newest records, drop the oldest\n"
		"  -o, --output FILE        output file (default utrace.dat)\n"
		"  -h, --help               this text\n"
		"\n"
		"The exit status is COMMAND's.  See docs/utrace-record.md.\n",
		DEFAULT_BUFFER_KB);
}

static void record_notice(void *arg, int pid, const char *text)
{
	fprintf(stderr, "utrace record: pid %d: %s\n", pid, text);
}

/* libutrace.so lives next to the utrace binary, or where UTRACE_LIB says. */
static int record_find_runtime(char *out, size_t len)
{
	const char *env = getenv("UTRACE_LIB");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, R_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	if (strlen(self) + sizeof("/../lib/utrace/libutrace.so") > len)
		return -1;
	strcpy(out, self);
	strcat(out, "/libutrace.so");
	if (!access(out, R_OK))
		return 0;
	strcpy(out, self);
	strcat(out, "/../lib/utrace/libutrace.so");
	return access(out, R_OK);
}

/* Kernel tracing starts while the child waits to exec (record_spawn). */
struct record_kernel {
	struct utrace_ktrace *kt;
	bool children, system_wide;
	struct utrace_error err;
};

static int record_kernel_start(struct record_kernel *k, pid_t pid)
{
	return utrace_ktrace_start(k->kt, k->system_wide ? 0 : pid, k->children, &k->err);
}

static int record_kpage(void *r, uint32_t cpu, const void *page, size_t len,
			struct utrace_error *err)
{
	return utrace_recorder_write_kpage(r, cpu, page, len, err);
}

static int record_kformat(void *r, const char *system, const char *name, int id,
			  const char *text, struct utrace_error *err)
{
	return utrace_recorder_write_kformat(r, system, id, text, err);
}

/* What the child sets up before it waits to exec (utrace_spawn_held). */
struct record_child_env {
	const char *sock, *runtime;
};

static void record_child_setup(void *arg)
{
	const struct record_child_env *env = arg;
	const char *old = getenv("LD_PRELOAD");
	char *preload;

	if (asprintf(&preload, "%s%s%s", env->runtime, old && *old ? ":" : "", old ? old : "") < 0)
		_exit(127);
	setenv("LD_PRELOAD", preload, 1);
	setenv("UTRACE_SOCK", env->sock, 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Starts the command held, starts kernel tracing on its pid, lets it exec.
 * The pid; -1 (err) if the command could not start or exec, -2 if kernel
 * tracing could not start (k->err). */
static pid_t record_spawn(char **argv, const char *sock, const char *runtime,
			  struct record_kernel *k, struct utrace_error *err)
{
	struct record_child_env env = {.sock = sock, .runtime = runtime};
	struct utrace_spawn s;
	int ret;

	ret = utrace_spawn_held(argv, record_child_setup, &env, &s, err);
	if (ret < 0) {
		utrace_error_set(err, ret, "cannot run '%s': %s", argv[0], strerror(-ret));
		return -1;
	}
	if (k->kt && record_kernel_start(k, s.pid) < 0) {
		utrace_spawn_abandon(&s);
		return -2;
	}
	if (utrace_spawn_release(&s, err) < 0)
		return -1;
	return s.pid;
}

/* The file execvp would run for name, or NULL. */
static char *record_which(const char *name)
{
	const char *path = getenv("PATH");
	char *full;

	if (strchr(name, '/'))
		return strdup(name);
	for (path = path ? path : "/usr/bin:/bin"; *path;) {
		size_t len = strcspn(path, ":");

		if (asprintf(&full, "%.*s/%s", (int)len, path, name) < 0)
			return NULL;
		if (!access(full, X_OK))
			return full;
		free(full);
		path += len + (path[len] == ':');
	}
	return NULL;
}

/* A filter error, with the expression and a caret under the column, like
 * the kernel's error_log. */
static void record_filter_error(const char *expr, const struct utrace_error *err)
{
	utrace_die_msg("record", "-f: %s", err->msg);
	if (err->column > 0) {
		fprintf(stderr, "  %s\n  %*s^\n", expr, err->column - 1, "");
	}
}

static int record_parse_uint(const char *opt, const char *s, unsigned long long max,
			     unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || *out > max) {
		utrace_die_msg("record", "%s: '%s' is not a number from 0 to %llu", opt, s, max);
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
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
		{"probe", required_argument, NULL, 'U'},
		{"children", no_argument, NULL, 'c'},
		{"system-wide", no_argument, NULL, 'a'},
		{"buffer-kb", required_argument, NULL, 'b'},
		{"overwrite", no_argument, NULL, 'O'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct utrace_recorder_opts o = {
		.output = "utrace.dat",
		.tracer = UTRACE_TRACER_FUNCTION_GRAPH,
		.buffer_kb = DEFAULT_BUFFER_KB,
		.notice = record_notice,
	};
	struct utrace_func_filter *filter = utrace_func_filter_new();
	struct utrace_recorder_stats st;
	struct utrace_recorder *r = NULL;
	struct utrace_error err = {0};
	char runtime[PATH_MAX], *command = NULL;
	struct utrace_event_spec *specs = NULL, *uspecs = NULL, *kspecs = NULL;
	struct utrace_event_select *events = NULL;
	struct record_kernel k = {0};
	unsigned ntids = 0, nspecs = 0, nuspecs = 0, nkspecs = 0, nprobes = 0;
	const char **probe_defs = NULL;
	struct record_probes *rp = NULL;
	int c, status = 0, ret = 1;
	bool exited = false, stopped = false;
	pid_t pid;

	if (!filter) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+p:l:n:g:T:b:o:e:f:cah", longopts, NULL)) != -1) {
		unsigned long long v;
		enum utrace_filter_list list;

		switch (c) {
		case 'p':
			if (!strcmp(optarg, "nop"))
				o.tracer = UTRACE_TRACER_NOP;
			else if (!strcmp(optarg, "function"))
				o.tracer = UTRACE_TRACER_FUNCTION;
			else if (!strcmp(optarg, "function_graph"))
				o.tracer = UTRACE_TRACER_FUNCTION_GRAPH;
			else {
				utrace_die_msg("record",
					       "-p %s: no such tracer (available: nop function "
					       "function_graph)",
					       optarg);
				goto out;
			}
			break;
		case 'l':
		case 'n':
		case 'g':
		case 'G':
			list = c == 'l' ? UTRACE_FILTER
			       : c == 'n' ? UTRACE_NOTRACE
			       : c == 'g' ? UTRACE_GRAPH
					  : UTRACE_GRAPH_NOTRACE;
			if (utrace_func_filter_add(filter, list, optarg, &err) < 0) {
				const char *opt = c == 'l'   ? "-l"
						  : c == 'n' ? "-n"
						  : c == 'g' ? "-g"
							     : "--graph-notrace";

				/* the filter's message names the pattern and column */
				utrace_die_msg("record", "%s: %s", opt, err.msg);
				goto out;
			}
			break;
		case 'D':
			if (record_parse_uint("--max-graph-depth", optarg, 1u << 20, &v) < 0)
				goto out;
			o.max_depth = (uint32_t)v;
			break;
		case 'H':
			if (record_parse_uint("--thresh", optarg, 1ull << 40, &v) < 0)
				goto out;
			o.thresh_ns = v * 1000;
			break;
		case 'T':
			if (record_parse_uint("-T", optarg, INT_MAX, &v) < 0)
				goto out;
			if (ntids == 15 || !v) {
				utrace_die_msg("record", "-T %s: at most 15 non-zero thread ids", optarg);
				goto out;
			}
			o.tids[ntids++] = (int32_t)v;
			break;
		case 'b':
			if (record_parse_uint("-b", optarg, 1u << 22, &v) < 0)
				goto out;
			if (v < 64) {
				utrace_die_msg("record", "-b %s: the smallest buffer is 64 KB", optarg);
				goto out;
			}
			o.buffer_kb = (uint32_t)v;
			break;
		case 'O':
			o.overwrite = true;
			break;
		case 'e': {
			struct utrace_event_spec *n = realloc(specs, (nspecs + 1) * sizeof(*n));

			if (!n) {
				utrace_die_msg("record", "out of memory");
				goto out;
			}
			specs = n;
			specs[nspecs++] = (struct utrace_event_spec){.pattern = optarg};
			break;
		}
		case 'U': {
			const char **n = realloc(probe_defs, (nprobes + 1) * sizeof(*n));

			if (!n) {
				utrace_die_msg("record", "out of memory");
				goto out;
			}
			probe_defs = n;
			probe_defs[nprobes++] = optarg;
			break;
		}
		case 'f':
			if (!nspecs) {
				utrace_die_msg("record", "-f '%s': a filter follows the -e it applies to",
					       optarg);
				ret = 2;
				goto out;
			}
			specs[nspecs - 1].filter = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'c':
			k.children = true;
			break;
		case 'a':
			k.system_wide = true;
			break;
		case 'h':
			record_usage(stdout);
			ret = 0;
			goto out;
		default:
			if (optopt && c == '?' && strchr("plngTboef", optopt))
				utrace_die_msg("record", "-%c needs an argument (see 'utrace record --help')",
					       optopt);
			else
				utrace_die_msg("record", "unknown option '%s' (see 'utrace record --help')",
					       argv[optind - 1]);
			ret = 2;
			goto out;
		}
	}
	if (optind >= argc) {
		utrace_die_msg("record", "no command to run (usage: utrace record [OPTIONS] -- COMMAND)");
		ret = 2;
		goto out;
	}
	if (record_find_runtime(runtime, sizeof(runtime)) < 0) {
		utrace_die_msg("record", "cannot find libutrace.so next to utrace (set UTRACE_LIB)");
		goto out;
	}
	{
		size_t len = 1;

		for (int i = optind; i < argc; i++)
			len += strlen(argv[i]) + 1;
		command = calloc(1, len);
		for (int i = optind; command && i < argc; i++) {
			strcat(command, argv[i]);
			if (i + 1 < argc)
				strcat(command, " ");
		}
	}
	o.command = command;
	o.filter = filter;
	signal(SIGINT, record_on_signal);
	signal(SIGTERM, record_on_signal);
	signal(SIGHUP, record_on_signal);
	signal(SIGPIPE, SIG_IGN);
	/* kernel events: an -e whose SYSTEM is a directory of tracefs events/ */
	uspecs = calloc(nspecs + 1, sizeof(*uspecs));
	kspecs = calloc(nspecs + nprobes + 1, sizeof(*kspecs));
	rp = record_probes_new();
	if (!uspecs || !kspecs || !rp) {
		utrace_die_msg("record", "out of memory");
		goto out;
	}
	/* --probe and -e usdt: become uprobes, enabled as kernel events */
	for (unsigned i = 0; i < nprobes; i++) {
		const char *pat = record_probes_add_def(rp, probe_defs[i], &err);

		if (!pat) {
			if (err.column > 0)
				record_filter_error(probe_defs[i], &err);
			else
				utrace_die_msg("record", "--probe: %s", err.msg);
			ret = 2;
			goto out;
		}
		kspecs[nkspecs++] = (struct utrace_event_spec){.pattern = pat};
	}
	for (unsigned i = 0; i < nspecs; i++) {
		if (!strncmp(specs[i].pattern, "usdt:", 5)) {
			char *exe = record_which(argv[optind]);
			const char *pat = record_probes_add_usdt(rp, specs[i].pattern, exe, &err);

			free(exe);
			if (!pat) {
				utrace_die_msg("record", "%s", err.msg);
				ret = 2;
				goto out;
			}
			kspecs[nkspecs++] = (struct utrace_event_spec){.pattern = pat,
								       .filter = specs[i].filter};
		} else if (utrace_ktrace_is_kernel(specs[i].pattern)) {
			kspecs[nkspecs++] = specs[i];
		} else {
			uspecs[nuspecs++] = specs[i];
		}
	}
	if ((k.children || k.system_wide) && !nkspecs)
		fprintf(stderr, "utrace record: -%c applies to kernel events only (none selected)\n",
			k.system_wide ? 'a' : 'c');
	if (nkspecs) {
		unsigned bad = 0;

		if (utrace_ktrace_open(kspecs, nkspecs, 0, &k.kt, &bad, &err) < 0) {
			if (err.column > 0)
				record_filter_error(kspecs[bad].filter, &err);
			else
				utrace_die_msg("record", "%s", err.msg);
			ret = err.column > 0 || err.code == -ENOENT ? 2 : 1;
			goto out;
		}
	}
	if (nuspecs) {
		char *exe = record_which(argv[optind]);
		unsigned bad = 0;

		if (utrace_event_select_new(uspecs, nuspecs, &events, &err) < 0) {
			utrace_die_msg("record", "%s", err.msg);
			goto out;
		}
		/* a bad filter stops us before the command runs */
		if (exe && utrace_event_select_check(events, exe, &bad, &err) < 0) {
			record_filter_error(uspecs[bad].filter, &err);
			free(exe);
			ret = 2;
			goto out;
		}
		free(exe);
		o.events = events;
	}
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		utrace_die_msg("record", "%s", err.msg);
		goto out;
	}
	if (k.kt) {
		const char *clock, *hpage, *hevent;
		uint32_t subbuf;

		utrace_ktrace_header(k.kt, &clock, &subbuf, &hpage, &hevent);
		if (utrace_recorder_write_kheader(r, clock, subbuf, hpage, hevent, &err) < 0 ||
		    utrace_ktrace_formats(k.kt, record_kformat, r, &err) < 0) {
			utrace_die_msg("record", "%s: %s", o.output, err.msg);
			goto out;
		}
	}
	if (record_interrupted)
		goto out;
	pid = record_spawn(argv + optind, utrace_recorder_sock_path(r), runtime, &k, &err);
	if (pid == -2) {
		utrace_die_msg("record", "%s", k.err.msg);
		goto out;
	}
	if (pid < 0) {
		utrace_die_msg("record", "%s", err.msg);
		ret = 127;
		goto out;
	}

	/* Record until the command and every process it started that is
	 * traced have gone, or until interrupted. */
	for (;;) {
		if (utrace_recorder_poll(r, 1, &err) < 0) {
			utrace_die_msg("record", "%s (stopping; what was recorded is saved)",
				       err.msg);
			break;
		}
		if (k.kt && utrace_ktrace_poll(k.kt, false, record_kpage, r, &err) < 0) {
			utrace_die_msg("record", "%s (stopping; what was recorded is saved)",
				       err.msg);
			break;
		}
		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
		if (exited && utrace_recorder_idle(r))
			break;
		if (record_interrupted)
			break;
	}
	if (record_interrupted && !exited) {
		utrace_recorder_stop(r);
		stopped = true;
		/* give the processes a moment to close their connections */
		for (int i = 0; i < 100 && !utrace_recorder_idle(r); i++)
			utrace_recorder_poll(r, 1, &err);
	}
	if (k.kt) {
		const struct utrace_dat_ktask *tasks;
		size_t ntasks;

		if (utrace_ktrace_stop(k.kt, record_kpage, r, &err) < 0)
			utrace_die_msg("record", "%s (what was recorded is saved)", err.msg);
		tasks = utrace_ktrace_tasks(k.kt, &ntasks);
		if (utrace_recorder_write_ktasks(r, tasks, ntasks, &err) < 0)
			utrace_die_msg("record", "%s: %s", o.output, err.msg);
	}
	if (utrace_recorder_finish(r, &st, &err) < 0)
		utrace_die_msg("record", "%s: %s", o.output, err.msg);
	else {
		int bpid, btid;
		char comm[16];
		uint64_t recs, lost;

		fprintf(stderr,
			"utrace record: %llu records (%llu lost) from %u threads of %u processes "
			"saved to %s (%llu bytes)\n",
			(unsigned long long)st.records, (unsigned long long)st.lost, st.buffers,
			st.images, o.output, (unsigned long long)st.file_bytes);
		for (uint32_t i = 0; utrace_recorder_buffer_stats(r, i, &bpid, &btid, comm, &recs,
								   &lost);
		     i++)
			if (lost)
				fprintf(stderr, "utrace record:   %s-%d (pid %d): %llu records lost\n",
					comm, btid, bpid, (unsigned long long)lost);
		for (unsigned i = 0; i < nuspecs; i++)
			if (!uspecs[i].matched)
				fprintf(stderr, "utrace record: -e %s: no such event in the traced programs\n",
					uspecs[i].pattern);
		if (k.kt) {
			uint64_t pages, missed;

			utrace_ktrace_stats(k.kt, &pages, &missed);
			fprintf(stderr, "utrace record: %llu kernel pages (%llu with events lost)\n",
				(unsigned long long)pages, (unsigned long long)missed);
		}
		if (st.overrun && o.overwrite)
			fprintf(stderr,
				"utrace record: overwrite mode kept the newest records; %llu older "
				"sub-buffers were overwritten\n",
				(unsigned long long)st.overrun);
	}
	if (utrace_ktrace_close(k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	k.kt = NULL;
	record_probes_free(rp); /* after the instance: enabled probes stay */
	rp = NULL;
	if (stopped)
		fprintf(stderr, "utrace record: interrupted; waiting for %s to exit\n", argv[optind]);
	if (!exited) {
		signal(SIGINT, SIG_DFL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	ret = -1; /* end as the command ended */
out:
	if (utrace_ktrace_close(k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	record_probes_free(rp);
	free(probe_defs);
	utrace_recorder_free(r);
	free(command);
	utrace_func_filter_free(filter);
	utrace_event_select_free(events);
	free(specs);
	free(uspecs);
	free(kspecs);
	return ret == -1 ? utrace_exit_like(status) : ret;
}
