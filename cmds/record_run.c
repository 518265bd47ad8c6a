/* SPDX-License-Identifier: MIT */
/*
 * record_run.c - the work of `utrace record` (cmds/record.h): run a
 * command with libutrace.so preloaded and save what it traces, like
 * `trace-cmd record` does for the kernel.
 *
 *   record_events   -e/--probe split into user events, kernel events and
 *                   uprobes; filters checked before anything runs
 *   record_start    the recorder's socket, the kernel header, the command
 *                   started held, kernel tracing on its pid, then exec
 *   record_loop     poll the buffers (tracefs, samples) until every traced
 *                   process has gone, or Ctrl-C
 *   record_end      drain, write the file's last records, the summary
 *
 * With -P the processes already run: cmds/record_attach.c checks them,
 * injects the runtime instead of record_spawn, ends the loop at
 * --duration or their exit, and detaches before the file is finished.
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
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "cmds/record.h"
#include "cmds/record_attach.h"
#include "cmds/record_live.h"
#include "cmds/record_probes.h"
#include "lib/probes/kprobe.h"
#include "cmds/record_synth.h"
#include "cmds/record_triggers.h"
#include "lib/base/spawn.h"
#include "lib/elf/libdeps.h"
#include "lib/events/event_format.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/sample/offcpu.h"
#include "lib/sample/sampler.h"
#include "lib/tracefile/dat_format.h"

static volatile sig_atomic_t record_interrupted;

static void record_on_signal(int sig)
{
	record_interrupted = sig;
}

static void record_notice(void *arg, int pid, const char *text)
{
	fprintf(stderr, "utrace record: pid %d: %s\n", pid, text);
}

/* libutrace.so lives next to the utrace binary (the build tree), in
 * ../lib (an installed tree: PREFIX/bin/utrace, PREFIX/lib/libutrace.so),
 * or where UTRACE_LIB says. */
static int record_find_runtime(char *out, size_t len)
{
	static const char *const rel[] = {"/libutrace.so", "/../lib/libutrace.so",
					  "/../lib/utrace/libutrace.so"};
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
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if ((size_t)snprintf(out, len, "%s%s", self, rel[i]) < len && !access(out, R_OK))
			return 0;
	return -1;
}

/* Kernel tracing and sampling start while the child waits to exec
 * (record_spawn). */
struct record_kernel {
	struct utrace_ktrace *kt;
	bool children, system_wide;
	const struct utrace_sampler_opts *sopts; /* NULL: no sampling */
	struct utrace_sampler *sampler;
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

/* A drain of the sampler: one PERF record per CPU buffer's records. */
static int record_perf(void *r, uint32_t cpu, const void *records, size_t len,
		       struct utrace_error *err)
{
	struct utrace_dat_perf h = {cpu, 0};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)records, len}};

	return utrace_recorder_write_record(r, UTRACE_DAT_PERF, iov, 2, err);
}

/* The off-CPU samples of a drain (--off-cpu), in a record of their own. */
static int record_offcpu(void *r, uint32_t cpu, const void *records, size_t len,
			 struct utrace_error *err)
{
	struct utrace_dat_perf h = {cpu, 0};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)records, len}};

	_Static_assert(UTRACE_OFFCPU_SAMPLE_TYPE == UTRACE_DAT_OFFCPU_SAMPLE_TYPE,
		       "the sampler writes the off-CPU samples the file says it holds");
	return utrace_recorder_write_record(r, UTRACE_DAT_PERF_OFFCPU, iov, 2, err);
}

