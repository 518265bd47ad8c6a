/* SPDX-License-Identifier: MIT */
/*
 * live_files.c - the files of the live tracefs and their rules, the
 * kernel's (kernel/trace/trace.c, ftrace.c):
 *
 *   current_tracer   "nop\n"; a write of an unknown name fails (EINVAL)
 *   tracing_on       "1\n"; a write of a number sets it, else EINVAL
 *   trace            the recording; an open with O_TRUNC (`echo > trace`)
 *                    clears it, a write is taken and ignored
 *   trace_pipe       the same, consumed as it is read (live_pipe.c)
 *   trace_marker     a write is a print record (EBADF while tracing is off)
 *   per_cpu/cpuN/trace  the events written on CPU N; O_TRUNC clears them
 *   set_ftrace_filter, set_ftrace_notrace, set_graph_function,
 *   set_graph_notrace
 *                    the functions selected, one a line (the kernel's
 *                    "#### all functions enabled ####" when empty); `>`
 *                    starts the list over, `>>` adds to it, a `!GLOB`
 *                    excludes; each write is checked at once (a bad
 *                    expression or one that names no function: EINVAL),
 *                    the list is applied when the file is closed
 *   error_log        the last errors; `echo > error_log` clears it
 *   stack_trace_filter  a function list as set_ftrace_filter (the stack
 *                    tracer's, live_stack.c, which has its other files)
 *   available_tracers, available_filter_functions (buffer_size_kb,
 *   buffer_subbuf_size_kb and tracing_cpumask: live_buffers.c;
 *   kprobe_profile: live_profile.c)
 *
 * Every callback runs with l->lock held (live_fs.c).
 */
#define FUSE_USE_VERSION 312
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/rb_abi.h"
#include "lib/tracefs/live_internal.h"

static int show_tracers(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	/* the kernel's order: the newest registered first */
	if (live_wakeup_available(l))
		fputs("function_graph wakeup_rt wakeup function nop\n", out);
	else
		fputs("function_graph function nop\n", out);
	return 0;
}

static int show_tracer(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%s\n", live_current_tracer(l));
	return 0;
}

static long write_tracer(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	enum utrace_tracer t = UTRACE_TRACER_NOP;
	char *s = live_strip(buf, n);
	int ret, wk;

	if (!s)
		return -ENOMEM;
	wk = live_wakeup_available(l) ? live_wakeup_parse(l, s) : -1;
	if (wk < 0 && live_tracer_parse(s, &t) < 0) {
		live_errlog_add(l, "current_tracer", s, "No such tracer", 0);
		free(s);
		return -EINVAL;
	}
	if (wk < 0 ? t == l->tracer && !l->wakeup : wk == l->wakeup) {
		free(s);
		return (long)n;
	}
	if (wk > 0)
		ret = live_wakeup_set(l, wk, &err);
	else if ((ret = live_wakeup_set(l, LIVE_WAKEUP_NONE, &err)) >= 0)
		ret = live_apply(l, t, l->lists, &err);
	if (ret < 0) /* say why, as the write fails */
		live_errlog_add(l, "current_tracer", s, err.msg[0] ? err.msg : strerror(-ret), 0);
	free(s);
	if (ret < 0)
		return ret;
	/* as the kernel resets the buffer for a new tracer: one layout */
	live_trace_clear(l);
	return (long)n;
}

static int show_tracing_on(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%u\n", l->ops.tracing_on(l->ops.arg, -1));
	return 0;
}

static long write_tracing_on(struct utrace_live *l, struct live_handle *h, const char *buf,
			     size_t n)
{
	char *s = live_strip(buf, n), *end;
	unsigned long v;

	if (!s)
		return -ENOMEM;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (!*s || *end || errno) {
		free(s);
		return -EINVAL;
	}
	free(s);
	l->ops.tracing_on(l->ops.arg, v ? 1 : 0);
	return (long)n;
}

/* trace, per_cpu/cpuN/trace: the events after the last clear and after
 * what trace_pipe (and, for cpuN, its own pipe) consumed, as the kernel's
 * trace no longer holds what a consuming read took (live_pipe.c) */
