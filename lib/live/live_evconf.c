/* SPDX-License-Identifier: MIT */
/*
 * live_evconf.c - what an event of the live tracefs is set to beyond its
 * switch: events/SYSTEM/EVENT/filter, trigger and hist, with the kernel's
 * rules (kernel/trace/trace_events_filter.c, trace_events_trigger.c):
 *
 *   filter   "none" when empty, else the expression written; `echo 0 >
 *            filter` clears it.  An expression that does not compile
 *            fails the write (EINVAL), leaves the event unfiltered, logs
 *            "event filter parse error" with a caret under the bad token
 *            in error_log, and the file then reads the expression, the
 *            caret and "parse_error: TEXT", as the kernel's does.
 *
 *   trigger  the kernel's "# Available triggers:" list when there is none,
 *            else each as the kernel prints it (hist: its full spec and
 *            " [active]"; the others "cmd[:sys:event]:unlimited" or
 *            ":count=N", " if FILTER"); `>` removes every trigger first,
 *            `>>` adds one, `!TRIGGER` removes the one of that command
 *            (a hist trigger: of the same spec).  A trigger that does
 *            not parse or compile fails the write (EINVAL); a hist
 *            trigger's error is logged as the kernel's ("hist:SYS:EVENT:
 *            error: TEXT", the caret under its column); a second trigger
 *            of the same command (and target, or hist spec) is EEXIST.
 *   hist     the tables of the event's hist triggers (ops->print_hist)
 *
 * The expression is compiled here first (lib/events/event_filter.h, on
 * the format the tracefs shows) for the error's text and column; the
 * recording compiles it again for each object's own layout (ops
 * ->event_filter).  The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>

#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"
#include "lib/live/live_int.h"

struct live_evconf {
	char sys[65], ev[65];
	char *filter;		/* what `cat filter` shows (after an error: the error) */
	struct live_list trigs; /* the triggers as written, in order */
	struct live_evconf *next;
};

static struct live_evconf *evconf(struct utrace_live *l, const struct live_handle *h, bool create)
{
	struct live_evconf *c;

	for (c = l->evconfs; c; c = c->next)
		if (!strcmp(c->sys, h->sys) && !strcmp(c->ev, h->ev))
			return c;
	if (!create || !(c = calloc(1, sizeof(*c))))
		return NULL;
	memcpy(c->sys, h->sys, sizeof(c->sys));
	memcpy(c->ev, h->ev, sizeof(c->ev));
	c->next = l->evconfs;
	l->evconfs = c;
	return c;
}

void live_evconf_free(struct utrace_live *l)
{
	while (l->evconfs) {
		struct live_evconf *c = l->evconfs;

		l->evconfs = c->next;
		free(c->filter);
		live_list_free(&c->trigs);
		free(c);
	}
}

/* The text of a write without the white space around it (strstrip). */
static char *stripped(const char *buf, size_t n)
{
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	while (n && isspace((unsigned char)*buf))
		buf++, n--;
	return strndup(buf, n);
}

int live_show_filter(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct live_evconf *c = evconf(l, h, false);

	fprintf(out, "%s\n", c && c->filter ? c->filter : "none");
	return 0;
}

/* A bad expression: the kernel's append_filter_err. */
static int filter_error(struct utrace_live *l, struct live_evconf *c, char *text, int code,
			unsigned pos)
{
	const char *why = utrace_filter_error_text(code);
	struct utrace_error err = {0};
	size_t n = strlen(text) + strlen(why) + pos + 32;
	char *shown = malloc(n);

	live_errlog_add(l, "event filter parse error", text, why, pos);
	if (shown) /* the caret's width is the column, 1-based but for 0 */
		snprintf(shown, n, "%s\n%*s\nparse_error: %s\n", text, (int)(pos ? pos + 1 : 0),
			 "^", why);
	free(c->filter);
	c->filter = shown;
	free(text);
	/* the kernel leaves the event unfiltered */
	l->ops.event_filter(l->ops.arg, c->sys, c->ev, NULL, &err);
	return -EINVAL;
}