/* What the samples hold, before the first of them. */
static int record_perf_attr(struct utrace_recorder *r, const struct utrace_sampler *sp,
			    bool user_only, struct utrace_error *err)
{
	struct utrace_sampler_attr a;
	struct utrace_dat_perf_attr pa;
	struct iovec iov = {&pa, sizeof(pa)};

	utrace_sampler_attr(sp, &a);
	pa = (struct utrace_dat_perf_attr){.sample_type = a.sample_type,
					   .freq = a.freq,
					   .flags = user_only ? UTRACE_DAT_PERF_USER_ONLY : 0,
					   .regs_user = a.regs_user,
					   .stack_user = a.stack_user};
	return utrace_recorder_write_record(r, UTRACE_DAT_PERF_ATTR, &iov, 1, err);
}

/* The kernel symbols the samples need, named now (only this machine's
 * /proc/kallsyms can). */
static int record_ksyms(struct utrace_recorder *r, struct utrace_sampler *sp,
			struct utrace_error *err)
{
	struct iovec iov;
	size_t len;
	void *buf;
	int ret = utrace_sampler_ksyms(sp, &buf, &len, err);

	if (ret == 0 && len) {
		iov = (struct iovec){buf, len};
		ret = utrace_recorder_write_record(r, UTRACE_DAT_PERF_KSYMS, &iov, 1, err);
	}
	free(buf);
	return ret;
}

static int record_kformat(void *r, const char *system, const char *name, int id, const char *text,
			  struct utrace_error *err)
{
	return utrace_recorder_write_kformat(r, system, name, id, text, err);
}

