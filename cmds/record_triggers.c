/* SPDX-License-Identifier: MIT */
/*
 * record_triggers.c - `utrace record -e EVENT -R TRIGGER`: every trigger
 * is parsed, and each hist trigger compiled for the formats of the events
 * its -e names in the program and its libraries, before the command runs.
 * The recorder compiles them again for each object that defines the event
 * (lib/record/recorder_hist.c); this is only the early, clear error, in
 * the kernel's words and with its column, as the kernel's error_log says
 * it when the trigger is written.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmds/cmds.h"
#include "cmds/record_triggers.h"
#include "lib/events/event_filter.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"

static void trigger_error(const char *trigger, const struct utrace_error *err)
{
	utrace_die_msg("record", "-R: %s", err->msg);
	if (err->column > 0)
		fprintf(stderr, "  %s\n  %*s^\n", trigger, err->column - 1, "");
}

/* Compiles t for every event of the lists that pattern names. */
static int check_compile(const char *text, const struct utrace_trigger *t, const char *pattern,
			 struct utrace_event_list **lists, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; lists[i] && k < utrace_event_list_count(lists[i]); k++) {
			const struct utrace_event_format *f = utrace_event_list_get(lists[i], k);
			struct utrace_error err = {0};
			uint32_t len;
			void *prog;
			int code, ret;

			if (!utrace_event_spec_matches(pattern, f->system, f->name))
				continue;
			if (t->hist)
				ret = utrace_hist_compile(t->hist, f, &prog, &len, &code, &err);
			else if (t->filter)
				ret = utrace_filter_compile(f, t->filter, &prog, &len, &err);
			else
				continue;
			if (ret < 0) {
				if (!t->hist && err.column > 0) /* a column of the filter */
					err.column += (int)t->filter_pos;
				trigger_error(text, &err);
				return 2;
			}
			free(prog);
		}
	return 0;
}

static int check_one(const char *text, const char *pattern, struct utrace_event_list **lists,
		     size_t n)
{
	struct utrace_trigger *t = NULL;
	struct utrace_error err = {0};
	int code, ret = 0;

	if (utrace_trigger_parse(text, &t, &code, &err) < 0) {
		trigger_error(text, &err);
		return 2;
	}
	if (t->remove || t->cmd == UTRACE_TRIG_SNAPSHOT || t->cmd == UTRACE_TRIG_STACKTRACE ||
	    (!lists && t->cmd != UTRACE_TRIG_HIST)) {
		utrace_die_msg("record", "-R '%s': %s is not supported %s yet", text,
			       t->remove ? "removing a trigger" : utrace_trigger_cmd_name(t->cmd),
			       lists ? "on user events" : "on kernel events");
		ret = 2;
	} else {
		ret = check_compile(text, t, pattern, lists, n);
	}
	utrace_trigger_free(t);
	return ret;
}

int record_check_triggers(const struct utrace_event_spec *specs, unsigned nspecs,
			  struct utrace_event_list **lists, size_t n)
{
	for (unsigned i = 0; i < nspecs; i++)
		for (unsigned k = 0; k < specs[i].nr_triggers; k++) {
			int ret = check_one(specs[i].triggers[k], specs[i].pattern, lists, n);

			if (ret)
				return ret;
		}
	return 0;
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

int record_trigger_targets(struct utrace_event_spec **specs, unsigned *n, char ***names,
			   unsigned *nr_names)
{
	unsigned orig = *n;

	for (unsigned i = 0; i < orig; i++)
		for (unsigned k = 0; k < (*specs)[i].nr_triggers; k++) {
			struct utrace_trigger *t = NULL;
			struct utrace_error err;
			struct utrace_event_spec *sp;
			char **nm;
			int code;

			if (utrace_trigger_parse((*specs)[i].triggers[k], &t, &code, &err) < 0)
				continue; /* record_check_triggers says why */
			if (t->cmd != UTRACE_TRIG_ENABLE_EVENT ||
			    named(*specs, *n, t->target_system, t->target_event)) {
				utrace_trigger_free(t);
				continue;
			}
			sp = realloc(*specs, (*n + 1) * sizeof(**specs));
			nm = realloc(*names, (*nr_names + 1) * sizeof(**names));
			if (nm)
				*names = nm;
			if (sp)
				*specs = sp;
			if (!sp || !nm ||
			    asprintf(&(*names)[*nr_names], "%s:%s", t->target_system,
				     t->target_event) < 0) {
				utrace_trigger_free(t);
				return -1;
			}
			(*specs)[(*n)++] = (struct utrace_event_spec){.pattern = (*names)[(*nr_names)++],
							      .target_only = true};
			utrace_trigger_free(t);
		}
	return 0;
}
