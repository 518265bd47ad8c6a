/* SPDX-License-Identifier: MIT */
/*
 * live_ftcmd.c - set_ftrace_filter's function commands (the kernel's
 * ftrace function probes, ftrace.c's ftrace_process_regex() and the
 * commands of trace_functions.c, trace_events_trigger.c and
 * trace_events.c): "GLOB:CMD[:PARAM]" runs CMD each time a function GLOB
 * matches is hit, whatever the tracer, and "!GLOB:CMD[:PARAM]" removes it:
 *
 *   traceon[:N], traceoff[:N]       switch tracing_on (N times at most)
 *   stacktrace[:N], snapshot[:N]    the stack after the hit, a snapshot
 *   enable_event:SYS:EVENT[:N]      switch an event on (off)
 *   disable_event:SYS:EVENT[:N]
 *
 * The file lists each function's commands after the functions it
 * selects, as the kernel's t_probe_show(): "schedule:traceoff:unlimited",
 * "schedule:traceoff:count=2" (what is left), "schedule:enable_event:
 * sched:sched_switch:unlimited".  A GLOB no function matches is EINVAL;
 * `>` does not remove them.  As the kernel's unregister, "!" removes the
 * commands of that name on the functions GLOB matches, those with a
 * count if the line has a PARAM, those without if not (enable_/
 * disable_event: whether it has a third one).
 *
 * Why probes: a command must run at the function's entry in every traced
 * process, with the event triggers' rules (the count taken only by a
 * firing that changes something, shared by all processes).  So each
 * function with commands gets an in-process probe of its own
 * (ops->probe_add, group "ftrace_cmd", not listed in dynamic_events nor
 * under events/) whose triggers are the commands, written as the
 * trigger file's ("traceoff:3", "enable_event:sched:sched_switch");
 * the recording runs them through the event triggers' compiled
 * commands, soft-enabled (no record of its own), and the runtime runs a
 * probe's triggers while tracing is off too (traceon).  dump and
 * cpudump (print the buffers to the console) are not taken (EINVAL).
 * The caller holds l->lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/events/ftrace_filter.h"
#include "lib/hist/hist.h"
#include "lib/tracefs/live_internal.h"

#define FTCMD_GROUP UTRACE_LIVE_FTCMD_GROUP

/* One function with commands: its probe's event, the commands as
 * trigger texts. */
struct live_ftcmd {
	char *func, *raw;
	char ev[24];
	char **trig;
	size_t n, cap;
};

/* The commands the kernel registers (register_ftrace_command()) but
 * dump and cpudump (they print the buffers on the kernel's console). */
static const char *const ftcmd_names[] = {"traceon",  "traceoff",     "stacktrace",
					  "snapshot", "enable_event", "disable_event"};

bool live_ftcmd_is(const char *expr)
{
	const char *c = strchr(expr, ':');

	return c && strncmp(c, ":mod:", 5) && strcmp(c, ":mod");
}

/* "enable_event" and "disable_event" take SYS:EVENT before the count. */
static bool ftcmd_is_event(const char *cmd, size_t n)
{
	return (n == 12 && !strncmp(cmd, "enable_event", 12)) ||
	       (n == 13 && !strncmp(cmd, "disable_event", 13));
}

/* The trigger text of command cmd with param (NULL: none) into out:
 * "traceoff", "traceoff:3", "enable_event:sched:sched_switch:3"; -EINVAL
 * for a command or param the kernel refuses. */
static int ftcmd_trigger(const char *cmd, const char *param, char *out, size_t size)
{
	size_t cl = strlen(cmd);
	const char *num = param;
	unsigned i;
	char *end;

	for (i = 0; i < sizeof(ftcmd_names) / sizeof(ftcmd_names[0]); i++)
		if (!strcmp(cmd, ftcmd_names[i]))
			break;
	if (i == sizeof(ftcmd_names) / sizeof(ftcmd_names[0]))
		return -EINVAL;
	if (ftcmd_is_event(cmd, cl)) {
		/* SYS:EVENT[:N] */
		const char *c1 = param ? strchr(param, ':') : NULL;

		if (!c1 || c1 == param || !c1[1] || c1[1] == ':')
			return -EINVAL;
		num = strchr(c1 + 1, ':');
		num = num ? num + 1 : NULL;
	}
	if (num && *num) {
		unsigned long v = strtoul(num, &end, 0);

		if (end == num || *end || (long)v < 0)
			return -EINVAL;
	}
	if (!ftcmd_is_event(cmd, cl))
		return (size_t)snprintf(out, size, "%s%s%s", cmd, num && *num ? ":" : "",
					num && *num ? num : "") < size
			   ? 0
			   : -EINVAL;
	return (size_t)snprintf(out, size, "%s:%s", cmd, param) < size ? 0 : -EINVAL;
}

/* Whether trigger text t is command cmd, with a count or not. */
static bool ftcmd_same(const char *t, const char *cmd, bool counted)
{
	size_t cl = strlen(cmd);
	unsigned colons = 0;

	if (strncmp(t, cmd, cl) || (t[cl] && t[cl] != ':'))
		return false;
	for (const char *p = t + cl; *p; p++)
		colons += *p == ':';
	return (colons > (ftcmd_is_event(cmd, cl) ? 2u : 0u)) == counted;
}