static int show_trace(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};
	uint64_t since = l->clear_ns, read = live_pipe_read_ns(l, h->cpu);

	if (h->cpu >= 0 && l->cpu_clear_ns[h->cpu] > since)
		since = l->cpu_clear_ns[h->cpu];
	if (read && read + 1 > since)
		since = read + 1;
	return l->ops.print_trace(l->ops.arg, out, live_current_tracer(l), l->options, since,
				  h->cpu, NULL, &err);
}

static int open_trace(struct utrace_live *l, struct live_handle *h, int flags)
{
	struct timespec ts;

	if (!(flags & O_TRUNC))
		return 0;
	if (h->cpu < 0) {
		live_trace_clear(l);
		if (l->wakeup && l->ops.wakeup_clear) /* the kernel clears the max buffer */
			l->ops.wakeup_clear(l->ops.arg);
		return 0;
	}
	/* the kernel clears only that CPU's buffer */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	l->cpu_clear_ns[h->cpu] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

/* utrace.dat (utrace's own, no kernel file): the buffers as a complete
 * utrace.dat, made at open (utrace extract reads it). */
static int show_extract(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};

	if (l->ops.extract(l->ops.arg, out, &err) < 0) {
		live_errlog_add(l, "utrace.dat", "", err.msg, 0);
		return err.code;
	}
	return 0;
}

/* trace, error_log, trace_marker...: a write is taken whole. */
static long write_taken(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	return (long)n;
}

static int show_depth(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	fprintf(out, "%u\n", l->max_depth);
	return 0;
}

/* max_graph_depth: a number, 0 for no limit; the processes get it with
 * the tracer. */
static long write_depth(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	char *s = live_strip(buf, n), *end;
	uint32_t old = l->max_depth;
	unsigned long v;
	int ret;

	if (!s)
		return -ENOMEM;
	errno = 0;
	v = strtoul(s, &end, 10);
	ret = !*s || *end || errno || *s == '-' || v > UINT32_MAX ? -EINVAL : 0;
	free(s);
	if (ret < 0)
		return ret;
	l->max_depth = (uint32_t)v;
	if ((ret = live_apply(l, l->tracer, l->lists, &err)) < 0) {
		l->max_depth = old;
		return ret;
	}
	return (long)n;
}

/* The thread whose request is served (FUSE's caller: its pid as the
 * kernel's current->pid, a thread id). */
static int32_t caller_pid(void)
{
	return (int32_t)fuse_get_context()->pid;
}

/* trace_marker: the kernel writes nothing while tracing is off (EBADF).
 * The record is the writer's (the thread FUSE says made the request).
 * Its record ends with one newline; the print record's line has its own,
 * so the text goes without.  A text longer than one record of the
 * buffers' sub-buffers holds (utrace_print_max of buffer_subbuf_size_kb's
 * size, or less: what the recording says it took) is cut there and the
 * write is short, as the kernel's: the writer writes the rest, which is
 * the next record. */

static long write_marker(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	size_t len = n;
	int ret;

	if (!l->ops.tracing_on(l->ops.arg, -1))
		return -EBADF;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len > utrace_print_max(live_subbuf_size(l)))
		n = len = utrace_print_max(live_subbuf_size(l));
	ret = l->ops.marker(l->ops.arg, caller_pid(), buf, len, &err);
	if (ret >= 0 && (size_t)ret < len)
		n = (size_t)ret; /* a smaller record (a kernel page's) took less */
	return ret < 0 ? ret : (long)n;
}

static int show_errlog(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	live_errlog_show(l, out);
	return 0;
}

static int open_errlog(struct utrace_live *l, struct live_handle *h, int flags)
{
	if (flags & O_TRUNC)
		live_errlog_clear(l);
	return 0;
}

/* ---- function lists ------------------------------------------------- */

struct func_walk {
	FILE *out;
	const struct utrace_func_filter *f;
	int which;  /* -1: every function (available_filter_functions) */
	size_t hits;
};