/* What the child sets up before it waits to exec (utrace_spawn_held). */
struct record_child_env {
	const char *sock, *runtime;
	bool bind_now; /* --libcall: every GOT slot bound before the runtime hooks it */
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
	if (env->bind_now)
		setenv("LD_BIND_NOW", "1", 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Starts the command held, starts kernel tracing and sampling on its
 * pid, lets it exec.  The pid; -1 (err) if the command could not start or
 * exec, -2 if kernel tracing or sampling could not start (k->err). */
static pid_t record_spawn(char **argv, const char *sock, const char *runtime, bool bind_now,
			  struct record_kernel *k, struct utrace_error *err)
{
	struct record_child_env env = {.sock = sock, .runtime = runtime, .bind_now = bind_now};
	struct utrace_spawn s;
	int ret;

	ret = utrace_spawn_held(argv, record_child_setup, &env, &s, err);
	if (ret < 0) {
		utrace_error_set(err, ret, "cannot run '%s': %s", argv[0], strerror(-ret));
		return -1;
	}
	if ((k->kt && record_kernel_start(k, s.pid) < 0) ||
	    (k->sopts && utrace_sampler_open(s.pid, k->sopts, &k->sampler, &k->err) < 0)) {
		utrace_spawn_abandon(&s);
		return -2;
	}
	if (utrace_spawn_release(&s, err) < 0)
		return -1;
	return s.pid;
}

/* The file execvp would run for name, or NULL. */
char *record_which(const char *name)
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
static void record_expr_error(const char *opt, const char *expr, const struct utrace_error *err)
{
	utrace_die_msg("record", "%s: %s", opt, err->msg);
	if (err->column > 0) {
		fprintf(stderr, "  %s\n  %*s^\n", expr, err->column - 1, "");
	}
}

static void record_filter_error(const char *expr, const struct utrace_error *err)
{
	record_expr_error("-f", expr, err);
}

/* Everything a session holds, released by record_cleanup. */
struct record_session {
	struct record_opts *o;
	struct utrace_recorder *r;
	struct record_kernel k;
	struct utrace_event_select *events;
	struct utrace_event_spec *uspecs, *kspecs;
	unsigned nuspecs, nkspecs;
	char **target_names; /* specs added for enable_event targets */
	unsigned nr_target_names;
	struct record_probes *rp;
	struct utrace_synth **synths; /* --synthetic, o->nsynth of them */
	char *command;
	char runtime[PATH_MAX];
	pid_t pid;
	int status;
	bool exited, stopped;
	struct record_live *live; /* --tracefs */
	struct record_attach *attach; /* -P: processes attached to, no command */
};

/* The command line as one string, for the file's metadata. */
static char *record_command_line(char **argv)
{
	size_t len = 1;
	char *command;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	command = calloc(1, len);
	for (int i = 0; command && argv[i]; i++) {
		strcat(command, argv[i]);
		if (argv[i + 1])
			strcat(command, " ");
	}
	return command;
}

/* --probe without PATH: in-process probes, their events selected as the
 * program's own unless an -e names them.  0, or the exit status. */
static int record_in_process_probes(struct record_session *s)
{
	struct record_opts *o = s->o;
	struct utrace_error err = {0};
	char *exe = record_which(o->argv[0]);
	unsigned bad = 0;
	int ret = record_probes_in_process_parse(s->rp, o->probe_defs, o->nprobes, exe, &bad, &err);

	free(exe);
	if (ret < 0 && err.column > 0)
		record_expr_error("--probe", o->probe_defs[bad], &err);
	else if (ret < 0)
		utrace_die_msg("record", "--probe: %s", err.msg);
	if (ret < 0)
		return err.code == -ENOMEM ? 1 : 2;
	return record_probes_in_process_specs(s->rp, o->specs, o->nspecs, s->uspecs,
					      &s->nuspecs) < 0;
}

/* --probe and -e usdt: become uprobes, enabled as kernel events; an -e
 * whose SYSTEM is a directory of tracefs events/ is a kernel event; the
 * rest are the programs' own tracepoints.  0, or the exit status. */
static int record_split_events(struct record_session *s)
{
	struct record_opts *o = s->o;
	struct utrace_error err = {0};

	int ret = record_synth_parse(o->synth_defs, o->nsynth, &s->synths);

	if (ret)
		return ret;
	s->uspecs = calloc(o->nspecs + o->nprobes + 1, sizeof(*s->uspecs));
	s->kspecs = calloc(o->nspecs + o->nprobes + 1, sizeof(*s->kspecs));
	s->rp = record_probes_new();
	if (!s->uspecs || !s->kspecs || !s->rp) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	if ((ret = record_in_process_probes(s)))
		return ret;
	for (unsigned i = 0; i < o->nprobes; i++) {
		const char *pat;

		if (utrace_kprobe_is_in_process(o->probe_defs[i]))
			continue;
		pat = record_probes_add_def(s->rp, o->probe_defs[i], &err);
		if (!pat) {
			if (err.column > 0)
				record_expr_error("--probe", o->probe_defs[i], &err);
			else
				utrace_die_msg("record", "--probe: %s", err.msg);
			return 2;
		}
		s->kspecs[s->nkspecs++] = (struct utrace_event_spec){.pattern = pat};
	}
	for (unsigned i = 0; i < o->nspecs; i++) {
		struct utrace_event_spec *spec = &o->specs[i];

		if (!strncmp(spec->pattern, "usdt:", 5)) {
			char *exe = record_which(o->argv[0]);
			const char *pat = record_probes_add_usdt(s->rp, spec->pattern, exe, &err);

			free(exe);
			if (!pat) {
				utrace_die_msg("record", "%s", err.msg);
				return 2;
			}
			s->kspecs[s->nkspecs++] =
			    (struct utrace_event_spec){.pattern = pat, .filter = spec->filter};
		} else if (!(o->nsynth && !strncmp(spec->pattern, "synthetic:", 10)) &&
			   utrace_ktrace_is_kernel(spec->pattern)) {
			/* (the --synthetic events are this recording's own) */
			/* -R: parsed now, compiled for each format as the
			 * instance enables it (lib/record/recorder_hist.c) */
			if (record_check_triggers(spec, 1, NULL, 0, NULL, 0))
				return 2;
			s->kspecs[s->nkspecs++] = *spec;
		} else {
			s->uspecs[s->nuspecs++] = *spec;
		}
	}
	/* an enable_event target of a kernel event is a kernel event: the
	 * instance enables it, the recorder keeps its records off until then */
	if (record_trigger_targets(&s->uspecs, &s->nuspecs, &s->target_names, &s->nr_target_names) <
		0 ||
	    record_trigger_targets(&s->kspecs, &s->nkspecs, &s->target_names, &s->nr_target_names) <
		0) {
		utrace_die_msg("record", "out of memory");
		return 1;
	}
	return 0;
}

/* Whether pattern names an event of one of the files. */
static bool record_event_exists(const struct record_session *s, const char *pattern,
				struct utrace_event_list **lists, size_t n)
{
	if (record_probes_names(s->rp, pattern))
		return true;
	for (unsigned i = 0; i < s->o->nsynth; i++)
		if (utrace_event_spec_matches(pattern, "synthetic", s->synths[i]->name))
			return true;
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; lists[i] && k < utrace_event_list_count(lists[i]); k++) {
			const struct utrace_event_format *f = utrace_event_list_get(lists[i], k);

			if (utrace_event_spec_matches(pattern, f->system, f->name))
				return true;
		}
	return false;
}

/*
 * Every -e of the programs' own events must name an event of the program
 * or of a library it loads at start: one that exists nowhere is an error
 * before anything runs (a typo would otherwise record nothing).  When the
 * kernel's events cannot be seen (not root), that is said too, since the
 * pattern may have meant one of them.  0, or the exit status.
 */
static int record_check_user_events(struct record_session *s)
{
	struct utrace_libdeps deps = {0};
	struct utrace_event_list **lists = NULL;
	struct utrace_error err = {0};
	char *exe = record_which(s->o->argv[0]);
	size_t n = 0;
	int ret = 0;

	if (!exe || utrace_libdeps_get(exe, &deps, &err) < 0) {
		free(exe); /* not a program we can read: spawning will say so */
		return 0;
	}
	lists = calloc(deps.n + 1, sizeof(*lists));
	if (!lists) {
		utrace_die_msg("record", "out of memory");
		ret = 1;
	}
	for (size_t i = 0; lists && i <= deps.n; i++)
		if (utrace_event_list_load(i ? deps.paths[i - 1] : exe, &lists[n], &err) == 0)
			n++;
	for (unsigned i = 0; lists && !ret && i < s->nuspecs; i++) {
		const char *why;

		if (record_event_exists(s, s->uspecs[i].pattern, lists, n))
			continue;
		if (s->uspecs[i].exclude && !s->uspecs[i].nr_triggers)
			continue; /* -v -e: nothing to record, nothing to check */
		if ((why = utrace_ktrace_unavailable()))
			utrace_die_msg("record",
				       "-e %s: no such event in %s or its libraries, and kernel "
				       "events need access to tracefs (run as root): %s",
				       s->uspecs[i].pattern, exe, why);
		else
			utrace_die_msg("record",
				       "-e %s: no such event in %s or its libraries, nor in the "
				       "kernel (utrace list -e %s lists the program's)",
				       s->uspecs[i].pattern, exe, s->o->argv[0]);
		ret = 2;
	}
	if (lists && !ret)
		ret = record_check_triggers(s->uspecs, s->nuspecs, lists, n, s->synths,
					    s->o->nsynth);
	for (size_t i = 0; i < n; i++)
		utrace_event_list_free(lists[i]);
	free(lists);
	utrace_libdeps_free(&deps);
	free(exe);
	return ret;
}

/* The kernel instance and the user event selection, each filter checked
 * (a bad one stops us before the command runs).  0, or the exit status. */
static int record_open_events(struct record_session *s)
{
	struct utrace_error err = {0};
	unsigned bad = 0;
	int ret;

	if (s->nuspecs && (ret = record_check_user_events(s)))
		return ret;
	if ((s->o->children || s->o->system_wide) && !s->nkspecs)
		fprintf(stderr,
			"utrace record: -%c applies to kernel events only (none selected)\n",
			s->o->system_wide ? 'a' : 'c');
	if (s->nkspecs && utrace_ktrace_open(s->kspecs, s->nkspecs, 0, &s->k.kt, &bad, &err) < 0) {
		if (err.column > 0)
			record_filter_error(s->kspecs[bad].filter, &err);
		else
			utrace_die_msg("record", "%s", err.msg);
		return err.column > 0 || err.code == -ENOENT ? 2 : 1;
	}
	if (s->k.kt && (ret = record_kernel_triggers(s->k.kt, s->kspecs, s->nkspecs)))
		return ret;
	s->o->rec.kspecs = s->kspecs;
	s->o->rec.nkspecs = s->nkspecs;
	/* --tracefs: every event is made switchable (events/.../enable) */
	if (s->nuspecs || s->o->tracefs) {
		char *exe = record_which(s->o->argv[0]);

		if (utrace_event_select_new(s->uspecs, s->nuspecs, &s->events, &err) < 0) {
			utrace_die_msg("record", "%s", err.msg);
			free(exe);
			return 1;
		}
		if (s->o->tracefs)
			utrace_event_select_all(s->events);
		if (exe && utrace_event_select_check(s->events, exe, &bad, &err) < 0) {
			record_filter_error(s->uspecs[bad].filter, &err);
			free(exe);
			return 2;
		}
		free(exe);
		for (unsigned i = 0; i < s->o->nsynth; i++)
			if (utrace_event_select_add_format(s->events, s->synths[i]->fmt) < 0) {
				utrace_die_msg("record", "out of memory");
				return 1;
			}
		if (record_probes_add_formats(s->rp, s->events, &s->o->rec.kprobes,
					      &s->o->rec.nr_kprobes) < 0) {
			utrace_die_msg("record", "out of memory");
			return 1;
		}
		s->o->rec.events = s->events;
	}
	/* a kernel event's onmatch() fires them too, selected by an -e or not */
	s->o->rec.synths = s->synths;
	s->o->rec.nr_synths = s->o->nsynth;
	return 0;
}

/* -P: kernel tracing on the first process, the runtime injected. */
static int record_attach_begin(struct record_session *s)
{
	if (s->k.kt && record_kernel_start(&s->k, s->o->pids[0]) < 0) {
		utrace_die_msg("record", "%s", s->k.err.msg);
		return 1;
	}
	return record_attach_start(s->attach, s->r);
}

/* The recorder, the kernel header and formats, the command started.
 * 0, or the exit status. */
static int record_start(struct record_session *s)
{
	struct utrace_recorder_opts *ro = &s->o->rec;
	struct utrace_error err = {0};

	if (utrace_recorder_new(ro, &s->r, &err) < 0) {
		utrace_die_msg("record", "%s", err.msg);
		return 1;
	}
	if (s->k.kt) {
		const char *clock, *hpage, *hevent;
		uint32_t subbuf;

		utrace_ktrace_header(s->k.kt, &clock, &subbuf, &hpage, &hevent);
		if (utrace_recorder_write_kheader(s->r, clock, subbuf, hpage, hevent, &err) < 0 ||
		    utrace_ktrace_formats(s->k.kt, record_kformat, s->r, &err) < 0 ||
		    utrace_recorder_kready(s->r, &err) < 0) {
			utrace_die_msg("record", "%s: %s", ro->output, err.msg);
			return 1;
		}
	}
	if (s->o->tracefs && !(s->live = record_live_start(s->r, s->o->tracefs, s->o)))
		return 1;
	if (s->live && s->o->live_ready)
		s->o->live_ready(s->o->live_ready_arg, s->o->tracefs);
	if (record_interrupted)
		return 1;
	if (s->attach)
		return record_attach_begin(s);
	s->pid = record_spawn(s->o->argv, utrace_recorder_sock_path(s->r), s->runtime, ro->libcall,
			      &s->k, &err);
	if (s->pid == -2) {
		utrace_die_msg("record", "%s", s->k.err.msg);
		return 1;
	}
	if (s->pid < 0) {
		utrace_die_msg("record", "%s", err.msg);
		return 127;
	}
	if (s->k.sampler && record_perf_attr(s->r, s->k.sampler, s->o->sample.user_only, &err) < 0)
		utrace_die_msg("record", "%s: %s (the samples will not be readable)", ro->output,
			       err.msg);
	return 0;
}

/* A read of the kernel's CPUs; after a whole round, the triggers the
 * recorder runs on kernel events get the records it made safe to run. */
static int record_kpoll(struct record_session *s, struct utrace_error *err)
{
	int ret = utrace_ktrace_poll(s->k.kt, false, record_kpage, s->r, err);

	return ret > 0 ? utrace_recorder_kround(s->r, err) : ret;
}

/* Record until the command and every process it started that is traced
 * have gone, or until interrupted. */
static void record_loop(struct record_session *s)
{
	struct utrace_error err = {0};

	for (;;) {
		if (utrace_recorder_poll(s->r, 1, &err) < 0) {
			utrace_die_msg("record", "%s (stopping; what was recorded is saved)",
				       err.msg);
			break;
		}
		if (s->k.kt && record_kpoll(s, &err) < 0) {
			utrace_die_msg("record", "%s (stopping; what was recorded is saved)",
				       err.msg);
			break;
		}
		if (s->k.sampler && utrace_sampler_drain(s->k.sampler, record_perf, record_offcpu,
							 false, s->r, &err) < 0) {
			utrace_die_msg("record", "%s (stopping; what was recorded is saved)",
				       err.msg);
			break;
		}
		if (s->attach && record_attach_over(s->attach))
			break;
		if (!s->attach && !s->exited && waitpid(s->pid, &s->status, WNOHANG) == s->pid)
			s->exited = true;
		if (s->exited && utrace_recorder_idle(s->r))
			break;
		if (record_interrupted)
			break;
		record_live_yield(s->live);
	}
	if (record_interrupted && !s->exited && !s->attach) {
		utrace_recorder_stop(s->r);
		s->stopped = true;
		/* give the processes a moment to close their connections */
		for (int i = 0; i < 100 && !utrace_recorder_idle(s->r); i++)
			utrace_recorder_poll(s->r, 1, &err);
	}
}

/* A program with no call sites, and function patterns that matched no
 * function: the recording is not what was asked for; say so, as
 * trace-cmd and uftrace do. */
static void record_warn_unmatched(struct record_session *s, const struct utrace_recorder_stats *st)
{
	static const char *const opt[] = {"-l", "-n", "-g", "--graph-notrace"};
	const struct record_opts *o = s->o;
	enum utrace_filter_list which;
	const char *expr;
	bool neg;

	if (o->rec.tracer == UTRACE_TRACER_NOP)
		return;
	if (!st->sites) {
		fprintf(
		    stderr,
		    "utrace record: %s has no call sites: %s; build it with "
		    "the flags of `utrace cflags` (cc $(utrace cflags) ...)\n",
		    o->argv[0],
		    o->rec.libcall ? "only its library calls were traced" : "no function was traced");
		return;
	}
	for (size_t i = 0;
	     o->filter && (expr = utrace_func_filter_expr(o->filter, i, &which, &neg)); i++) {
		if (neg || utrace_recorder_filter_hits(s->r, i))
			continue;
		if (o->unmatched)
			o->unmatched[i] = true;
		else
			fprintf(stderr,
				"utrace record: %s '%s' matched no function of the traced programs "
				"(utrace list -f shows them)\n",
				opt[which], expr);
	}
}

/* What was saved, what was lost, what matched nothing. */
static void record_summary(struct record_session *s, const struct utrace_recorder_stats *st)
{
	const struct utrace_recorder_opts *ro = &s->o->rec;
	int bpid, btid;
	char comm[16];
	uint64_t recs, lost;

	if (!s->o->quiet)
		fprintf(stderr,
			"utrace record: %llu records (%llu lost) from %u threads of %u processes "
			"saved to %s (%llu bytes)\n",
			(unsigned long long)st->records, (unsigned long long)st->lost, st->buffers,
			st->images, ro->output, (unsigned long long)st->file_bytes);
	for (uint32_t i = 0;
	     utrace_recorder_buffer_stats(s->r, i, &bpid, &btid, comm, &recs, &lost); i++)
		if (lost)
			fprintf(stderr, "utrace record:   %s-%d (pid %d): %llu records lost\n",
				comm, btid, bpid, (unsigned long long)lost);
	record_warn_unmatched(s, st);
	for (unsigned i = 0; i < s->nuspecs; i++)
		if (!s->uspecs[i].matched)
			fprintf(stderr,
				"utrace record: -e %s: no such event in the traced programs\n",
				s->uspecs[i].pattern);
	if (s->k.sampler) {
		uint64_t samples, lost, offcpu;

		utrace_sampler_stats(s->k.sampler, &samples, &lost, &offcpu);
		fprintf(stderr, "utrace record: %llu samples at %u Hz (%llu lost)\n",
			(unsigned long long)samples, s->o->sample.freq, (unsigned long long)lost);
		if (s->o->sample.off_cpu)
			fprintf(stderr, "utrace record: %llu off-CPU samples\n",
				(unsigned long long)offcpu);
	}
	if (s->k.kt) {
		uint64_t pages, missed;

		utrace_ktrace_stats(s->k.kt, &pages, &missed);
		if (!s->o->quiet || missed) /* a warning when events were lost */
			fprintf(stderr,
				"utrace record: %llu kernel pages (%llu with events lost)\n",
				(unsigned long long)pages, (unsigned long long)missed);
	}
	if (st->disconnected)
		fprintf(stderr,
			"utrace record: %u process%s closed utrace's connection while running: "
			"what %s threads wrote is saved; threads, libraries and processes %s "
			"started afterwards were not traced\n",
			st->disconnected, st->disconnected == 1 ? "" : "es",
			st->disconnected == 1 ? "its" : "their",
			st->disconnected == 1 ? "it" : "they");
	if (st->waits)
		fprintf(stderr,
			"utrace record: buffers were full %llu times: the threads waited %.3f s "
			"for the recorder (--drop would have lost records instead)\n",
			(unsigned long long)st->waits, st->wait_ns / 1e9);
	if (st->overrun && ro->overwrite)
		fprintf(stderr,
			"utrace record: overwrite mode kept the newest records; %llu older "
			"sub-buffers were overwritten\n",
			(unsigned long long)st->overrun);
}

/* When recording ends: the kernel symbols of the frames of the kernel's
 * stacks the recording holds (-R stacktrace, hists on common_stacktrace),
 * named while this machine's /proc/kallsyms is at hand. */
static int record_kstack_syms(struct utrace_ktrace *kt, struct utrace_recorder *r,
			      struct utrace_error *err)
{
	const uint64_t *addrs = NULL;
	size_t n, len;
	char *text;
	int ret;

