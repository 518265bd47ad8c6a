/* SPDX-License-Identifier: MIT */
/*
 * bt_list.c - `utrace bt -l PATTERN`: the probes a program could attach,
 * one a line as bpftrace lists them ("uprobe:/bin/bash:readline"); the
 * pattern names a binary and globs its functions, or, for usdt (any
 * probe type whose glob matches "usdt"), globs files and notes
 * (bt_usdt.c); with -p, the files the process has mapped.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/base/proc_self.h"
#include "lib/bt/bt_dwarf.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/bt/bt_tracepoint.h"
#include "lib/bt/bt_usdt.h"

static int list_uprobes(const char *pattern, int pid, bool verbose, FILE *out,
			struct utrace_error *err);

/* "usdt:BIN:PROVIDER:NAME", "usdt:BIN:NAME", "usdt:BIN" ("*" for what
 * is left out); BIN a glob, or with -p "" or a glob over the files the
 * process has mapped. */
static int list_usdt(const char *rest, int pid, FILE *out, struct utrace_error *err)
{
	char *bin = strdup(rest), *probe;
	int ret;

	if (!bin)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	probe = strchr(bin, ':');
	if (probe)
		*probe++ = 0;
	ret = bt_usdt_list(bin, probe && *probe ? probe : "*", pid, out);
	if (ret < 0)
		utrace_error_set(err, ret, "%s: %s", bin, strerror(-ret));
	free(bin);
	return ret;
}

static int list_exe(int pid, const char *type, const char *func, FILE *out,
		    struct utrace_error *err);

/* -l -p PID without a pattern: every probe of the process's files. */
static int list_pid(int pid, FILE *out, struct utrace_error *err)
{
	int ret = list_exe(pid, "uprobe", "*", out, err);

	return ret < 0 ? ret : list_usdt("", pid, out, err);
}

/* The kernel's tracepoints whose "tracepoint:SYSTEM:EVENT" glob matches;
 * whether any did. */
static bool list_tracepoints(const char *glob, FILE *out)
{
	char **v = NULL, line[512];
	size_t n = 0;
	bool any = false;

	bt_tracepoint_find("*", "*", &v, &n);
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "tracepoint:%s", v[i]);
		if (utrace_glob_match(glob, line)) {
			fprintf(out, "%s\n", line);
			any = true;
		}
		free(v[i]);
	}
	free(v);
	return any;
}

/* bpftrace reads -l's PATTERN with its program's lexer: a character the
 * lexer does not take is its error, with the position and caret. */
static int check_chars(const char *pattern, struct utrace_error *err)
{
	struct bt_program p = {.src = pattern, .name = "stdin"};
	struct bt_lexer lx;
	struct bt_token t;
	char text[48];
	int ret;

	bt_lex_init(&lx, pattern);
	lx.top = true;
	for (;;) {
		if ((ret = bt_lex_next(&lx, &t)) < 0)
			return utrace_error_set(err, ret, "out of memory");
		free(t.sval);
		if (t.kind == BT_TK_EOF)
			return 0;
		if (t.kind == BT_TK_BAD && *t.start != '#')
			break;
	}
	snprintf(text, sizeof(text), "invalid character '%.*s'", (int)(t.len ? t.len : 1), t.start);
	bt_diag_text(err->msg, sizeof(err->msg), &p, t.loc, "ERROR", text);
	err->code = -EINVAL;
	return -EINVAL;
}

int utrace_bt_list_pid(const char *pattern, int pid, bool verbose, FILE *out,
		       struct utrace_error *err)
{
	const char *colon = pattern ? strchr(pattern, ':') : NULL;
	char type[32];
	int ret = 0;
	bool any = false;

	if (pattern && check_chars(pattern, err) < 0)
		return -EINVAL;

