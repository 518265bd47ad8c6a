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
 *            ":count=N" with N what is left now, " if FILTER"); `>`
 *            removes the hist (and enable_/disable_hist) triggers first
 *            (none when another trigger reads a variable of one), `>>`
 *            adds one, `!TRIGGER` removes the one of that command, its
 *            count and filter not read (a hist trigger: the same one by
 *            hist_trigger_match; EBUSY while another trigger reads its
 *            variables).  A hist trigger with :pause,
 *            :cont or :clear that is the same as one there pauses,
 *            continues or clears that one's table and adds nothing
 *            (:cont, :clear of none: ENOENT).  A trigger that does
 *            not parse or compile fails the write (EINVAL); a hist
 *            trigger's error is logged as the kernel's ("hist:SYS:EVENT:
 *            error: TEXT", the caret under its column); a second trigger
 *            of the same command (and target, or hist spec) is EEXIST.
 *            A hist trigger's $vars and synthetic events are found in the
 *            recording (ops->hist_var, hist_synth), as record -R's.
 *   hist     the tables of the event's hist triggers (ops->print_hist)
 *
 * The expression is compiled here first (lib/events/event_filter.h, on
 * the format the tracefs shows) for the error's text and column; the
 * recording compiles it again for each object's own layout (ops
 * ->event_filter).  The caller holds l->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>

#include "lib/base/grow.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_env.h"
#include "lib/tracefs/live_internal.h"

/* The triggers as written, in order, each parsed once when it was
 * written (t[i] of expr[i]; the recording holds it too). */
struct live_trigs {
	char **expr;
	struct utrace_trigger **t;
	size_t n, cap_expr, cap_t;
};

struct live_evconf {
	char sys[65], ev[65];
	char *filter; /* what `cat filter` shows (after an error: the error) */
	struct live_trigs trigs;
	struct live_evconf *next;
};

static int trigs_add(struct live_trigs *l, const char *expr, const struct utrace_trigger *t)
{
	if (UTRACE_GROW(l->expr, l->cap_expr, l->n + 1) < 0 ||
	    UTRACE_GROW(l->t, l->cap_t, l->n + 1) < 0 || !(l->expr[l->n] = strdup(expr)))
		return -ENOMEM;
	l->t[l->n++] = utrace_trigger_get(t);
	return 0;
}