/* Sets f's triggers in the recording (its probe added first). */
static int ftcmd_push(struct utrace_live *l, struct live_ftcmd *f)
{
	struct utrace_trigger **t = calloc(f->n + 1, sizeof(*t));
	struct utrace_error err = {0};
	int ret = t ? 0 : -ENOMEM, code;

	for (size_t i = 0; i < f->n && ret >= 0; i++)
		if (utrace_trigger_parse(f->trig[i], &t[i], &code, &err) < 0)
			ret = -EINVAL;
	if (ret >= 0)
		ret = l->ops.event_triggers(l->ops.arg, FTCMD_GROUP, f->ev,
					    (const char *const *)f->trig, t, (unsigned)f->n, &err);
	for (size_t i = 0; t && i < f->n; i++)
		utrace_trigger_free(t[i]);
	free(t);
	return ret < 0 ? (err.code ? err.code : ret) : 0;
}

/* The entry of function name, made (and its probe added) if missing. */
static struct live_ftcmd *ftcmd_get(struct utrace_live *l, const char *name, const char *raw)
{
	struct utrace_error err = {0};
	const struct utrace_event_format *fmt;
	struct live_ftcmd *f;
	char def[320], *line = NULL;

	for (size_t i = 0; i < l->nftcmds; i++)
		if (!strcmp(l->ftcmds[i].func, name))
			return &l->ftcmds[i];
	if (!l->ops.probe_add || !l->ops.event_triggers ||
	    UTRACE_GROW(l->ftcmds, l->cap_ftcmds, l->nftcmds + 1) < 0)
		return NULL;
	f = &l->ftcmds[l->nftcmds];
	*f = (struct live_ftcmd){0};
	/* the top level's count: the probes of all the instances' are its */
	snprintf(f->ev, sizeof(f->ev), "f%u", live_top(l)->ftcmd_serial++);
	if ((size_t)snprintf(def, sizeof(def), "p:%s/%s %s", FTCMD_GROUP, f->ev, raw) >=
		sizeof(def) ||
	    !(f->func = strdup(name)) || !(f->raw = strdup(raw)) ||
	    l->ops.probe_add(l->ops.arg, def, UTRACE_LIVE_KPROBE, &line, &fmt, &err) < 0) {
		free(f->func);
		free(f->raw);
		return NULL;
	}
	free(line);
	l->nftcmds++;
	return f;
}

/* Drops entry i if it has no command left, with its probe. */
static void ftcmd_drop_empty(struct utrace_live *l, size_t i)
{
	struct live_ftcmd *f = &l->ftcmds[i];
	struct utrace_error err = {0};

	if (f->n)
		return;
	if (l->ops.dynev_remove)
		l->ops.dynev_remove(l->ops.arg, FTCMD_GROUP, f->ev, NULL, &err);
	free(f->func);
	free(f->raw);
	free(f->trig);
	memmove(f, f + 1, (l->nftcmds - i - 1) * sizeof(*f));
	l->nftcmds--;
}

/* The functions glob selects: their names and symbols, each once. */
struct ftcmd_walk {
	struct utrace_func_filter *f;
	char **name, **raw;
	size_t n, cap_name, cap_raw;
};

static void ftcmd_walk_fn(void *arg, const char *name, const char *raw, const char *module,
			  bool main_object)
{
	struct ftcmd_walk *w = arg;

	(void)main_object;
	if (!(utrace_func_filter_select(w->f, name, raw, module) & UTRACE_SITE_TRACE))
		return;
	name = name ? name : raw;
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->name[i], name))
			return;
	if (UTRACE_GROW(w->name, w->cap_name, w->n + 1) < 0 ||
	    UTRACE_GROW(w->raw, w->cap_raw, w->n + 1) < 0)
		return;
	if (!(w->name[w->n] = strdup(name)) || !(w->raw[w->n] = strdup(raw))) {
		free(w->name[w->n]);
		return;
	}
	w->n++;
}

static void ftcmd_walk_free(struct ftcmd_walk *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->name[i]);
		free(w->raw[i]);
	}
	free(w->name);
	free(w->raw);
	utrace_func_filter_free(w->f);
}

/* Adds command trig to function (name, raw), replacing one of the same
 * command and countedness. */
static int ftcmd_add_one(struct utrace_live *l, const char *name, const char *raw, const char *cmd,
			 bool counted, const char *trig)
{
	struct live_ftcmd *f = ftcmd_get(l, name, raw);
	size_t k;
	char *copy;
	int ret;

	if (!f)
		return -EINVAL;
	for (k = 0; k < f->n && !ftcmd_same(f->trig[k], cmd, counted); k++)
		;
	if (k == f->n && UTRACE_GROW(f->trig, f->cap, f->n + 1) < 0)
		return -ENOMEM;
	if (!(copy = strdup(trig)))
		return -ENOMEM;
	if (k < f->n) {
		free(f->trig[k]);
	} else {
		f->n++;
	}
	f->trig[k] = copy;
	if ((ret = ftcmd_push(l, f)) < 0) {
		free(f->trig[k]);
		f->trig[k] = f->trig[--f->n];
		ftcmd_push(l, f);
		ftcmd_drop_empty(l, (size_t)(f - l->ftcmds));
	}
	return ret;
}