	if (!utrace_ktrace_stacks(kt) || !(n = utrace_recorder_kstack_addrs(r, &addrs)))
		return 0;
	if (!(text = utrace_ktrace_kallsyms(NULL, addrs, n, &len, err)))
		return err->code;
	ret = len ? utrace_recorder_write_ksyms(r, text, len, err) : 0;
	free(text);
	return ret;
}

/* Drain, write the last records, print the summary, close the kernel
 * side, wait for the command. */
static void record_end(struct record_session *s)
{
	const char *output = s->o->rec.output;
	struct utrace_recorder_stats st;
	struct utrace_error err = {0};

	if (s->k.kt) {
		const struct utrace_dat_ktask *tasks;
		size_t ntasks;

		if (utrace_ktrace_stop(s->k.kt, record_kpage, s->r, &err) < 0)
			utrace_die_msg("record", "%s (what was recorded is saved)", err.msg);
		tasks = utrace_ktrace_tasks(s->k.kt, &ntasks);
		if (utrace_recorder_write_ktasks(s->r, tasks, ntasks, &err) < 0 ||
		    record_kstack_syms(s->k.kt, s->r, &err) < 0)
			utrace_die_msg("record", "%s: %s", output, err.msg);
	}
	if (s->k.sampler &&
	    utrace_sampler_drain(s->k.sampler, record_perf, record_offcpu, true, s->r, &err) < 0)
		utrace_die_msg("record", "%s: %s", output, err.msg);
	if (s->k.sampler && record_ksyms(s->r, s->k.sampler, &err) < 0)
		utrace_die_msg("record", "%s: %s (the kernel's frames will not be named)", output,
			       err.msg);
	if (s->attach)
		record_attach_detach(s->attach, s->r);
	record_live_stop(s->live); /* the tracefs reads the file: before it is closed */
	s->live = NULL;
	if (utrace_recorder_finish(s->r, &st, &err) < 0)
		utrace_die_msg("record", "%s: %s", output, err.msg);
	else
		record_summary(s, &st);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	s->k.kt = NULL;
	record_probes_free(s->rp); /* after the instance: enabled probes stay */
	s->rp = NULL;
	if (s->stopped)
		fprintf(stderr, "utrace record: interrupted; waiting for %s to exit\n",
			s->o->argv[0]);
	if (!s->exited && !s->attach) {
		signal(SIGINT, SIG_DFL);
		while (waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
			;
	}
}

static void record_cleanup(struct record_session *s)
{
	struct utrace_error err = {0};

	record_live_stop(s->live);
	if (utrace_ktrace_close(s->k.kt, &err) < 0)
		utrace_die_msg("record", "%s", err.msg);
	record_probes_free(s->rp);
	record_attach_free(s->attach);
	utrace_sampler_close(s->k.sampler);
	utrace_recorder_free(s->r);
	free(s->command);
	utrace_event_select_free(s->events);
	record_synth_free(s->synths, s->o->nsynth);
	free(s->uspecs);
	free(s->kspecs);
	for (unsigned i = 0; i < s->nr_target_names; i++)
		free(s->target_names[i]);
	free(s->target_names);
}

int record_run(struct record_opts *o)
{
	struct record_session s = {.o = o};
	int ret;

	if (record_find_runtime(s.runtime, sizeof(s.runtime)) < 0) {
		utrace_die_msg("record",
			       "cannot find libutrace.so next to utrace (set UTRACE_LIB)");
		return 1;
	}
	if (!o->rec.notice)
		o->rec.notice = record_notice;
	if (o->npids && !(s.attach = record_attach_check(o, s.runtime, &ret)))
		return ret;
	s.command = record_command_line(o->argv);
	o->rec.command = s.command;
	o->rec.filter = o->filter;
	s.k.children = o->children;
	s.k.system_wide = o->system_wide;
	s.k.sopts = o->sample.freq ? &o->sample : NULL;
	signal(SIGINT, record_on_signal);
	signal(SIGTERM, record_on_signal);
	signal(SIGHUP, record_on_signal);
	signal(SIGPIPE, SIG_IGN);
	ret = record_split_events(&s);
	if (!ret)
		ret = record_open_events(&s);
	if (!ret)
		ret = record_start(&s);
	if (!ret) {
		record_loop(&s);
		record_end(&s);
		ret = s.attach ? record_attach_status(s.attach) : RECORD_RAN;
	}
	record_cleanup(&s);
	if (ret == RECORD_RAN && o->keep_status) {
		o->status = s.status;
		return RECORD_RAN;
	}
	/* end as the command ended: this may raise its signal on ourselves,
	 * so only once everything is cleaned up */
	return ret == RECORD_RAN ? utrace_exit_like(s.status) : ret;
}
