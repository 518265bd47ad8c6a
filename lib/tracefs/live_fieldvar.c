/* SPDX-License-Identifier: MIT */
/*
 * live_fieldvar.c - the kernel's field variables (trace_events_hist.c's
 * create_field_var_hist): an onmatch() param that names a field of
 * another event ("sched.sched_waking.prio", or a field of the onmatch()
 * event) is a value of that event, which a hist trigger there must keep
 * for the key until the matching event comes.  The kernel cannot change
 * the trigger already on that event, so it adds one of its own:
 * "hist:keys=KEYS:synthetic_FIELD=FIELD[ if FILTER]", keyed and filtered
 * as the first hist trigger of that event (its compatible hist), which
 * the hist file then shows; the param reads $synthetic_FIELD of it
 * (lib/hist/hist_compile_act.c, hc_field_var).  Removing the trigger
 * that needed it removes it.
 *
 * This file says which triggers a new trigger needs (live_fv_plan) and
 * remembers who needed them (live_fv_note, live_fv_take); live_evconf.c
 * adds and removes them as it does a written trigger.  The caller holds
 * l->lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/hist/hist.h"
#include "lib/tracefs/live_internal.h"

struct live_fv {
	char *owner; /* the trigger that needs it, as written */
	char osys[65], oev[65];
	char tsys[65], tev[65];
	char *text; /* the trigger added */
	struct live_fv *next;
};

/* The value of "NAME=" in the hist trigger text (keys=, key=), up to the
 * next ':' or blank: its start and *n, or NULL. */
static const char *fv_part(const char *text, const char *name, size_t *n)
{
	size_t k = strlen(name);

	for (const char *p = strchr(text, ':'); p; p = strchr(p + 1, ':'))
		if (!strncmp(p + 1, name, k)) {
			*n = strcspn(p + 1 + k, ": \t");
			return p + 1 + k;
		}
	return NULL;
}

/* The trigger of sys:ev that keeps field f for onmatch() param p, keyed
 * and filtered as that event's first hist trigger (first); NULL if there
 * is none or ev has no field f. */
static char *fv_text(struct utrace_live *l, const char *sys, const char *ev, const char *f,
		     const char *first)
{
	const struct utrace_event_format *fmt = live_event_find(l, sys, ev);
	const char *keys, *filter;
	size_t n;
	char *out;

	if (!first || !fmt || !utrace_event_field_find(fmt, f) ||
	    (!(keys = fv_part(first, "keys=", &n)) && !(keys = fv_part(first, "key=", &n))))
		return NULL;
	filter = strstr(first, " if ");
	if (asprintf(&out, "hist:keys=%.*s:synthetic_%s=%s%s", (int)n, keys, f, f,
		     filter ? filter : "") < 0)
		return NULL;
	return out;
}

int live_fv_plan(struct utrace_live *l, const char *sys, const char *ev,
		 const struct utrace_trigger *t, const struct live_fv_ops *ops)
{
	const struct utrace_hist_spec *s = t->hist;
	const struct utrace_event_format *fmt = live_event_find(l, sys, ev);
	int ret = 0;

	for (unsigned i = 0; s && fmt && i < s->nr_actions && ret >= 0; i++) {
		const struct utrace_hist_action *a = &s->actions[i];

		for (unsigned k = 0; a->handler == UTRACE_HIST_ONMATCH && a->match_event &&
				     k < a->nr_params && ret >= 0;
		     k++) {
			const char *p = a->params[k], *d1 = strchr(p, '.');
			const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
			char tsys[65], tev[65], *text;

			if (strchr(p, '$') || utrace_event_field_find(fmt, p) || (d1 && !d2) ||
			    !strncmp(p, "common_", 7))
				continue;
			if (d2 && ((size_t)(d1 - p) >= sizeof(tsys) || (size_t)(d2 - d1) > sizeof(tev)))
				continue;
			snprintf(tsys, sizeof(tsys), "%.*s", d2 ? (int)(d1 - p) : 64,
				 d2 ? p : a->match_system);
			snprintf(tev, sizeof(tev), "%.*s", d2 ? (int)(d2 - d1 - 1) : 64,
				 d2 ? d1 + 1 : a->match_event);
			if (!strcmp(tsys, sys) && !strcmp(tev, ev))
				continue; /* a field of this event: no variable */
			text = fv_text(l, tsys, tev, d2 ? d2 + 1 : p, ops->first(ops->arg, tsys, tev));
			if (text)
				ret = ops->add(ops->arg, tsys, tev, text);
			free(text);
		}
	}
	return ret;
}

int live_fv_note(struct utrace_live *l, const char *osys, const char *oev, const char *owner,
		 const char *tsys, const char *tev, const char *text)
{
	struct live_fv *v = calloc(1, sizeof(*v));

	if (!v || !(v->owner = strdup(owner)) || !(v->text = strdup(text))) {
		if (v)
			free(v->owner);
		free(v);
		return -ENOMEM;
	}
	snprintf(v->osys, sizeof(v->osys), "%s", osys);
	snprintf(v->oev, sizeof(v->oev), "%s", oev);
	snprintf(v->tsys, sizeof(v->tsys), "%s", tsys);
	snprintf(v->tev, sizeof(v->tev), "%s", tev);
	v->next = l->fvs;
	l->fvs = v;
	return 0;
}

void live_fv_take(struct utrace_live *l, const char *osys, const char *oev, const char *owner,
		  const struct live_fv_ops *ops)
{
	struct live_fv **pp = &l->fvs;

	while (*pp) {
		struct live_fv *v = *pp;

		if (strcmp(v->osys, osys) || strcmp(v->oev, oev) || strcmp(v->owner, owner)) {
			pp = &v->next;
			continue;
		}
		*pp = v->next;
		if (ops)
			ops->remove(ops->arg, v->tsys, v->tev, v->text);
		free(v->owner);
		free(v->text);
		free(v);
	}
}

void live_fv_free(struct utrace_live *l)
{
	while (l->fvs) {
		struct live_fv *v = l->fvs;

		l->fvs = v->next;
		free(v->owner);
		free(v->text);
		free(v);
	}
}
