/* SPDX-License-Identifier: MIT */
/*
 * trigger_spec.c - the -R triggers of an -e, parsed once.  The kernel
 * parses a trigger once, when it is written (event_hist_trigger_parse()),
 * and that parse is the check: what it keeps is what runs.  So here: the
 * first that needs trigger k of a spec (the command line's check, which
 * prints its error) parses it into the spec's trigs[k], an array every
 * copy of the spec shares; the recorder and the others read it from
 * there.  A trigger that does not parse is kept as NULL, and parsed again
 * only by whoever asks for it to say why.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/events/event_select.h"
#include "lib/hist/hist.h"

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