static void func_print(void *arg, const char *name, const char *raw, const char *module,
		       bool main_object)
{
	struct func_walk *w = arg;
	const char *base = module ? strrchr(module, '/') : NULL;
	unsigned sel;

	if (w->which >= 0) {
		sel = utrace_func_filter_select(w->f, name, raw, module);
		/* set_ftrace_notrace lists what its own expressions match */
		if (w->which == UTRACE_NOTRACE ? (sel & UTRACE_SITE_TRACE)
		    : w->which == UTRACE_GRAPH ? !(sel & UTRACE_SITE_GRAPH_ROOT)
		    : w->which == UTRACE_GRAPH_NOTRACE ? !(sel & UTRACE_SITE_GRAPH_NOTRACE)
						       : !(sel & UTRACE_SITE_TRACE))
			return;
	}
	w->hits++;
	if (!w->out)
		return;
	if (main_object || !module)
		fprintf(w->out, "%s\n", name ? name : raw);
	else
		fprintf(w->out, "%s [%s]\n", name ? name : raw, base ? base + 1 : module);
}

static int show_functions(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct func_walk w = {out, NULL, -1, 0};

	l->ops.functions(l->ops.arg, func_print, &w);
	return 0;
}

/* How many traceable functions expression expr selects, or -EINVAL if
 * it does not parse. */
static long expr_hits(struct utrace_live *l, const char *expr)
{
	struct live_list one[UTRACE_FILTER_LISTS] = {{(char **)&expr, 1, 1}};
	struct utrace_error err = {0};
	struct func_walk w = {NULL, NULL, UTRACE_FILTER, 0};

	w.f = live_filter_make(one, &err);
	if (!w.f)
		return -EINVAL;
	l->ops.functions(l->ops.arg, func_print, &w);
	utrace_func_filter_free((struct utrace_func_filter *)w.f);
	return (long)w.hits;
}

/* A "GLOB:mod:LIB" that names no loaded function: kept for when LIB
 * loads, as the kernel keeps a module's (ftrace_mod_callback()). */
static bool expr_mod(const char *expr)
{
	return expr[0] != '!' && strstr(expr, ":mod:") && !strstr(expr, "::mod::");
}

/* Each expression must parse and, unless it excludes or waits for a
 * library, name a function. */
static int check_expr(struct utrace_live *l, const char *expr)
{
	long hits = expr_hits(l, expr);

	if (hits < 0)
		return -EINVAL;
	return expr[0] == '!' || hits || expr_mod(expr) ? 0 : -EINVAL;
}

/* The kept "GLOB:mod:LIB" whose library is not loaded yet, listed as
 * written after the functions (the kernel's t_mod_show()). */
static void show_pending_mods(struct utrace_live *l, const struct live_list *list, FILE *out)
{
	for (size_t i = 0; i < list->n; i++)
		if (expr_mod(list->expr[i]) && expr_hits(l, list->expr[i]) == 0)
			fprintf(out, "%s\n", list->expr[i]);
}

/* A function list: the tracer's (enum utrace_filter_list), or
 * stack_trace_filter's (LIVE_STACK_LIST, live_stack.c), which selects as
 * set_ftrace_filter does. */
static struct live_list *list_of(struct utrace_live *l, int which)
{
	return which == LIVE_STACK_LIST ? &l->stack_list : &l->lists[which];
}

static int list_kind(int which)
{
	return which == LIVE_STACK_LIST ? UTRACE_FILTER : which;
}

static int show_list(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct live_list one[UTRACE_FILTER_LISTS] = {{0}};
	struct utrace_error err = {0};
	int kind = list_kind(h->f->which);
	struct func_walk w = {out, NULL, kind, 0};

	if (!list_of(l, h->f->which)->n) {
		/* the kernel's texts for an empty list (ftrace.c t_show, g_show) */
		if (kind == UTRACE_FILTER || kind == UTRACE_GRAPH)
			fputs("#### all functions enabled ####\n", out);
		else if (kind == UTRACE_GRAPH_NOTRACE)
			fputs("#### no functions disabled ####\n", out);
	} else {
		/* the list alone: what it selects (notrace: what it drops) */
		one[kind] = *list_of(l, h->f->which);
		if (!(w.f = live_filter_make(one, &err)))
			return err.code;
		l->ops.functions(l->ops.arg, func_print, &w);
		utrace_func_filter_free((struct utrace_func_filter *)w.f);
		if (kind == UTRACE_FILTER || kind == UTRACE_NOTRACE)
			show_pending_mods(l, list_of(l, h->f->which), out);
	}
	if (h->f->which == UTRACE_FILTER)
		live_ftcmd_show(l, out); /* then the function commands */
	return 0;
}

