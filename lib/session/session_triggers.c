/* SPDX-License-Identifier: MIT */
/*
 * session_triggers.c - `utrace record -e EVENT -R TRIGGER`: every trigger
 * is parsed, once (kept in its -e's spec, which the recorder reads: the
 * parse is the check, as the kernel's when a trigger is written), and each
 * hist trigger compiled for the formats of the events its -e names in the
 * program and its libraries, before the command runs: the early, clear
 * error, in the kernel's words and with its column, as the kernel's
 * error_log says it when the trigger is written.  And the check is the
 * compile: each program is kept in the spec for the file it was made for
 * (lib/hist/trigger_spec.c utrace_trigger_keep), and the recorder gives
 * it to the objects of that file instead of compiling again
 * (lib/record/recorder_hist.c, recorder_trig.c).  A program that RESOLVEs
 * another trigger's table is not kept: the table ids are the recorder's,
 * and it compiles that one itself, in the same environment
 * (lib/hist/hist_env.c).
 *
 * On kernel events, the triggers the kernel has and whose output is the
 * same are given to it (record_kernel_triggers): `stacktrace`, whose
 * kernel_stack entries follow their event in the pages; and, for a hist
 * keyed on the event's stack (common_stacktrace), a `stacktrace` of its
 * own, without filter (a hit with no stack after it is then a lost one),
 * when no -R stacktrace is there already (the kernel takes one per event).
 * The kernel takes a stack before it applies the event's filter: the -e's
 * -f FILTER is in the trigger's (lib/hist/trigger_spec.c), so only the
 * events recorded have one, and each stack follows its own event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/session/session_synth.h"
#include "lib/session/session_triggers.h"
#include "lib/kernel/kernel_trace.h"
#include "lib/events/event_filter.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_env.h"

static void trigger_error(const char *trigger, const struct utrace_error *err,
			  struct session_fail *f)
{
	session_failf(f, 2, "-R: %s", err->msg);
	session_fail_caret(f, trigger, err->column);
}

/*
 * Compiles trigger k of sp (t) for every event its pattern names; a
 * program for an event of a file is kept in sp for the recorder's objects
 * of that file (the check is the compile), unless it RESOLVEs another
 * trigger's table, whose id only the recorder gives.
 */
static int check_compile(struct utrace_event_spec *sp, unsigned k, const char *text,
			 const struct utrace_trigger *t, struct record_check_env *env,
			 struct session_fail *fail)
{
	for (size_t i = 0; i < env->nfmts; i++) {
		const struct utrace_event_format *f = env->fmts[i];
		struct utrace_error err = {0};
		uint32_t len;
		void *prog;
		int code, ret;

		if (!utrace_event_spec_matches(sp->pattern, f->system, f->name))
			continue;
		ret = utrace_trigger_compile(t, f, record_check_env_ops(env), &prog, &len, &code,
					     &err);
		if (ret < 0) {
			trigger_error(text, &err, fail);
			return 2;
		}
		if (!prog || !env->paths[i] || (t->hist && utrace_hist_prog_resolves(prog)))
			free(prog);
		else if (utrace_trigger_keep(sp, k, env->paths[i], f, prog, len) < 0)
			return session_failf(fail, 1, "out of memory");
	}
	return 0;
}

/* Trigger k of sp parsed (once: kept in the spec for everyone after) and
 * compiled for the events it names. */
static int check_one(struct utrace_event_spec *sp, unsigned k, struct record_check_env *env,
		     bool user, struct session_fail *fail)
{
	const char *text = sp->triggers[k];
	struct utrace_error err = {0};
	const struct utrace_trigger *t = utrace_trigger_of(sp, k, NULL, &err);

	if (!t) {
		trigger_error(text, &err, fail);
		return 2;
	}
	if (t->remove)
		return session_failf(fail, 2, "-R '%s': removing a trigger is not supported %s yet",
				     text, user ? "on user events" : "on kernel events");
	return check_compile(sp, k, text, t, env, fail);
}

int record_check_triggers(struct utrace_event_spec *specs, unsigned nspecs,
			  struct utrace_event_list **lists, const char *const *files, size_t n,
			  struct utrace_synth *const *synths, unsigned nsynths,
			  struct session_fail *fail)
{
	struct record_check_env env = {specs, nspecs, NULL, NULL, 0, synths, nsynths, 0, {0}};
	size_t cap = nsynths;
	int ret = 0;

	for (size_t i = 0; lists && i < n; i++)
		cap += lists[i] ? utrace_event_list_count(lists[i]) : 0;
	env.fmts = calloc(cap + 1, sizeof(*env.fmts));
	env.paths = calloc(cap + 1, sizeof(*env.paths));
	if (!env.fmts || !env.paths) {
		free(env.fmts);
		free(env.paths);
		return session_failf(fail, 1, "out of memory");
	}
	for (size_t i = 0; lists && i < n; i++)
		for (unsigned k = 0; lists[i] && k < utrace_event_list_count(lists[i]); k++) {
			env.paths[env.nfmts] = files ? files[i] : NULL;
			env.fmts[env.nfmts++] = utrace_event_list_get(lists[i], k);
		}
	for (unsigned i = 0; i < nsynths; i++)
		env.fmts[env.nfmts++] = synths[i]->fmt;
	for (unsigned i = 0; i < nspecs && !ret; i++)
		for (unsigned k = 0; k < specs[i].nr_triggers && !ret; k++)
			ret = check_one(&specs[i], k, &env, lists != NULL, fail);
	free(env.fmts);
	free(env.paths);
	return ret;
}