/* "!GLOB:CMD[:PARAM]": the commands so on the functions glob selects. */
static int ftcmd_remove(struct utrace_live *l, struct utrace_func_filter *g, const char *cmd,
			bool counted)
{
	for (size_t i = l->nftcmds; i-- > 0;) {
		struct live_ftcmd *f = &l->ftcmds[i];
		size_t k = 0;
		bool changed = false;

		if (!(utrace_func_filter_select(g, f->func, f->raw, NULL) & UTRACE_SITE_TRACE))
			continue;
		while (k < f->n)
			if (ftcmd_same(f->trig[k], cmd, counted)) {
				free(f->trig[k]);
				f->trig[k] = f->trig[--f->n];
				changed = true;
			} else {
				k++;
			}
		if (changed)
			ftcmd_push(l, f);
		ftcmd_drop_empty(l, i);
	}
	return 0;
}

int live_ftcmd_write(struct utrace_live *l, const char *expr)
{
	struct live_list one[UTRACE_FILTER_LISTS] = {{0}};
	struct ftcmd_walk w = {0};
	struct utrace_error err = {0};
	char *copy = strdup(expr), *glob, *cmd, *param, trig[256];
	bool rm = expr[0] == '!', counted;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	param = copy + rm;
	glob = strsep(&param, ":");
	cmd = strsep(&param, ":");
	counted = param != NULL;
	if (ftcmd_is_event(cmd, strlen(cmd)))
		counted = param && strchr(param, ':') && strchr(strchr(param, ':') + 1, ':');
	if (!rm && ftcmd_trigger(cmd, param, trig, sizeof(trig)) < 0)
		ret = -EINVAL;
	one[UTRACE_FILTER] = (struct live_list){&glob, 1, 1};
	if (ret >= 0 && !(w.f = live_filter_make(one, &err)))
		ret = -EINVAL;
	if (ret >= 0 && rm)
		ret = ftcmd_remove(l, w.f, cmd, counted);
	else if (ret >= 0) {
		l->ops.functions(l->ops.arg, ftcmd_walk_fn, &w);
		if (!w.n)
			ret = -EINVAL; /* the kernel's "Nothing found?" */
		for (size_t i = 0; i < w.n && ret >= 0; i++)
			ret = ftcmd_add_one(l, w.name[i], w.raw[i], cmd, counted, trig);
	}
	ftcmd_walk_free(&w);
	free(copy);
	return ret;
}

/* One command as the kernel lists it: "FUNC:CMD[:SYS:EVENT]:unlimited"
 * or ":count=N" with N what is left. */
static void ftcmd_show_one(struct utrace_live *l, const struct live_ftcmd *f, const char *t,
			   FILE *out)
{
	size_t cl = strcspn(t, ":");
	size_t head = ftcmd_is_event(t, cl) ? cl + 1 + strcspn(t + cl + 1, ":") : cl;
	long count = -1;
	bool paused;

	if (ftcmd_is_event(t, cl) && t[head])
		head += 1 + strcspn(t + head + 1, ":");
	if (t[head] && l->ops.trigger_ctl &&
	    l->ops.trigger_ctl(l->ops.arg, FTCMD_GROUP, f->ev, t, UTRACE_LIVE_TRIG_READ, &count,
			       &paused) < 0)
		count = strtol(t + head + 1, NULL, 0);
	if (count < 0)
		fprintf(out, "%s:%.*s:unlimited\n", f->func, (int)head, t);
	else
		fprintf(out, "%s:%.*s:count=%ld\n", f->func, (int)head, t, count);
}

void live_ftcmd_show(struct utrace_live *l, FILE *out)
{
	for (size_t i = 0; i < l->nftcmds; i++)
		for (size_t k = 0; k < l->ftcmds[i].n; k++)
			ftcmd_show_one(l, &l->ftcmds[i], l->ftcmds[i].trig[k], out);
}

/* rmdir of instance l: the probes of its function commands go, removed
 * through the top level's ops (its own are gone with its triggers). */
void live_ftcmd_drop(struct utrace_live *l, struct utrace_live *top)
{
	struct utrace_error err = {0};

	for (size_t i = 0; top->ops.dynev_remove && i < l->nftcmds; i++)
		top->ops.dynev_remove(top->ops.arg, FTCMD_GROUP, l->ftcmds[i].ev, NULL, &err);
}

void live_ftcmd_free(struct utrace_live *l)
{
	for (size_t i = 0; i < l->nftcmds; i++) {
		for (size_t k = 0; k < l->ftcmds[i].n; k++)
			free(l->ftcmds[i].trig[k]);
		free(l->ftcmds[i].trig);
		free(l->ftcmds[i].func);
		free(l->ftcmds[i].raw);
	}
	free(l->ftcmds);
	l->ftcmds = NULL;
	l->nftcmds = 0;
}