static int open_list(struct utrace_live *l, struct live_handle *h, int flags)
{
	if ((flags & O_ACCMODE) == O_RDONLY)
		return 0;
	h->dirty = (flags & O_TRUNC) != 0;
	return h->dirty ? 0 : live_list_copy(&h->pending, list_of(l, h->f->which));
}

static long write_list(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char *s = strndup(buf, n), *save = NULL;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (char *e = strtok_r(s, " \t\n", &save); e && ret >= 0; e = strtok_r(NULL, " \t\n", &save))
		if (h->f->which == UTRACE_FILTER && live_ftcmd_is(e))
			ret = live_ftcmd_write(l, e); /* FUNC:CMD, at once */
		else if ((ret = check_expr(l, e)) >= 0)
			ret = live_list_add(&h->pending, e);
	free(s);
	if (ret < 0)
		return ret;
	h->dirty = true;
	h->wrote = true;
	return (long)n;
}

/*
 * A shell's `echo f > LIST` opens the file (O_TRUNC), dup2()s it onto its
 * output and closes the first descriptor, a flush, before it writes: a
 * list emptied by the open is applied only once a write came (or at the
 * release, live_fs.c, for an open that wrote nothing), else every
 * function would be patched for a moment.
 */
static int flush_list(struct utrace_live *l, struct live_handle *h)
{
	struct live_list lists[UTRACE_FILTER_LISTS];
	struct utrace_error err = {0};

	if (!h->dirty || !h->wrote)
		return 0;
	h->dirty = false;
	if (h->f->which == LIVE_STACK_LIST)
		return live_stack_filter_apply(l, &h->pending);
	memcpy(lists, l->lists, sizeof(lists));
	lists[h->f->which] = h->pending; /* live_apply copies them */
	return live_apply(l, l->tracer, lists, &err);
}