/* Is SYSTEM:NAME named by one of the specs? */
static bool named(const struct utrace_event_spec *specs, unsigned n, const char *system,
		  const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!specs[i].exclude && utrace_event_spec_matches(specs[i].pattern, system, name))
			return true;
	return false;
}

int record_trigger_targets(struct utrace_event_spec **specs, unsigned *n, unsigned *cap,
			   char ***names, unsigned *nr_names, unsigned *cap_names)
{
	unsigned orig = *n;

	for (unsigned i = 0; i < orig; i++)
		for (unsigned k = 0; k < (*specs)[i].nr_triggers; k++) {
			struct utrace_error err;
			const struct utrace_trigger *t = utrace_trigger_of(&(*specs)[i], k, NULL, &err);

			if (!t)
				continue; /* record_check_triggers says why */
			if (t->cmd != UTRACE_TRIG_ENABLE_EVENT ||
			    named(*specs, *n, t->target_system, t->target_event))
				continue;
			if (UTRACE_GROW(*specs, *cap, *n + 1) < 0 ||
			    UTRACE_GROW(*names, *cap_names, *nr_names + 1) < 0 ||
			    asprintf(&(*names)[*nr_names], "%s:%s", t->target_system,
				     t->target_event) < 0)
				return -1;
			(*specs)[(*n)++] = (struct utrace_event_spec){.pattern = (*names)[(*nr_names)++],
							      .target_only = true};
		}
	return 0;
}

/* A hist key on the event's own stack (common_stacktrace, stacktrace). */
static bool keyed_on_stack(const struct utrace_trigger *t)
{
	for (unsigned i = 0; t->hist && i < t->hist->nr_keys; i++) {
		const struct utrace_hist_expr *e = t->hist->keys[i];

		if (e->op == UTRACE_HE_FIELD && (e->mods & UTRACE_HIST_MOD_STACKTRACE) &&
		    (!strcmp(e->name, "stacktrace") || !strcmp(e->name, "common_stacktrace")))
			return true;
	}
	return false;
}

/* The text written for -R text (t parsed, NULL: the one a hist needs)
 * on an event with -f filter: the stack is taken for the events the
 * filter keeps, as the kernel takes it before it filters the event.  A
 * parsed trigger has the filter in its own already ("(F) && (G)",
 * trigger_spec.c); *skip: the bytes before G in the written filter. */
static char *kernel_text(const char *text, const struct utrace_trigger *t, const char *filter,
			 size_t *skip)
{
	size_t head = t && t->filter_pos ? t->filter_pos : strlen(text);
	char *out = NULL;
	int ret;

	*skip = 0;
	if (t && t->filter_pos) { /* "CMD[:N] if G": back over " if " */
		while (head > 0 && text[head - 1] == ' ')
			head--;
		head -= head >= 2 && !strncmp(text + head - 2, "if", 2) ? 2 : 0;
		while (head > 0 && text[head - 1] == ' ')
			head--;
	}
	if (t && t->filter) {
		*skip = t->filter_skip;
		ret = asprintf(&out, "%.*s if %s", (int)head, text, t->filter);
	} else if (filter) {
		ret = asprintf(&out, "%.*s if (%s)", (int)head, text, filter);
	} else {
		return strdup(text);
	}
	return ret < 0 ? NULL : out;
}

/* One -R given to the kernel; its error printed as -R's (the kernel's
 * column is in the filter written). */
static int kernel_trigger(struct utrace_ktrace *kt, const struct utrace_event_spec *sp,
			  const char *text, const struct utrace_trigger *t, struct session_fail *fail)
{
	struct utrace_error err = {0};
	size_t skip;
	char *w = kernel_text(text, t, sp->filter, &skip);
	int ret;

	if (!w)
		return session_failf(fail, 1, "out of memory");
	ret = utrace_ktrace_trigger(kt, sp->pattern, "stacktrace", w, &err);
	free(w);
	if (ret >= 0)
		return 0;
	if (err.column > (int)skip && t && t->filter_pos)
		err.column += (int)t->filter_pos - (int)skip;
	else
		err.column = 0;
	session_failf(fail, 0, "-R '%s': %s", text, err.msg);
	session_fail_caret(fail, text, err.column);
	return err.code == -EOPNOTSUPP || err.code == -EINVAL ? 2 : 1;
}

int record_kernel_triggers(struct utrace_ktrace *kt, const struct utrace_event_spec *specs,
			   unsigned n, struct session_fail *fail)
{
	for (unsigned i = 0; i < n; i++) {
		bool stack = false, hist_stack = false;

		for (unsigned k = 0; k < specs[i].nr_triggers; k++) {
			const struct utrace_trigger *t = utrace_trigger_parsed(&specs[i], k);
			int ret = 0;

			if (!t)
				continue; /* record_check_triggers said why */
			if (t->cmd == UTRACE_TRIG_STACKTRACE && !t->remove) {
				stack = true;
				ret = kernel_trigger(kt, &specs[i], specs[i].triggers[k], t, fail);
			}
			hist_stack |= t->cmd == UTRACE_TRIG_HIST && keyed_on_stack(t);
			if (ret)
				return ret;
		}
		if (hist_stack && !stack && kernel_trigger(kt, &specs[i], "stacktrace", NULL, fail))
			return 2;
	}
	return 0;
}