long live_write_filter(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	const struct utrace_event_format *f = live_event_find(l, h->sys, h->ev);
	struct live_evconf *c = evconf(l, h, true);
	struct utrace_error err = {0};
	char *text = stripped(buf, n);
	void *prog = NULL;
	uint32_t len;
	int code = 0, ret;

	if (!f || !c || !text) {
		free(text);
		return f ? -ENOMEM : -ENOENT;
	}
	if (!strcmp(text, "0")) {
		free(text);
		text = NULL;
	} else if (utrace_filter_compile_code(f, text, &prog, &len, &code, &err) < 0) {
		return filter_error(l, c, text, code,
				    err.column > 0 ? (unsigned)err.column - 1 : 0);
	}
	free(prog);
	ret = l->ops.event_filter(l->ops.arg, h->sys, h->ev, text, &err);
	if (ret < 0) {
		live_errlog_add(l, "event filter", text ? text : "0", err.msg, 0);
		free(text);
		return ret;
	}
	free(c->filter);
	c->filter = text;
	return (long)n;
}

/* ---- triggers ----------------------------------------------------------- */

/* The kernel's trigger_show when the list is empty: its commands in the
 * order they are registered (register_trigger_cmds). */
static const char available_triggers[] = "# Available triggers:\n"
					 "# traceon traceoff snapshot stacktrace enable_event "
					 "disable_event enable_hist disable_hist hist\n";

/* One trigger as the kernel's print callbacks write it. */
static void trigger_print(FILE *out, const struct utrace_trigger *t)
{
	int len;
	char *spec;

	if (t->cmd == UTRACE_TRIG_HIST) {
		len = utrace_hist_spec_text(t->hist, NULL, 0);
		if (!(spec = malloc((size_t)len + 1)))
			return;
		utrace_hist_spec_text(t->hist, spec, (size_t)len + 1);
		fprintf(out, "%s%s\n", spec, t->hist->pause ? " [paused]" : " [active]");
		free(spec);
		return;
	}
	fputs(utrace_trigger_cmd_name(t->cmd), out);
	if (t->target_system)
		fprintf(out, ":%s:%s", t->target_system, t->target_event);
	if (t->count < 0)
		fputs(":unlimited", out);
	else
		fprintf(out, ":count=%ld", t->count);
	if (t->filter)
		fprintf(out, " if %s\n", t->filter);
	else
		fputc('\n', out);
}

int live_show_trigger(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct live_evconf *c = evconf(l, h, false);
	struct utrace_error err;
	int code;

	if (!c || !c->trigs.n) {
		fputs(available_triggers, out);
		return 0;
	}
	for (size_t i = 0; i < c->trigs.n; i++) {
		struct utrace_trigger *t = NULL;

		if (utrace_trigger_parse(c->trigs.expr[i], &t, &code, &err) >= 0)
			trigger_print(out, t);
		utrace_trigger_free(t);
	}
	return 0;
}

/* Whether two triggers are the same one for the kernel: the same command
 * (and target), or for hist the same spec. */
static bool trigger_same(const struct utrace_trigger *a, const struct utrace_trigger *b)
{
	char x[1024], y[1024];
	bool pa, pb;

	if (a->cmd != b->cmd)
		return false;
	if (a->target_system && (strcmp(a->target_system, b->target_system) ||
				 strcmp(a->target_event, b->target_event)))
		return false;
	if (a->cmd != UTRACE_TRIG_HIST)
		return true;
	/* pause/cont/clear are not part of what the trigger is */
	pa = a->hist->pause, pb = b->hist->pause;
	a->hist->pause = b->hist->pause = false;
	utrace_hist_spec_text(a->hist, x, sizeof(x));
	utrace_hist_spec_text(b->hist, y, sizeof(y));
	a->hist->pause = pa, b->hist->pause = pb;
	return !strcmp(x, y);
}

/* The trigger of c that is the same as t, or -1. */
static long trigger_find(const struct live_evconf *c, const struct utrace_trigger *t)
{
	struct utrace_error err;
	int code;

	for (size_t i = 0; i < c->trigs.n; i++) {
		struct utrace_trigger *o = NULL;
		bool same = utrace_trigger_parse(c->trigs.expr[i], &o, &code, &err) >= 0 &&
			    trigger_same(o, t);

		utrace_trigger_free(o);
		if (same)
			return (long)i;
	}
	return -1;
}