#define NFILES(t) (sizeof(t) / sizeof((t)[0]))
#define RO 0444
#define RW 0644
static const struct live_file files[] = {
    {"available_tracers", RO, show_tracers, NULL, NULL, NULL, 0, false},
    {"current_tracer", RW, show_tracer, NULL, write_tracer, NULL, 0, false},
    {"tracing_on", RW, show_tracing_on, NULL, write_tracing_on, NULL, 0, false},
    {"trace", RW, show_trace, open_trace, write_taken, NULL, 0, false},
    {"trace_pipe", RO, NULL, NULL, NULL, NULL, 0, true},
    {"trace_marker", 0220, NULL, NULL, write_marker, NULL, 0, false},
    {"set_ftrace_filter", RW, show_list, open_list, write_list, flush_list, UTRACE_FILTER, false},
    {"set_ftrace_notrace", RW, show_list, open_list, write_list, flush_list, UTRACE_NOTRACE, false},
    {"set_graph_function", RW, show_list, open_list, write_list, flush_list, UTRACE_GRAPH, false},
    {"set_graph_notrace", RW, show_list, open_list, write_list, flush_list, UTRACE_GRAPH_NOTRACE,
     false},
    {"max_graph_depth", RW, show_depth, NULL, write_depth, NULL, 0, false},
    {"available_filter_functions", RO, show_functions, NULL, NULL, NULL, 0, false},
    {"error_log", RW, show_errlog, open_errlog, write_taken, NULL, 0, false},
    {"buffer_size_kb", RW, live_show_bufsize, NULL, live_write_bufsize, NULL, 0, false},
    {"buffer_subbuf_size_kb", RW, live_show_subbuf, NULL, live_write_subbuf, NULL, 0, false},
    {"kprobe_profile", RO, live_show_kprobe_profile, NULL, NULL, NULL, 0, false},
    {"tracing_cpumask", RW, live_show_cpumask, NULL, live_write_cpumask, NULL, 0, false},
    {"available_events", RO, live_show_events, NULL, NULL, NULL, 0, false},
    {"trace_options", RW, live_show_options, NULL, live_write_options, NULL, 0, false},
    {"utrace.dat", RO, show_extract, NULL, NULL, NULL, 0, false},
    {"utrace.kallsyms", RO, live_show_kallsyms, NULL, NULL, NULL, 0, false},
    {"dynamic_events", RW, live_show_dynev, live_open_dynev, live_write_dynev, NULL,
     LIVE_DYN_DYNAMIC, false},
    {"synthetic_events", RW, live_show_dynev, live_open_dynev, live_write_dynev, NULL,
     LIVE_DYN_SYNTHETIC, false},
    {"kprobe_events", RW, live_show_dynev, live_open_dynev, live_write_dynev, NULL,
     LIVE_DYN_KPROBES, false},
    {"uprobe_events", RW, live_show_dynev, live_open_dynev, live_write_dynev, NULL,
     LIVE_DYN_UPROBES, false},
    {"snapshot", RW, live_show_snapshot, NULL, live_write_snapshot, NULL, 0, false},
    {"tracing_thresh", RW, live_show_thresh, NULL, live_write_thresh, NULL, 0, false},
    {"tracing_max_latency", RW, live_show_max_latency, NULL, live_write_max_latency, NULL, 0,
     false},
    {"buffer_total_size_kb", RO, live_show_total_kb, NULL, NULL, NULL, 0, false},
    {"set_event_pid", RW, live_show_pids, live_open_pids, live_write_pids, NULL,
     UTRACE_LIVE_PIDS_EVENT, false},
    {"set_event_notrace_pid", RW, live_show_pids, live_open_pids, live_write_pids, NULL,
     UTRACE_LIVE_PIDS_EVENT_NOTRACE, false},
    {"set_event", RW, live_show_set_event, live_open_set_event, live_write_set_event, NULL, 0,
     false},
    {"set_ftrace_pid", RW, live_show_pids, live_open_pids, live_write_pids, NULL,
     UTRACE_LIVE_PIDS_FTRACE, false},
    {"set_ftrace_notrace_pid", RW, live_show_pids, live_open_pids, live_write_pids, NULL,
     UTRACE_LIVE_PIDS_FTRACE_NOTRACE, false},
    {"trace_clock", RW, live_show_clock, NULL, live_write_clock, NULL, 0, false},
    {"README", RO, live_show_readme, NULL, NULL, NULL, 0, false},
    {"function_profile_enabled", RW, live_show_profile_enabled, NULL, live_write_profile_enabled,
     NULL, 0, false},
    {"stack_trace", RO, live_show_stack_trace, NULL, NULL, NULL, 0, false},
    {"stack_max_size", RW, live_show_stack_max, NULL, live_write_stack_max, NULL, 0, false},
    {"stack_trace_filter", RW, show_list, open_list, write_list, flush_list, LIVE_STACK_LIST,
     false},
    {"utrace.stack_tracer_enabled", RW, live_show_stack_enabled, NULL, live_write_stack_enabled,
     NULL, 0, false},
    {"utrace.kprobes_list", RO, live_show_kprobes_list, NULL, NULL, NULL, 0, false},
    {"utrace.kprobes-optimization", RW, live_show_kprobes_opt, NULL, live_write_kprobes_opt, NULL,
     0, false},
};

/* per_cpu/cpuN/: the CPU's part of the recording */
static const struct live_file cpu_files[] = {
    {"buffer_size_kb", RW, live_show_bufsize, NULL, live_write_bufsize, NULL, 0, false},
    {"stats", RO, live_show_cpu_stats, NULL, NULL, NULL, 0, false},
    {"trace", RW, show_trace, open_trace, write_taken, NULL, 0, false},
    {"trace_pipe", RO, NULL, NULL, NULL, NULL, 0, true},
};

/* options/NAME (live_options.c) */
static const struct live_file option_file = {
    "", RW, live_show_option, NULL, live_write_option, NULL, 0, false};

/* events/SYSTEM/EVENT/ (live_events.c) */
static const struct live_file event_files[] = {
    {"enable", RW, live_show_enable, NULL, live_write_enable, NULL, 0, false},
    {"filter", RW, live_show_filter, NULL, live_write_filter, NULL, 0, false},
    {"format", RO, live_show_format, NULL, NULL, NULL, 0, false},
    {"hist", RO, live_show_hist, NULL, NULL, NULL, 0, false},
    {"id", RO, live_show_id, NULL, NULL, NULL, 0, false},
    {"trigger", RW, live_show_trigger, live_open_trigger, live_write_trigger, NULL, 0, false},
};

