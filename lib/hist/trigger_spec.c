/* SPDX-License-Identifier: MIT */
/*
 * trigger_spec.c - the -R triggers of an -e, parsed once.  The kernel
 * parses a trigger once, when it is written (event_hist_trigger_parse()),
 * and that parse is the check: what it keeps is what runs.  So here: the
 * first that needs trigger k of a spec (the command line's check, which
 * prints its error) parses it into the spec's trigs[k], an array every
 * copy of the spec shares; the recorder and the others read it from
 * there.  A trigger that does not parse is kept as NULL, and parsed again
 * only by whoever asks for it to say why.  The check's compiles are kept
 * the same way (sp->kept, by file and event), so that the recorder runs
 * what the check made instead of compiling it again.
 *
 * The -e's own filter (-f F) applies before its triggers: a trigger that
 * is not a hist gets it as part of its filter ("(F) && (G)", or F), so
 * that `-e EV -f F -R stacktrace` takes a stack for each event recorded,
 * not for every hit.  The kernel runs a trigger without a filter of its
 * own before it filters the event (trace_trigger_soft_disabled()), so the
 * kernel's way to say this is the trigger's own `if`: record writes it
 * for the user, for user and kernel events alike.  A hist keeps the
 * filter it was given: its table counts what its own `if` selects, as
 * the kernel's, and prints that filter in its header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"

/* t's filter G becomes "(F) && (G)", or F without one; filter_skip is
 * what precedes G (its errors' columns are G's, after it). */
static int trigger_and_filter(struct utrace_trigger *t, const char *f)
{
	char *both = NULL;
	int ret = t->filter ? asprintf(&both, "(%s) && (%s)", f, t->filter)
			    : ((both = strdup(f)) ? 0 : -1);

	if (ret < 0 || !both)
		return -ENOMEM;
	t->filter_skip = (unsigned)(t->filter ? strlen(f) + 7 : strlen(both));
	free(t->filter);
	t->filter = both;
	return 0;
}

const struct utrace_trigger *utrace_trigger_of(struct utrace_event_spec *sp, unsigned k, int *code,
					       struct utrace_error *err)
{
	struct utrace_trigger *t = NULL;

	if (k >= sp->nr_triggers) {
		utrace_error_set(err, -EINVAL, "no trigger %u", k);
		return NULL;
	}
	if (sp->trigs && sp->trigs[k])
		return sp->trigs[k];
	if (!sp->trigs && !(sp->trigs = calloc(sp->nr_triggers, sizeof(*sp->trigs)))) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (utrace_trigger_parse(sp->triggers[k], &t, code, err) < 0)
		return NULL;
	if (sp->filter && !t->hist && !t->remove && trigger_and_filter(t, sp->filter) < 0) {
		utrace_trigger_free(t);
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	sp->trigs[k] = t;
	return t;
}

const struct utrace_trigger *utrace_trigger_parsed(const struct utrace_event_spec *sp, unsigned k)
{
	return sp->trigs && k < sp->nr_triggers ? sp->trigs[k] : NULL;
}

void utrace_trigger_free_spec(struct utrace_event_spec *sp)
{
	for (unsigned k = 0; sp->trigs && k < sp->nr_triggers; k++)
		utrace_trigger_free(sp->trigs[k]);
	free(sp->trigs);
	sp->trigs = NULL;
}

/* One program the check compiled: trigger k for SYSTEM:NAME of path. */
struct utrace_trigger_kept {
	unsigned k;
	char *path, *system, *name;
	void *prog;
	uint32_t len;
	struct utrace_trigger_kept *next;
};

int utrace_trigger_keep(struct utrace_event_spec *sp, unsigned k, const char *path,
			const struct utrace_event_format *f, void *prog, uint32_t len)
{
	struct utrace_trigger_kept *p = calloc(1, sizeof(*p));

	if (!p || !(p->path = strdup(path)) || !(p->system = strdup(f->system)) ||
	    !(p->name = strdup(f->name))) {
		if (p) {
			free(p->path);
			free(p->system);
		}
		free(p);
		free(prog);
		return -ENOMEM;
	}
	p->k = k;
	p->prog = prog;
	p->len = len;
	p->next = sp->kept;
	sp->kept = p;
	return 0;
}

const void *utrace_trigger_kept(const struct utrace_event_spec *sp, unsigned k, const char *path,
				const char *system, const char *name, uint32_t *len)
{
	for (const struct utrace_trigger_kept *p = sp->kept; p && path; p = p->next)
		if (p->k == k && !strcmp(p->path, path) && !strcmp(p->system, system) &&
		    !strcmp(p->name, name)) {
			*len = p->len;
			return p->prog;
		}
	return NULL;
}

void utrace_trigger_free_kept(struct utrace_event_spec *sp)
{
	while (sp->kept) {
		struct utrace_trigger_kept *p = sp->kept;

		sp->kept = p->next;
		free(p->path);
		free(p->system);
		free(p->name);
		free(p->prog);
		free(p);
	}
}
