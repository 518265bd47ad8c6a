/* SPDX-License-Identifier: MIT */
/*
 * session_events.c - what `utrace record` records besides functions
 * (lib/session/session_internal.h): -e and --probe split into the programs'
 * own events, kernel events and uprobes, each checked before anything
 * runs.
 *
 * Design: --probe and -e usdt: become uprobes, enabled as kernel events
 * (session_probes.c); an -e whose SYSTEM is a directory of tracefs
 * events/ is a kernel event; the rest are the programs' own tracepoints,
 * which must exist in the program or a library it loads at start (or,
 * for a sanitized program, in libutrace.so: sanitizer:*).  The
 * kernel instance is opened here, so that a bad kernel filter stops the
 * recording before the command runs, as a bad user filter does.  Errors
 * go to the session's failure (session_fail.h), the exit status returned.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session/session_probes.h"
#include "lib/session/session_internal.h"
#include "lib/session/session_synth.h"
#include "lib/session/session_triggers.h"
#include "lib/elf/libdeps.h"
#include "lib/elf/sanitizer.h"
#include "lib/events/event_format.h"
#include "lib/probes/inproc_probe.h"

/* A filter error, with the expression and a caret under the column, like
 * the kernel's error_log. */
static void session_expr_error(struct utrace_session *s, const char *opt, const char *expr,
			       const struct utrace_error *err)
{
	session_failf(&s->fail, 0, "%s: %s", opt, err->msg);
	session_fail_caret(&s->fail, expr, err->column);
}

static void session_filter_error(struct utrace_session *s, const char *expr,
				 const struct utrace_error *err)
{
	session_expr_error(s, "-f", expr, err);
}

/* --probe without PATH: in-process probes, their events selected as the
 * program's own unless an -e names them.  A tracepoint probe (t:) runs
 * where the tracepoint's jump is on: a live recording keeps every one on,
 * another only those it records.  0, or the exit status. */
static int session_in_process_probes(struct utrace_session *s)
{
	struct utrace_session_opts *o = s->o;
	struct utrace_error err = {0};

	for (unsigned i = 0; i < o->nprobes && !o->tracefs; i++)
		if (o->probe_defs[i][strspn(o->probe_defs[i], " \t")] == 't' &&
		    utrace_inproc_probe_is_in_process(o->probe_defs[i]))
			return session_failf(&s->fail, 2,
					     "--probe '%s': a tracepoint probe (t:) needs --tracefs "
					     "(record the tracepoint with -e otherwise)",
					     o->probe_defs[i]);
	char *exe = utrace_program_path(o->argv[0]);
	unsigned bad = 0;
	/* (its note of a function not found yet is not a quiet run's: utrace
	 * bt's probe on a program the command runs later, or a library) */
	int ret = session_probes_in_process_parse(s->rp, o->probe_defs, o->nprobes, exe,
						  o->quiet ? NULL : o->log, &bad, &err);

	free(exe);
	if (ret < 0 && err.column > 0)
		session_expr_error(s, "--probe", o->probe_defs[bad], &err);
	else if (ret < 0)
		session_failf(&s->fail, 0, "--probe: %s", err.msg);
	if (ret < 0)
		return err.code == -ENOMEM ? 1 : 2;
	return session_probes_in_process_specs(s->rp, o->specs, o->nspecs, s->uspecs, &s->nuspecs) <
	       0;
}

/* --probe and -e usdt: become uprobes, enabled as kernel events; an -e
 * whose SYSTEM is a directory of tracefs events/ is a kernel event; the
 * rest are the programs' own tracepoints.  0, or the exit status. */