/* events/enable, events/SYSTEM/enable */
static const struct live_file enable_file = {
    "enable", RW, live_show_enable, NULL, live_write_enable, NULL, 0, false};

static const struct live_file *table_find(const struct live_file *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* "cpuN/rest" or "cpuN": N (< ncpu) and where rest starts, else -1. */
static int cpu_dir(struct utrace_live *l, const char *p, const char **rest)
{
	char *end;
	long n;

	if (strncmp(p, "cpu", 3) || !isdigit((unsigned char)p[3]))
		return -1;
	n = strtol(p + 3, &end, 10);
	if ((*end && *end != '/') || n >= l->ncpu || (p[3] == '0' && end != p + 4))
		return -1;
	*rest = *end ? end + 1 : NULL;
	return (int)n;
}

/* The next component of *p into out (at most 64 bytes); false if none
 * or too long. */
static bool component(const char **p, char out[65])
{
	const char *s = *p, *e = strchr(s, '/');
	size_t n = e ? (size_t)(e - s) : strlen(s);

	if (!n || n > 64)
		return false;
	memcpy(out, s, n);
	out[n] = 0;
	*p = e ? e + 1 : s + n;
	return true;
}

/* events/SYS/EVENT/FILE */
static int resolve_event(struct utrace_live *l, const char *p, struct live_handle *h)
{
	char file[65];
	int ret = live_ftrace_resolve(p, h);

	if (ret)
		return ret < 0 ? ret : 0;
	h->dir = LIVE_DIR_EVENTS;
	if (!*p)
		return 0;
	if (!strcmp(p, "enable")) {
		h->f = &enable_file;
		h->dir = 0;
		return 0;
	}
	if (!component(&p, h->sys) || !live_event_find(l, h->sys, NULL))
		return -ENOENT;
	h->dir = LIVE_DIR_SYSTEM;
	if (!*p)
		return 0;
	if (!strcmp(p, "enable")) {
		h->f = &enable_file;
		h->dir = 0;
		return 0;
	}
	if (!component(&p, h->ev) || !live_event_find(l, h->sys, h->ev))
		return -ENOENT;
	h->dir = LIVE_DIR_EVENT;
	if (!*p)
		return 0;
	if (!component(&p, file) || *p)
		return -ENOENT;
	/* the enable of an event added while running is live_dynev.c's */
	if (!strcmp(file, "enable") && live_dynev_has_enable(l, h->sys, h->ev))
		h->f = &live_dynev_enable;
	else
		h->f = table_find(event_files, NFILES(event_files), file);
	if (!h->f)
		return -ENOENT;
	h->dir = 0;
	return 0;
}

/* instances, instances/NAME[/REST] (p: after "instances") */
static int resolve_inst(struct utrace_live *l, const char *p, struct live_handle *h)
{
	const char *rest;
	struct utrace_live *in;

	if (!*p) {
		h->dir = LIVE_DIR_INSTANCES;
		return 0;
	}
	p++; /* the '/' */
	rest = strchr(p, '/');
	if (!(in = live_inst_find(l, p, rest ? (size_t)(rest - p) : strlen(p))))
		return -ENOENT;
	return live_resolve(in, rest ? rest : "", h);
}

int live_resolve(struct utrace_live *l, const char *path, struct live_handle *h)
{
	const char *p = path + (path[0] == '/'), *rest;

	memset(h, 0, sizeof(*h));
	h->cpu = -1;
	h->l = l;
	if (!*p) {
		h->dir = LIVE_DIR_ROOT;
		return 0;
	}
	if (!live_is_inst(l) && l->ops.instance_new &&
	    (!strcmp(p, "instances") || !strncmp(p, "instances/", 10)))
		return resolve_inst(l, p + 9, h);
	if (live_is_inst(l)) {
		const char *q = p;
		char first[65];

		if (!component(&q, first) || !live_file_in_instance(first))
			return -ENOENT;
	}
	if (!strcmp(p, "per_cpu")) {
		h->dir = LIVE_DIR_PER_CPU;
		return 0;
	}
	if (!strncmp(p, "per_cpu/", 8)) {
		if ((h->cpu = cpu_dir(l, p + 8, &rest)) < 0)
			return -ENOENT;
		h->dir = rest ? 0 : LIVE_DIR_CPU;
		if (rest && !(h->f = table_find(cpu_files, NFILES(cpu_files), rest)))
			return -ENOENT;
		return 0;
	}
	if (!strcmp(p, "events") || !strncmp(p, "events/", 7))
		return resolve_event(l, p + 6 + (p[6] == '/'), h);
	if (!strcmp(p, "trace_stat") || !strncmp(p, "trace_stat/", 11))
		return live_resolve_trace_stat(l, p + 10, h);
	if (!strcmp(p, "options")) {
		h->dir = LIVE_DIR_OPTIONS;
		return 0;
	}
	if (!strncmp(p, "options/", 8)) {
		p += 8;
		if (!component(&p, h->ev) || *p || !live_option_known(l, h->ev))
			return -ENOENT;
		h->f = &option_file;
		return 0;
	}
	if (live_is_inst(l) && !live_file_in_instance(p))
		return -ENOENT;
	return (h->f = table_find(files, NFILES(files), p)) ? 0 : -ENOENT;
}

/* The files of the top level only: the kernel's instances have no
 * README, no event or probe definitions (the events are the top level's,
 * each instance enables its own), no function list or profile of all
 * functions and no tracing_thresh; a name not listed is in both. */
static const char *const top_only[] = {
    "README",	     "available_events",   "available_filter_functions",
    "dynamic_events", "synthetic_events",   "kprobe_events",
    "uprobe_events",  "kprobe_profile",	    "function_profile_enabled",
    "tracing_thresh", "utrace.dat",	    "trace_stat",
    "per_cpu",	     "set_graph_function", "set_graph_notrace",
    "max_graph_depth", "stack_trace",	    "stack_max_size",
    "stack_trace_filter", "utrace.stack_tracer_enabled", "utrace.kprobes_list",
    "utrace.kprobes-optimization",
};

bool live_file_in_instance(const char *name)
{
	for (size_t i = 0; i < NFILES(top_only); i++)
		if (!strcmp(top_only[i], name))
			return false;
	return true;
}

int live_dir_names(struct utrace_live *l, const char *path,
		   void (*fill)(void *arg, const char *name), void *arg)
{
	struct live_handle h;
	char name[32];

	if (live_resolve(l, path, &h) < 0 || h.f)
		return -ENOENT;
	l = h.l;
	switch (h.dir) {
	case LIVE_DIR_INSTANCES:
		live_inst_names(l, fill, arg);
		break;
	case LIVE_DIR_CPU:
		for (size_t i = 0; i < NFILES(cpu_files); i++)
			fill(arg, cpu_files[i].name);
		break;
	case LIVE_DIR_PER_CPU:
		for (int c = 0; c < l->ncpu; c++) {
			snprintf(name, sizeof(name), "cpu%d", c);
			fill(arg, name);
		}
		break;
	case LIVE_DIR_EVENTS:
		fill(arg, "enable");
		live_ftrace_names(&h, fill, arg);
		live_event_names(l, NULL, fill, arg);
		break;
	case LIVE_DIR_FTRACE:
	case LIVE_DIR_FTRACE_EVENT:
		live_ftrace_names(&h, fill, arg);
		break;
	case LIVE_DIR_SYSTEM:
		fill(arg, "enable");
		live_event_names(l, h.sys, fill, arg);
		break;
	case LIVE_DIR_EVENT:
		for (size_t i = 0; i < NFILES(event_files); i++)
			fill(arg, event_files[i].name);
		break;
	case LIVE_DIR_OPTIONS:
		live_option_names(l, fill, arg);
		break;
	case LIVE_DIR_TRACE_STAT:
		live_trace_stat_names(l, fill, arg);
		break;
	default:
		for (size_t i = 0; i < NFILES(files); i++)
			if (!live_is_inst(l) || live_file_in_instance(files[i].name))
				fill(arg, files[i].name);
		if (!live_is_inst(l)) {
			fill(arg, "per_cpu");
			fill(arg, "trace_stat");
		}
		if (!live_is_inst(l) && l->ops.instance_new)
			fill(arg, "instances");
		fill(arg, "events");
		fill(arg, "options");
	}
	return 0;
}