static void trigs_free(struct live_trigs *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->expr[i]);
		utrace_trigger_free(l->t[i]);
	}
	free(l->expr);
	free(l->t);
	*l = (struct live_trigs){0};
}

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
	live_fv_free(l);
	while (l->evconfs) {
		struct live_evconf *c = l->evconfs;

		l->evconfs = c->next;
		free(c->filter);
		trigs_free(&c->trigs);
		free(c);
	}
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
	char *text = live_strip(buf, n);
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
	} else if (utrace_filter_compile_func(f, text, utrace_live_func_range, l, &prog, &len, &code,
					      &err) < 0) {
		return filter_error(l, c, text, code, live_filter_errpos(text, code, err.column));
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

/* One trigger as the kernel's print callbacks write it, with its :N left
 * and its table's state as the recording has them now. */
static void trigger_print(FILE *out, const struct utrace_trigger *t, long count, bool paused)
{
	int len;
	char *spec;

	if (t->cmd == UTRACE_TRIG_HIST) {
		len = utrace_hist_spec_text(t->hist, NULL, 0);
		if (!(spec = malloc((size_t)len + 1)))
			return;
		utrace_hist_spec_text(t->hist, spec, (size_t)len + 1);
		fprintf(out, "%s%s\n", spec, paused ? " [paused]" : " [active]");
		free(spec);
		return;
	}
	fputs(utrace_trigger_cmd_name(t->cmd), out);
	if (t->target_system)
		fprintf(out, ":%s:%s", t->target_system, t->target_event);
	if (count < 0)
		fputs(":unlimited", out);
	else
		fprintf(out, ":count=%ld", count);
	if (t->filter)
		fprintf(out, " if %s\n", t->filter);
	else
		fputc('\n', out);
}

int live_show_trigger(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	const struct live_evconf *c = evconf(l, h, false);

	if (!c || !c->trigs.n) {
		fputs(available_triggers, out);
		return 0;
	}
	for (size_t i = 0; i < c->trigs.n; i++) {
		const struct utrace_trigger *t = c->trigs.t[i];
		long count;
		bool paused;

		/* what is left of :N lives in the running programs */
		count = t->count;
		paused = t->hist && t->hist->pause;
		if (l->ops.trigger_ctl)
			l->ops.trigger_ctl(l->ops.arg, c->sys, c->ev, c->trigs.expr[i],
					   UTRACE_LIVE_TRIG_READ, &count, &paused);
		trigger_print(out, t, count, paused);
	}
	return 0;
}

/* Whether two triggers are the same one for the kernel: the same command
 * (and target), or for hist hist_trigger_match's (lib/hist). */
static bool trigger_same(const struct utrace_trigger *a, const struct utrace_trigger *b)
{
	if (a->cmd != b->cmd)
		return false;
	if (a->target_system && (strcmp(a->target_system, b->target_system) ||
				 strcmp(a->target_event, b->target_event)))
		return false;
	return a->cmd != UTRACE_TRIG_HIST || utrace_hist_spec_same(a->hist, b->hist);
}

/* The trigger of c that is the same as t, or -1. */
static long trigger_find(const struct live_evconf *c, const struct utrace_trigger *t)
{
	for (size_t i = 0; i < c->trigs.n; i++)
		if (trigger_same(c->trigs.t[i], t))
			return (long)i;
	return -1;
}

/* The list made current in every process; on failure left as it was. */
static int triggers_apply(struct utrace_live *l, struct live_evconf *c, struct live_trigs *next)
{
	struct utrace_error err = {0};
	int ret = l->ops.event_triggers(l->ops.arg, c->sys, c->ev, (const char *const *)next->expr,
					(struct utrace_trigger *const *)next->t, (unsigned)next->n,
					&err);

	if (ret < 0) {
		trigs_free(next);
		return ret;
	}
	trigs_free(&c->trigs);
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

/* The recording's $vars and synthetic events, for the check of a hist
 * trigger of the event h names. */
struct check_env {
	struct utrace_live *l;
	const struct live_handle *h;
};

static int check_var(void *arg, const char *name, const char *msys, const char *mev,
		     struct utrace_hist_var_info *out)
{
	const struct check_env *e = arg;

	return e->l->ops.hist_var(e->l->ops.arg, e->h->sys, e->h->ev, name, msys, mev, out);
}

static int check_synth(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	const struct check_env *e = arg;

	return e->l->ops.hist_synth(e->l->ops.arg, name, out);
}

/* t checked as the kernel would take it for this event: its fields, its
 * variables and actions, its target. */
static int trigger_check(struct utrace_live *l, const struct live_handle *h, const char *text,
			 const struct utrace_trigger *t)
{
	const struct utrace_event_format *f = live_event_find(l, h->sys, h->ev);
	struct check_env ce = {l, h};
	struct utrace_hist_env env = {l->ops.hist_var ? check_var : NULL,
				      l->ops.hist_synth ? check_synth : NULL, &ce};
	struct utrace_error err = {0};
	void *prog = NULL;
	uint32_t len;
	int code, ret = 0;

	if (!f)
		return -ENOENT;
	if (t->target_system && !live_event_find(l, t->target_system, t->target_event))
		return -EINVAL;
	ret = utrace_trigger_compile(t, f, &env, &prog, &len, &code, &err);
	free(prog);
	if (ret < 0) /* a hist trigger's error is logged; a filter's is a bare EINVAL */
		return t->hist && code >= 0 ? hist_error(l, h, text, code, &err, -EINVAL) : -EINVAL;
	return 0;
}

/* hist, enable_hist, disable_hist: the commands with an unreg_all, the
 * only triggers `echo > trigger` removes in the kernel */
static void fv_drop(struct utrace_live *l, const struct live_evconf *c, const char *owner);

static bool trigger_is_hist(const char *e)
{
	return !strncmp(e, "hist", 4) || !strncmp(e, "enable_hist:", 12) ||
	       !strncmp(e, "disable_hist:", 13);
}

/* `echo > trigger`: the hist triggers removed first (the unreg_all of
 * hist, enable_hist and disable_hist; the others stay), but none when
 * another trigger reads a variable of one of them (hist_unreg_all's
 * hist_file_check_refs: the recording says EBUSY). */
int live_open_trigger(struct utrace_live *l, struct live_handle *h, int flags)
{
	struct live_evconf *c = evconf(l, h, false);
	struct live_trigs keep = {0}, gone;
	int ret;

	if ((flags & O_ACCMODE) == O_RDONLY || !(flags & O_TRUNC) || !c || !c->trigs.n)
		return 0;
	for (size_t i = 0; i < c->trigs.n; i++)
		if (!trigger_is_hist(c->trigs.expr[i]) &&
		    trigs_add(&keep, c->trigs.expr[i], c->trigs.t[i]) < 0) {
			trigs_free(&keep);
			return -ENOMEM;
		}
	if (keep.n == c->trigs.n) {
		trigs_free(&keep);
		return 0;
	}
	gone = c->trigs;
	c->trigs = (struct live_trigs){0}; /* gone keeps them until they are dropped */
	ret = triggers_apply(l, c, &keep);
	if (ret < 0) {
		c->trigs = gone;
		return ret == -EBUSY ? 0 : ret;
	}
	for (size_t i = 0; i < gone.n; i++)
		if (trigger_is_hist(gone.expr[i]))
			fv_drop(l, c, gone.expr[i]);
	trigs_free(&gone);
	return 0;
}

/* hist:...:pause, :cont or :clear of the hist trigger at of c: done to
 * its table, nothing added (existing_hist_update_only). */
static int hist_update(struct utrace_live *l, const struct live_evconf *c, long at,
		       const struct utrace_hist_spec *s)
{
	int what = s->pause  ? UTRACE_LIVE_TRIG_PAUSE
		   : s->cont ? UTRACE_LIVE_TRIG_CONT
			     : UTRACE_LIVE_TRIG_CLEAR;
	long count;
	bool paused;

	if (!l->ops.trigger_ctl)
		return -EOPNOTSUPP;
	return l->ops.trigger_ctl(l->ops.arg, c->sys, c->ev, c->trigs.expr[at], what, &count,
				  &paused);
}

static int trigger_add(struct utrace_live *l, const struct live_handle *h, struct live_evconf *c,
		       const char *text, const struct utrace_trigger *t);
static int trigger_remove(struct utrace_live *l, struct live_evconf *c,
			  const struct utrace_trigger *t);

/* ---- the triggers of field variables (live_fieldvar.c) ---------------- */

struct fv_arg {
	struct utrace_live *l;
	const char *osys, *oev, *owner; /* the trigger that needs them */
};

static const char *fv_first(void *arg, const char *sys, const char *ev)
{
	const struct fv_arg *a = arg;
	struct live_handle h = {0};
	const struct live_evconf *c;

	snprintf(h.sys, sizeof(h.sys), "%s", sys);
	snprintf(h.ev, sizeof(h.ev), "%s", ev);
	c = evconf(a->l, &h, false);
	for (size_t i = 0; c && i < c->trigs.n; i++)
		if (c->trigs.t[i]->cmd == UTRACE_TRIG_HIST)
			return c->trigs.expr[i];
	return NULL;
}

/* text added to (add) or removed from sys:ev as a write of it would */
static int fv_change(struct fv_arg *a, const char *sys, const char *ev, const char *text,
		     bool add)
{
	struct live_handle h = {0};
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	struct live_evconf *c;
	int code, ret;

	snprintf(h.sys, sizeof(h.sys), "%s", sys);
	snprintf(h.ev, sizeof(h.ev), "%s", ev);
	if (!(c = evconf(a->l, &h, add)))
		return add ? -ENOMEM : 0;
	if (utrace_trigger_parse(text, &t, &code, &err) < 0) {
		utrace_trigger_free(t);
		return -EINVAL;
	}
	ret = add ? trigger_add(a->l, &h, c, text, t) : trigger_remove(a->l, c, t);
	utrace_trigger_free(t);
	if (add && ret >= 0)
		ret = live_fv_note(a->l, a->osys, a->oev, a->owner, sys, ev, text);
	return ret == -EEXIST ? 0 : ret; /* there already: another needs it too */
}

static int fv_add(void *arg, const char *sys, const char *ev, const char *text)
{
	return fv_change(arg, sys, ev, text, true);
}

static void fv_remove(void *arg, const char *sys, const char *ev, const char *text)
{
	fv_change(arg, sys, ev, text, false);
}

/* owner (of c) is gone: the triggers of its field variables too */
static void fv_drop(struct utrace_live *l, const struct live_evconf *c, const char *owner)
{
	struct fv_arg a = {l, c->sys, c->ev, owner};
	struct live_fv_ops ops = {fv_first, fv_add, fv_remove, &a};

	live_fv_take(l, c->sys, c->ev, owner, &ops);
}

/* `>> trigger` of t (text): a new one, or :pause/:cont/:clear of one
 * there is, as event_hist_trigger_parse and hist_register_trigger.  The
 * triggers its field variables need are added first (taken back if it
 * fails). */
static int trigger_add(struct utrace_live *l, const struct live_handle *h, struct live_evconf *c,
		       const char *text, const struct utrace_trigger *t)
{
	const struct utrace_hist_spec *s = t->hist;
	long at = trigger_find(c, t);
	struct live_trigs next = {0};
	struct fv_arg fa = {l, c->sys, c->ev, text};
	struct live_fv_ops fops = {fv_first, fv_add, fv_remove, &fa};
	int ret;

	if (at >= 0 && s && (s->pause || s->cont || s->clear))
		return hist_update(l, c, at, s);
	if (at >= 0) /* added twice */
		return s ? hist_error(l, h, text, UTRACE_HIST_ERR_TRIGGER_EEXIST, NULL, -EEXIST)
			 : -EEXIST;
	if (s && s->nr_actions && (ret = live_fv_plan(l, c->sys, c->ev, t, &fops)) < 0) {
		live_fv_take(l, c->sys, c->ev, text, &fops);
		return ret;
	}
	if ((ret = trigger_check(l, h, text, t)) >= 0 && s && (s->cont || s->clear))
		ret = hist_error(l, h, text, UTRACE_HIST_ERR_TRIGGER_ENOENT_CLEAR, NULL, -ENOENT);
	for (size_t i = 0; ret >= 0 && i < c->trigs.n; i++)
		ret = trigs_add(&next, c->trigs.expr[i], c->trigs.t[i]);
	if (ret >= 0)
		ret = trigs_add(&next, text, t);
	if (ret >= 0)
		ret = triggers_apply(l, c, &next);
	else
		trigs_free(&next);
	if (ret < 0)
		live_fv_take(l, c->sys, c->ev, text, &fops);
	else if (t->cmd == UTRACE_TRIG_SNAPSHOT)
		l->snap_allocated = true; /* the kernel's register_snapshot_trigger */
	return ret;
}

/* `!TRIGGER`: the one of c that is the same goes; none is no error, as
 * in the kernel. */
static int trigger_remove(struct utrace_live *l, struct live_evconf *c,
			  const struct utrace_trigger *t)
{
	long at = trigger_find(c, t);
	struct live_trigs next = {0};
	int ret = 0;

	char *owner;

	if (at < 0)
		return 0;
	for (size_t i = 0; ret >= 0 && i < c->trigs.n; i++)
		if ((long)i != at)
			ret = trigs_add(&next, c->trigs.expr[i], c->trigs.t[i]);
	if (ret < 0 || !(owner = strdup(c->trigs.expr[at]))) {
		trigs_free(&next);
		return ret < 0 ? ret : -ENOMEM;
	}
	if ((ret = triggers_apply(l, c, &next)) >= 0)
		fv_drop(l, c, owner);
	free(owner);
	return ret;
}

/* `!TRIGGER` of a command other than hist: what follows the command (and
 * its SYS:EVENT target) is not read, as event_trigger_parse and
 * event_enable_trigger_parse unregister before they parse the count or
 * the filter; so the form the file prints, `traceoff:unlimited`,
 * `snapshot:count=0 if FILTER`, removes it.  Cut in place. */
static void trigger_removal_key(char *body)
{
	unsigned colons = strncmp(body, "enable_", 7) && strncmp(body, "disable_", 8) ? 1 : 3;
	char *p = body + strcspn(body, " \t");

	*p = '\0';
	for (p = body; *p; p++)
		if (*p == ':' && --colons == 0) {
			*p = '\0';
			break;
		}
}

long live_write_trigger(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct live_evconf *c = evconf(l, h, true);
	char *text = live_strip(buf, n);
	const char *body = text && *text == '!' ? text + 1 : text;
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	int code, ret;

	if (!c || !text) {
		free(text);
		return -ENOMEM;
	}
	if (!*text) { /* `echo > trigger`: the open did it */
		free(text);
		return (long)n;
	}
	if (body != text && strncmp(body, "hist", 4))
		trigger_removal_key(text + 1);
	ret = utrace_trigger_parse(body, &t, &code, &err);
	if (ret < 0)
		ret = t || code < 0 || strncmp(body, "hist", 4)
			  ? -EINVAL
			  : hist_error(l, h, body, code, &err, -EINVAL);
	else if (body == text)
		ret = trigger_add(l, h, c, body, t);
	else
		ret = trigger_remove(l, c, t);
	utrace_trigger_free(t);
	free(text);
	return ret < 0 ? ret : (long)n;
}

int live_show_hist(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};

	return l->ops.print_hist(l->ops.arg, out, h->sys, h->ev, &err);
}