int session_split_events(struct utrace_session *s)
{
	struct utrace_session_opts *o = s->o;
	struct utrace_error err = {0};

	int ret = record_synth_parse(o->synth_defs, o->nsynth, &s->synths, &s->fail);

	if (ret)
		return ret;
	s->cap_uspecs = s->cap_kspecs = o->nspecs + o->nprobes + 1;
	s->uspecs = calloc(s->cap_uspecs, sizeof(*s->uspecs));
	s->kspecs = calloc(s->cap_kspecs, sizeof(*s->kspecs));
	s->rp = session_probes_new();
	if (!s->uspecs || !s->kspecs || !s->rp)
		return session_failf(&s->fail, 1, "out of memory");
	if ((ret = session_in_process_probes(s)))
		return ret;
	for (unsigned i = 0; i < o->nprobes; i++) {
		const char *pat;

		if (utrace_inproc_probe_is_in_process(o->probe_defs[i]))
			continue;
		pat = session_probes_add_def(s->rp, o->probe_defs[i], &err);
		if (!pat) {
			if (err.column > 0)
				session_expr_error(s, "--probe", o->probe_defs[i], &err);
			else
				session_failf(&s->fail, 0, "--probe: %s", err.msg);
			return 2;
		}
		s->kspecs[s->nkspecs++] = (struct utrace_event_spec){.pattern = pat};
	}
	for (unsigned i = 0; i < o->nspecs; i++) {
		struct utrace_event_spec *spec = &o->specs[i];

		if (!strncmp(spec->pattern, "usdt:", 5)) {
			char *exe = utrace_program_path(o->argv[0]);
			const char *pat = session_probes_add_usdt(s->rp, spec->pattern, exe, &err);

			free(exe);
			if (!pat)
				return session_failf(&s->fail, 2, "%s", err.msg);
			s->kspecs[s->nkspecs++] =
			    (struct utrace_event_spec){.pattern = pat, .filter = spec->filter};
		} else if (!(o->nsynth && !strncmp(spec->pattern, "synthetic:", 10)) &&
			   utrace_ktrace_is_kernel(spec->pattern)) {
			/* (the --synthetic events are this recording's own) */
			/* -R: parsed now, compiled for each format as the
			 * instance enables it (lib/record/recorder_hist.c) */
			if (record_check_triggers(spec, 1, NULL, NULL, 0, NULL, 0, &s->fail))
				return 2;
			s->kspecs[s->nkspecs++] = *spec;
		} else {
			s->uspecs[s->nuspecs++] = *spec;
		}
	}
	/* the recorder's entry patches keep off them */
	o->rec.kuprobes = session_probes_kernel(s->rp, &o->rec.nr_kuprobes);
	/* an enable_event target of a kernel event is a kernel event: the
	 * instance enables it, the recorder keeps its records off until then */
	if (record_trigger_targets(&s->uspecs, &s->nuspecs, &s->cap_uspecs, &s->target_names,
				   &s->nr_target_names, &s->cap_target_names) < 0 ||
	    record_trigger_targets(&s->kspecs, &s->nkspecs, &s->cap_kspecs, &s->target_names,
				   &s->nr_target_names, &s->cap_target_names) < 0)
		return session_failf(&s->fail, 1, "out of memory");
	return 0;
}