/* The list made current in every process; on failure left as it was. */
static int triggers_apply(struct utrace_live *l, struct live_evconf *c, struct live_list *next)
{
	struct utrace_error err = {0};
	int ret = l->ops.event_triggers(l->ops.arg, c->sys, c->ev, (const char *const *)next->expr,
					(unsigned)next->n, &err);

	if (ret < 0) {
		live_list_free(next);
		return ret;
	}
	live_list_free(&c->trigs);
	c->trigs = *next;
	return 0;
}

/* A hist trigger's error, as the kernel's hist_err: in error_log under
 * "hist:SYS:EVENT" with the trigger and a caret. */
static int hist_error(struct utrace_live *l, const struct live_handle *h, const char *text,
		      int code, const struct utrace_error *err, int ret)
{
	char loc[160];

	snprintf(loc, sizeof(loc), "hist:%s:%s", h->sys, h->ev);
	live_errlog_add(l, loc, text, utrace_hist_err_text(code),
			err && err->column > 0 ? (unsigned)err->column - 1 : 0);
	return ret;
}

/* t checked as the kernel would take it for this event: its fields, its
 * target. */
static int trigger_check(struct utrace_live *l, const struct live_handle *h, const char *text,
			 const struct utrace_trigger *t)
{
	const struct utrace_event_format *f = live_event_find(l, h->sys, h->ev);
	struct utrace_error err = {0};
	void *prog = NULL;
	uint32_t len;
	int code, ret = 0;

	if (!f)
		return -ENOENT;
	if (t->target_system && !live_event_find(l, t->target_system, t->target_event))
		return -EINVAL;
	if (t->hist) {
		ret = utrace_hist_compile_env(t->hist, f, NULL, &prog, &len, &code, &err);
		if (ret < 0)
			return code >= 0 ? hist_error(l, h, text, code, &err, -EINVAL) : -EINVAL;
	} else if (t->filter) {
		ret = utrace_filter_compile(f, t->filter, &prog, &len, &err) < 0 ? -EINVAL : 0;
	}
	free(prog);
	return ret;
}

/* `echo > trigger`: every trigger removed first (the kernel's unreg_all). */
int live_open_trigger(struct utrace_live *l, struct live_handle *h, int flags)
{
	struct live_evconf *c = evconf(l, h, false);
	struct live_list none = {0};

	if ((flags & O_ACCMODE) == O_RDONLY || !(flags & O_TRUNC) || !c || !c->trigs.n)
		return 0;
	return triggers_apply(l, c, &none);
}

long live_write_trigger(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct live_evconf *c = evconf(l, h, true);
	char *text = stripped(buf, n);
	const char *body = text && *text == '!' ? text + 1 : text;
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	struct live_list next = {0};
	long at;
	int code, ret;

	if (!c || !text) {
		free(text);
		return -ENOMEM;
	}
	if (!*text) { /* `echo > trigger`: the open did it */
		free(text);
		return (long)n;
	}
	ret = utrace_trigger_parse(body, &t, &code, &err);
	if (ret < 0)
		ret = t || code < 0 || strncmp(body, "hist", 4)
			  ? -EINVAL
			  : hist_error(l, h, body, code, &err, -EINVAL);
	else if (body == text && trigger_find(c, t) >= 0) /* added twice */
		ret = t->hist
			  ? hist_error(l, h, body, UTRACE_HIST_ERR_TRIGGER_EEXIST, NULL, -EEXIST)
			  : -EEXIST;
	else if (body == text)
		ret = trigger_check(l, h, body, t);
	at = ret < 0 ? -1 : trigger_find(c, t);
	for (size_t i = 0; ret >= 0 && i < c->trigs.n; i++)
		if ((long)i != at || body == text)
			ret = live_list_add(&next, c->trigs.expr[i]);
	if (ret >= 0 && body == text)
		ret = live_list_add(&next, body);
	/* removing one that is not there changes nothing, as the kernel */
	if (ret >= 0 && (body == text || at >= 0))
		ret = triggers_apply(l, c, &next);
	else
		live_list_free(&next);
	utrace_trigger_free(t);
	free(text);
	return ret < 0 ? ret : (long)n;
}

int live_show_hist(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};

	return l->ops.print_hist(l->ops.arg, out, h->sys, h->ev, &err);
}
