/* SPDX-License-Identifier: MIT */
/*
 * session_probes.c - the dynamic probes of a recording: `--probe DEF` and
 * `-e usdt:PROVIDER:NAME`.
 *
 * Each becomes one or more uprobes registered in the kernel's
 * uprobe_events (lib/probes/uprobe.c) under the group utrace_<pid>, so that
 * `utrace reset` can find them if we die, and an event spec "GROUP:EVENT"
 * that the kernel-event session (lib/kernel/kernel_trace.c) enables in utrace's
 * own instance like any tracepoint.  They are removed when the recording
 * ends, after the instance (an enabled uprobe cannot be removed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/glob.h"
#include "lib/base/grow.h"
#include "lib/events/event_select.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "lib/probes/usdt.h"
#include "lib/session/session_fail.h"
#include "lib/session/session_probes.h"

struct session_probes {
	struct utrace_uprobe **probes; /* registered, one per event name */
	unsigned nr, cap;
	char **patterns; /* "GROUP:EVENT" specs handed out */
	unsigned nr_patterns, cap_patterns;
	char group[32];
	struct utrace_inproc_probe **inproc_probes; /* in-process, in definition order */
	unsigned nr_inproc_probes, cap_inproc_probes;
};

struct session_probes *session_probes_new(void)
{
	struct session_probes *rp = calloc(1, sizeof(*rp));

	if (rp)
		snprintf(rp->group, sizeof(rp->group), "utrace_%d", (int)getpid());
	return rp;
}