/* Whether pattern names an event of one of the files. */
static bool session_event_exists(const struct utrace_session *s, const char *pattern,
				 struct utrace_event_list **lists, size_t n)
{
	if (session_probes_names(s->rp, pattern))
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
static int session_check_user_events(struct utrace_session *s)
{
	struct utrace_libdeps deps = {0};
	struct utrace_event_list **lists = NULL;
	char **files = NULL;
	struct utrace_error err = {0};
	char *exe = utrace_program_path(s->o->argv[0]);
	size_t n = 0;
	int ret = 0;

	if (!exe || utrace_libdeps_get(exe, &deps, &err) < 0) {
		static struct utrace_event_list *none;

		free(exe); /* not a program we can read: spawning will say so */
		/* its triggers parsed all the same (the recorder reads them so) */
		return record_check_triggers(s->uspecs, s->nuspecs, &none, NULL, 0, s->synths,
					     s->o->nsynth, &s->fail);
	}
	lists = calloc(deps.n + 2, sizeof(*lists));
	files = calloc(deps.n + 2, sizeof(*files));
	if (!lists || !files)
		ret = session_failf(&s->fail, 1, "out of memory");
	for (size_t i = 0; !ret && i <= deps.n; i++)
		if (utrace_event_list_load(i ? deps.paths[i - 1] : exe, &lists[n], &err) == 0)
			/* the name the runtime gives the object (its realpath) */
			files[n++] = realpath(i ? deps.paths[i - 1] : exe, NULL);
	/* a sanitized program: libutrace.so's sanitizer:* events too */
	if (!ret && s->runtime[0] && utrace_sanitizer_find(exe, &deps) &&
	    utrace_event_list_load(s->runtime, &lists[n], &err) == 0)
		files[n++] = realpath(s->runtime, NULL);
	for (unsigned i = 0; lists && !ret && i < s->nuspecs; i++) {
		const char *why;

		if (session_event_exists(s, s->uspecs[i].pattern, lists, n))
			continue;
		if (s->uspecs[i].exclude && !s->uspecs[i].nr_triggers)
			continue; /* -v -e: nothing to record, nothing to check */
		if ((why = utrace_ktrace_unavailable()))
			session_failf(&s->fail, 0,
				      "-e %s: no such event in %s or its libraries, and kernel "
				      "events need access to tracefs (run as root): %s",
				      s->uspecs[i].pattern, exe, why);
		else
			session_failf(&s->fail, 0,
				      "-e %s: no such event in %s or its libraries, nor in the "
				      "kernel (utrace list -e %s lists the program's)",
				      s->uspecs[i].pattern, exe, s->o->argv[0]);
		ret = 2;
	}
	if (lists && !ret)
		ret = record_check_triggers(s->uspecs, s->nuspecs, lists,
					    (const char *const *)files, n, s->synths, s->o->nsynth,
					    &s->fail);
	for (size_t i = 0; i < n; i++) {
		utrace_event_list_free(lists[i]);
		free(files[i]);
	}
	free(lists);
	free(files);
	utrace_libdeps_free(&deps);
	free(exe);
	return ret;
}

/* The kernel instance and the user event selection, each filter checked
 * (a bad one stops us before the command runs).  0, or the exit status. */
int session_open_events(struct utrace_session *s)
{
	struct utrace_error err = {0};
	unsigned bad = 0;
	int ret;

	if (s->nuspecs && (ret = session_check_user_events(s)))
		return ret;
	if ((s->o->children || s->o->system_wide) && !s->nkspecs && !s->o->quiet)
		session_log(s->o->log, "-%c applies to kernel events only (none selected)",
			    s->o->system_wide ? 'a' : 'c');
	if (s->nkspecs && utrace_ktrace_open(s->kspecs, s->nkspecs, 0, &s->k.kt, &bad, &err) < 0) {
		if (err.column > 0)
			session_filter_error(s, s->kspecs[bad].filter, &err);
		else
			session_failf(&s->fail, 0, "%s", err.msg);
		return err.column > 0 || err.code == -ENOENT ? 2 : 1;
	}
	if (s->k.kt && (ret = record_kernel_triggers(s->k.kt, s->kspecs, s->nkspecs, &s->fail)))
		return ret;
	/* the live tracefs's stacktrace on a kernel event: the kernel's
	 * kernel_stack entries, whose format must be known from the start
	 * (a kernel without it: the live stacktrace is refused then) */
	if (s->k.kt && s->o->tracefs)
		utrace_ktrace_stack_format(s->k.kt, &err);
	s->o->rec.kspecs = s->kspecs;
	s->o->rec.nkspecs = s->nkspecs;
	/* --tracefs: every event is made switchable (events/.../enable) */
	if (s->nuspecs || s->o->tracefs) {
		char *exe = utrace_program_path(s->o->argv[0]);

		if (utrace_event_select_new(s->uspecs, s->nuspecs, &s->events, &err) < 0) {
			free(exe);
			return session_failf(&s->fail, 1, "%s", err.msg);
		}
		if (s->o->tracefs)
			utrace_event_select_all(s->events);
		if (exe && utrace_event_select_check(s->events, exe, &bad, &err) < 0) {
			session_filter_error(s, s->uspecs[bad].filter, &err);
			free(exe);
			return 2;
		}
		free(exe);
		for (unsigned i = 0; i < s->o->nsynth; i++)
			if (utrace_event_select_add_format(s->events, s->synths[i]->fmt) < 0)
				return session_failf(&s->fail, 1, "out of memory");
		if (session_probes_add_formats(s->rp, s->events, &s->o->rec.inproc_probes,
					       &s->o->rec.nr_inproc_probes) < 0)
			return session_failf(&s->fail, 1, "out of memory");
		s->o->rec.events = s->events;
	}
	/* a kernel event's onmatch() fires them too, selected by an -e or not */
	s->o->rec.synths = s->synths;
	s->o->rec.nr_synths = s->o->nsynth;
	return 0;
}