	if (!pattern && pid > 0)
		return list_pid(pid, out, err);
	if (!pattern) /* bpftrace lists every probe: of the kernel's, the tracepoints */
		return list_tracepoints("*", out) ? 0 : utrace_error_set(err, -ENOENT, "no tracefs");
	if (pattern && !colon && list_tracepoints(pattern, out)) /* "*sched_switch*" */
		return 0;
	if (!colon || (size_t)(colon - pattern) >= sizeof(type))
		return list_uprobes(pattern, pid, verbose, out, err);
	snprintf(type, sizeof(type), "%.*s", (int)(colon - pattern), pattern);
	if (utrace_glob_match(type, "uprobe") && (strchr(colon + 1, ':') || pid > 0) &&
	    (strchr(type, '*') == NULL || !pid)) {
		char *p;

		any = true;
		if (asprintf(&p, "uprobe%s", colon) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		ret = list_uprobes(p, pid, verbose, out, err);
		free(p);
	}
	if (ret >= 0 && (utrace_glob_match(type, "usdt") || !strcmp(type, "U"))) {
		any = true;
		ret = list_usdt(colon + 1, pid, out, err);
	}
	if (ret >= 0 && (utrace_glob_match(type, "tracepoint") || !strcmp(type, "t"))) {
		char *glob;

		any = true;
		if (asprintf(&glob, "tracepoint%s", colon) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		list_tracepoints(glob, out);
		free(glob);
	}
	return any ? ret : list_uprobes(pattern, pid, verbose, out, err);
}

int utrace_bt_list(const char *pattern, bool verbose, FILE *out, struct utrace_error *err)
{
	return utrace_bt_list_pid(pattern, 0, verbose, out, err);
}

struct files_arg {
	FILE *out;
	const char *type, *func;
};

/* A globbed BIN's file: its functions the glob matches (none: nothing). */
static int list_file(void *arg, const char *shown, const char *path)
{
	struct files_arg *a = arg;
	char **funcs = NULL;
	size_t n = 0;

	if (bt_resolve_funcs(path, a->func, &funcs, &n) < 0)
		n = 0; /* not an ELF file: no functions */
	for (size_t i = 0; i < n; i++) {
		fprintf(a->out, "%s:%s:%s\n", a->type, shown, funcs[i]);
		free(funcs[i]);
	}
	free(funcs);
	return 0;
}

/* -p PID naming no binary (no PATTERN, or uprobe:*): as bpftrace, the
 * functions of the process's own program, read and shown through
 * /proc/PID/root (its mount namespace may not be ours). */
static int list_exe(int pid, const char *type, const char *func, FILE *out,
		    struct utrace_error *err)
{
	struct files_arg a = {.out = out, .type = type, .func = func};
	char exe[PATH_MAX], at[PATH_MAX + 64];

	if (utrace_proc_exe(pid, exe, sizeof(exe)) <= 0)
		return utrace_error_set(err, -ESRCH, "%d: no such process", pid);
	snprintf(at, sizeof(at), "/proc/%d/root%s", pid, exe);
	return list_file(&a, at, at);
}

static int list_uprobes(const char *pattern, int pid, bool verbose, FILE *out,
			struct utrace_error *err)
{
	char *copy, *type, *target, *func, **funcs = NULL, at[PATH_MAX + 64];
	size_t n = 0;
	int ret;

	if (!pattern)
		return utrace_error_set(err, -EINVAL, "-l needs a PATTERN that names a binary: "
						      "uprobe:BIN:FUNC (a glob)");
	if (!(copy = strdup(pattern)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	type = copy;
	target = strchr(type, ':');
	func = target ? strchr(target + 1, ':') : NULL;
	if (target && !func && pid > 0) /* uprobe:* -p PID */
		func = target + strlen(target);
	if (!target || !func || (strcmp(type, "uprobe") && strncmp(type, "uprobe:", 7) &&
				 strcmp(type, "uretprobe") && strncmp(type, "uretprobe:", 10))) {
		free(copy);
		return utrace_error_set(err, -EINVAL, "%s: PATTERN is uprobe:BIN:FUNC", pattern);
	}
	*target++ = 0;
	if (*func)
		*func++ = 0;
	if (pid > 0 && (!*target || !strcmp(target, "*"))) {
		ret = list_exe(pid, type, *func ? func : "*", out, err);
		free(copy);
		return ret;
	}
	if (strpbrk(target, "*?[")) {
		struct files_arg a = {.out = out, .type = type, .func = *func ? func : "*"};

		ret = bt_usdt_each_file(target, pid, list_file, &a);
		if (ret < 0)
			utrace_error_set(err, ret, "%s: %s", target, strerror(-ret));
		free(copy);
		return ret < 0 ? ret : 0;
	}
	/* -p: as the process sees it, /proc/PID/root/BIN in another mount
	 * namespace (bt_attach.c's rule, bpftrace's lines) */
	if (pid > 0 && utrace_proc_path(pid, target, at, sizeof(at)) >= 0)
		target = at;
	ret = bt_resolve_funcs(target, func, &funcs, &n);
	if (ret < 0)
		utrace_error_set(err, ret, "%s: %s", target, strerror(-ret));
	for (size_t i = 0; i < n; i++) {
		if (ret >= 0)
			fprintf(out, "%s:%s:%s\n", type, target, funcs[i]);
		if (ret >= 0 && verbose) /* -lv: the parameters, through DWARF */
			bt_dwarf_list(target, funcs[i], out);
		free(funcs[i]);
	}
	free(funcs);
	free(copy);
	return ret < 0 ? ret : 0;
}