static int keep(void **arr, unsigned *n, unsigned *cap, void *item)
{
	if (UTRACE_GROW(*(void ***)arr, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*(void ***)arr)[(*n)++] = item;
	return 0;
}

static const char *pattern_of(struct session_probes *rp, const struct utrace_uprobe *p)
{
	char *s;

	if (asprintf(&s, "%s:%s", utrace_uprobe_group(p), utrace_uprobe_event(p)) < 0)
		return NULL;
	if (keep((void **)&rp->patterns, &rp->nr_patterns, &rp->cap_patterns, s) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

const char *session_probes_add_def(struct session_probes *rp, const char *def,
				   struct utrace_error *err)
{
	struct utrace_uprobe *p;

	if (utrace_uprobe_parse(def, &p, err) < 0)
		return NULL;
	/* the default group becomes ours, for utrace reset */
	if (!strcmp(utrace_uprobe_group(p), "utrace") &&
	    utrace_uprobe_set_name(p, rp->group, NULL, err) < 0)
		goto fail;
	if (utrace_uprobe_register(NULL, p, err) < 0)
		goto fail;
	if (keep((void **)&rp->probes, &rp->nr, &rp->cap, p) < 0) {
		utrace_uprobe_unregister(NULL, p, err);
		utrace_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	return pattern_of(rp, p);
fail:
	utrace_uprobe_free(p);
	return NULL;
}

const char *session_probes_add_usdt(struct session_probes *rp, const char *spec, const char *exe,
				    struct utrace_error *err)
{
	const char *what = spec + strlen("usdt:"), *colon = strchr(what, ':');
	struct utrace_usdt_list *l = NULL;
	const char *pattern = NULL;
	char prov[128], event[160];
	unsigned found = 0;

	if (!colon || colon == what || !colon[1] || (size_t)(colon - what) >= sizeof(prov)) {
		utrace_error_set(err, -EINVAL, "-e %s: expected usdt:PROVIDER:NAME", spec);
		return NULL;
	}
	memcpy(prov, what, (size_t)(colon - what));
	prov[colon - what] = 0;
	if (!exe) {
		utrace_error_set(err, -ENOENT, "-e %s: cannot find the program to read its notes", spec);
		return NULL;
	}
	if (utrace_usdt_load(exe, &l, err) < 0)
		return NULL;
	for (unsigned i = 0; i < utrace_usdt_count(l); i++) {
		const struct utrace_usdt_probe *u = utrace_usdt_get(l, i);
		struct utrace_uprobe *p;
		int ret = -1;

		if (!utrace_glob_match(prov, u->provider) || !utrace_glob_match(colon + 1, u->name))
			continue;
		/* sites of one probe share its event; a site the kernel will not
		 * merge (other argument types) gets NAME_1, NAME_2, ... */
		for (unsigned k = 0; ret < 0 && k < 8; k++) {
			if (k)
				snprintf(event, sizeof(event), "%s_%u", u->name, k);
			else
				snprintf(event, sizeof(event), "%s", u->name);
			if (utrace_usdt_to_uprobe(l, i, rp->group, event, &p, err) < 0)
				break;
			ret = utrace_uprobe_register(NULL, p, err);
			if (ret < 0)
				utrace_uprobe_free(p);
		}
		if (ret < 0) {
			utrace_usdt_free(l);
			return NULL;
		}
		if (keep((void **)&rp->probes, &rp->nr, &rp->cap, p) < 0) {
			utrace_uprobe_unregister(NULL, p, err);
			utrace_uprobe_free(p);
			utrace_usdt_free(l);
			utrace_error_set(err, -ENOMEM, "out of memory");
			return NULL;
		}
		if (!found++)
			pattern = pattern_of(rp, p);
	}
	utrace_usdt_free(l);
	if (!found) {
		utrace_error_set(err, -ENOENT, "-e %s: no such USDT probe in %s (see utrace list --usdt)",
				 spec, exe);
		return NULL;
	}
	/* every site's event is in the group: enable them all */
	if (found > 1) {
		char *all;

		if (asprintf(&all, "%s:%s*", rp->group, colon + 1) < 0 ||
		    keep((void **)&rp->patterns, &rp->nr_patterns, &rp->cap_patterns, all) < 0)
			return pattern;
		return all;
	}
	return pattern;
}

/* An in-process definition (no PATH:): parsed now, run by the runtime;
 * "-:[GRP/]EVENT" drops an earlier one, as the kernel's removal would. */
int session_probes_add_in_process(struct session_probes *rp, const char *def, const char *exe,
				  FILE *log, struct utrace_error *err)
{
	struct utrace_inproc_probe *p;
	unsigned i;

	if (utrace_inproc_probe_parse(def, exe, &p, NULL, err) < 0)
		return -1;
	for (i = 0; i < rp->nr_inproc_probes; i++)
		if (!strcmp(utrace_inproc_probe_group(rp->inproc_probes[i]), utrace_inproc_probe_group(p)) &&
		    !strcmp(utrace_inproc_probe_event(rp->inproc_probes[i]), utrace_inproc_probe_event(p)))
			break;
	if (utrace_inproc_probe_kind(p) == UTRACE_IPP_REMOVE) {
		bool found = i < rp->nr_inproc_probes;

		if (found) {
			utrace_inproc_probe_free(rp->inproc_probes[i]);
			memmove(rp->inproc_probes + i, rp->inproc_probes + i + 1,
				(--rp->nr_inproc_probes - i) * sizeof(*rp->inproc_probes));
		}
		utrace_inproc_probe_free(p);
		if (!found)
			return utrace_error_set(err, -ENOENT, "'%s': no such probe defined before it",
						def);
		return 0;
	}
	if (i < rp->nr_inproc_probes) {
		utrace_error_set(err, -EEXIST, "'%s': event %s:%s already exists", def,
				 utrace_inproc_probe_group(p), utrace_inproc_probe_event(p));
		utrace_inproc_probe_free(p);
		return -1;
	}
	if (exe && !utrace_inproc_probe_found(p))
		session_log(log,
			    "--probe '%s': no function %s in %s or the libraries it "
			    "needs (C++: the mangled name); it waits for a library loaded later",
			    def, utrace_inproc_probe_symbol(p, NULL), exe);
	if (rp->nr_inproc_probes >= UTRACE_INPROC_PROBE_MAX_DEFS ||
	    keep((void **)&rp->inproc_probes, &rp->nr_inproc_probes, &rp->cap_inproc_probes, p) < 0) {
		utrace_inproc_probe_free(p);
		return utrace_error_set(err, -ENOMEM, "too many probes");
	}
	return 0;
}

int session_probes_in_process_parse(struct session_probes *rp, const char **defs, unsigned n,
				    const char *exe, FILE *log, unsigned *bad,
				    struct utrace_error *err)
{
	for (unsigned i = 0; i < n; i++) {
		if (!utrace_inproc_probe_is_in_process(defs[i]) ||
		    session_probes_add_in_process(rp, defs[i], exe, log, err) == 0)
			continue;
		*bad = i;
		return -1;
	}
	return 0;
}

int session_probes_in_process_specs(struct session_probes *rp,
				    const struct utrace_event_spec *specs, unsigned nspecs,
				    struct utrace_event_spec *out, unsigned *nout)
{
	for (unsigned i = 0; i < rp->nr_inproc_probes; i++) {
		const char *g = utrace_inproc_probe_group(rp->inproc_probes[i]);
		const char *e = utrace_inproc_probe_event(rp->inproc_probes[i]);
		bool named = false;
		char *pat;

		for (unsigned k = 0; k < nspecs && !named; k++)
			named = utrace_event_spec_matches(specs[k].pattern, g, e);
		if (named)
			continue;
		if (asprintf(&pat, "%s:%s", g, e) < 0)
			return -ENOMEM;
		if (keep((void **)&rp->patterns, &rp->nr_patterns, &rp->cap_patterns, pat) < 0) {
			free(pat);
			return -ENOMEM;
		}
		out[(*nout)++] = (struct utrace_event_spec){.pattern = pat};
	}
	return 0;
}

bool session_probes_names(const struct session_probes *rp, const char *pattern)
{
	for (unsigned i = 0; i < rp->nr_inproc_probes; i++)
		if (utrace_event_spec_matches(pattern, utrace_inproc_probe_group(rp->inproc_probes[i]),
					      utrace_inproc_probe_event(rp->inproc_probes[i])))
			return true;
	return false;
}

int session_probes_add_formats(const struct session_probes *rp, struct utrace_event_select *sel,
			       struct utrace_inproc_probe *const **inproc_probes, unsigned *n)
{
	for (unsigned i = 0; i < rp->nr_inproc_probes; i++)
		if (utrace_event_select_add_format(sel, utrace_inproc_probe_format(rp->inproc_probes[i])) < 0)
			return -ENOMEM;
	*inproc_probes = rp->inproc_probes;
	*n = rp->nr_inproc_probes;
	return 0;
}

struct utrace_uprobe *const *session_probes_kernel(const struct session_probes *rp, unsigned *n)
{
	*n = rp->nr;
	return rp->probes;
}

struct utrace_inproc_probe *const *session_probes_in_process(const struct session_probes *rp, unsigned *n)
{
	*n = rp->nr_inproc_probes;
	return rp->inproc_probes;
}

/* After the kernel-event session closed (the events are disabled). */
void session_probes_free(struct session_probes *rp, FILE *log)
{
	struct utrace_error err;

	if (!rp)
		return;
	for (unsigned i = rp->nr; i-- > 0;) {
		if (utrace_uprobe_unregister(NULL, rp->probes[i], &err) < 0 && err.code != -ENOENT)
			session_log(log, "%s (utrace reset removes it later)", err.msg);
		utrace_uprobe_free(rp->probes[i]);
	}
	for (unsigned i = 0; i < rp->nr_inproc_probes; i++)
		utrace_inproc_probe_free(rp->inproc_probes[i]);
	free(rp->inproc_probes);
	for (unsigned i = 0; i < rp->nr_patterns; i++)
		free(rp->patterns[i]);
	free(rp->patterns);
	free(rp->probes);
	free(rp);
}
