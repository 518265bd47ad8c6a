/* SPDX-License-Identifier: MIT */
/*
 * event_select.c - the recorder's choice of static tracepoints.
 *
 * Patterns follow trace-cmd record -e: "sys:event" (each a glob), "sys",
 * "event" or "all".  An event gets one id for the whole recording, by
 * SYSTEM:NAME, whatever process or object defines it, so a fork or an
 * exec of the same program writes the same ids; the first time an id is
 * given out, its kernel-style format text goes into the trace file.
 * Filters are compiled once per (event, object) against that object's
 * record layout (lib/events/event_filter.c) and cached.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/events/event_filter.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/base/glob.h"
#include "lib/base/grow.h"


struct sel_loaded { /* the events of one file, loaded once */
	char *path;
	struct utrace_event_list *list; /* NULL if it could not be read */
	struct sel_loaded *next;
};

struct sel_id { /* ids handed out, by system:name */
	char *system, *name;
	int id;
	bool format_out; /* its format was handed out (to be saved once) */
	struct sel_id *next;
};

struct sel_prog { /* compiled filters, by (spec, path, event) */
	unsigned spec;
	char *path, *system, *name;
	void *prog;
	uint32_t len;
	struct sel_prog *next;
};

struct utrace_event_select {
	struct utrace_event_spec *specs;
	unsigned nr;
	struct sel_loaded *loaded;
	struct sel_id *ids;
	int next_id;
	struct sel_prog *progs;
	char *format; /* the last format text handed out */
	/* events no object defines (synthetic events), under the path
	 * UTRACE_EVENT_NOOBJ; borrowed from the caller */
	const struct utrace_event_format **extra;
	unsigned nr_extra, cap_extra;
	bool all; /* every event a file describes matches (the live tracefs) */
};

int utrace_event_select_new(struct utrace_event_spec *specs, unsigned nr,
			    struct utrace_event_select **out, struct utrace_error *err)
{
	struct utrace_event_select *s = calloc(1, sizeof(*s));

	if (!s)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < nr; i++)
		if (!specs[i].pattern || !*specs[i].pattern) {
			free(s);
			return utrace_error_set(err, -EINVAL, "-e: empty event name");
		}
	s->specs = specs;
	s->nr = nr;
	s->next_id = UTRACE_EV_ID_BASE; /* kernel event ids (and ftrace's own) stay below */
	*out = s;
	return 0;
}

void utrace_event_select_free(struct utrace_event_select *s)
{
	if (!s)
		return;
	while (s->loaded) {
		struct sel_loaded *l = s->loaded;

		s->loaded = l->next;
		utrace_event_list_free(l->list);
		free(l->path);
		free(l);
	}
	while (s->ids) {
		struct sel_id *i = s->ids;

		s->ids = i->next;
		free(i->system);
		free(i->name);
		free(i);
	}
	while (s->progs) {
		struct sel_prog *p = s->progs;

		s->progs = p->next;
		free(p->path);
		free(p->system);
		free(p->name);
		free(p->prog);
		free(p);
	}
	free(s->format);
	free(s->extra);
	free(s);
}

int utrace_event_select_add_format(struct utrace_event_select *s,
				   const struct utrace_event_format *f)
{
	if (UTRACE_GROW(s->extra, s->cap_extra, (size_t)s->nr_extra + 1) < 0)
		return -ENOMEM;
	s->extra[s->nr_extra++] = f;
	return 0;
}

/* The format of SYSTEM:NAME in the file at path (or an extra one). */
static struct utrace_event_list *sel_load(struct utrace_event_select *s, const char *path);

static const struct utrace_event_format *sel_find(struct utrace_event_select *s, const char *path,
						  const char *system, const char *name)
{
	struct utrace_event_list *l;

	if (!strcmp(path, UTRACE_EVENT_NOOBJ)) {
		for (unsigned i = 0; i < s->nr_extra; i++)
			if (!strcmp(s->extra[i]->system, system) && !strcmp(s->extra[i]->name, name))
				return s->extra[i];
		return NULL;
	}
	l = sel_load(s, path);
	return l ? utrace_event_list_find(l, system, name) : NULL;
}

void utrace_event_select_all(struct utrace_event_select *s)
{
	s->all = true;
}

bool utrace_event_select_empty(const struct utrace_event_select *s)
{
	return !s || !s->nr;
}

bool utrace_event_spec_exact(const char *pattern, char *sys, char *ev, size_t n)
{
	const char *colon = strchr(pattern, ':');

	if (!colon || strpbrk(pattern, "*?[") || (size_t)(colon - pattern) >= n ||
	    strlen(colon + 1) >= n)
		return false;
	snprintf(sys, n, "%.*s", (int)(colon - pattern), pattern);
	snprintf(ev, n, "%s", colon + 1);
	return true;
}

bool utrace_event_spec_matches(const char *pattern, const char *system, const char *name)
{
	const char *colon = strchr(pattern, ':');
	char sys[128];

	if (!strcmp(pattern, "all"))
		return true;
	if (!colon)
		return utrace_glob_match(pattern, system) || utrace_glob_match(pattern, name);
	if ((size_t)(colon - pattern) >= sizeof(sys))
		return false;
	memcpy(sys, pattern, (size_t)(colon - pattern));
	sys[colon - pattern] = 0;
	return utrace_glob_match(sys, system) && utrace_glob_match(colon + 1, name);
}

static struct utrace_event_list *sel_load(struct utrace_event_select *s, const char *path)
{
	struct utrace_error e;
	struct sel_loaded *l;

	for (l = s->loaded; l; l = l->next)
		if (!strcmp(l->path, path))
			return l->list;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->path = strdup(path);
	if (utrace_event_list_load(path, &l->list, &e) < 0)
		l->list = NULL;
	l->next = s->loaded;
	s->loaded = l;
	return l->list;
}

static int sel_compile(struct utrace_event_select *s, unsigned spec, const char *path,
		       const struct utrace_event_format *f, const void **prog, uint32_t *len,
		       struct utrace_error *err)
{
	struct sel_prog *p;
	void *code = NULL;
	uint32_t n = 0;
	int ret;

	for (p = s->progs; p; p = p->next)
		if (p->spec == spec && !strcmp(p->path, path) && !strcmp(p->system, f->system) &&
		    !strcmp(p->name, f->name)) {
			*prog = p->prog;
			*len = p->len;
			return 0;
		}
	ret = utrace_filter_compile(f, s->specs[spec].filter, &code, &n, err);
	if (ret < 0)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(code);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	p->spec = spec;
	p->path = strdup(path);
	p->system = strdup(f->system);
	p->name = strdup(f->name);
	p->prog = code;
	p->len = n;
	p->next = s->progs;
	s->progs = p;
	*prog = code;
	*len = n;
	return 0;
}

int utrace_event_select_check(struct utrace_event_select *s, const char *path, unsigned *spec,
			      struct utrace_error *err)
{
	struct utrace_event_list *l = sel_load(s, path);
	const void *prog;
	uint32_t len;

	for (unsigned i = 0; l && i < s->nr; i++) {
		if (!s->specs[i].filter)
			continue;
		for (unsigned k = 0; k < utrace_event_list_count(l); k++) {
			const struct utrace_event_format *f = utrace_event_list_get(l, k);

			if (!utrace_event_spec_matches(s->specs[i].pattern, f->system, f->name))
				continue;
			if (sel_compile(s, i, path, f, &prog, &len, err) < 0) {
				*spec = i;
				return err->code;
			}
		}
	}
	return 0;
}

/* The id of f's event; *fresh: its format is yet to be handed out. */
static int sel_id(struct utrace_event_select *s, const struct utrace_event_format *f, bool *fresh)
{
	struct sel_id *i;

	for (i = s->ids; i; i = i->next)
		if (!strcmp(i->system, f->system) && !strcmp(i->name, f->name)) {
			*fresh = !i->format_out;
			i->format_out = true;
			return i->id;
		}
	i = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->system = strdup(f->system);
	i->name = strdup(f->name);
	i->id = s->next_id++;
	i->next = s->ids;
	s->ids = i;
	*fresh = true;
	i->format_out = true;
	return i->id;
}

/* The first -e that records SYSTEM:NAME (not after -v), s->nr if none. */
static unsigned sel_recorded(const struct utrace_event_select *s, const char *system,
			     const char *name)
{
	unsigned i;

	for (i = 0; i < s->nr; i++)
		if (!s->specs[i].exclude &&
		    utrace_event_spec_matches(s->specs[i].pattern, system, name))
			break;
	return i;
}

static bool sel_has_triggers(const struct utrace_event_select *s, const char *system,
			     const char *name)
{
	for (unsigned i = 0; i < s->nr; i++)
		if (s->specs[i].nr_triggers &&
		    utrace_event_spec_matches(s->specs[i].pattern, system, name))
			return true;
	return false;
}

bool utrace_event_select_soft(const struct utrace_event_select *s, const char *system,
			      const char *name)
{
	if (sel_recorded(s, system, name) == s->nr)
		return true;
	for (unsigned i = 0; i < s->nr; i++)
		if (s->specs[i].exclude &&
		    utrace_event_spec_matches(s->specs[i].pattern, system, name))
			return true;
	return false;
}

const struct utrace_event_format *utrace_event_select_format(struct utrace_event_select *s,
							     const char *path, const char *system,
							     const char *name)
{
	return sel_find(s, path, system, name);
}

const struct utrace_event_spec *utrace_event_select_spec(const struct utrace_event_select *s,
							 unsigned i)
{
	return i < s->nr ? &s->specs[i] : NULL;
}

unsigned utrace_event_select_count(const struct utrace_event_select *s)
{
	return s ? s->nr : 0;
}

int utrace_event_select_id(struct utrace_event_select *s, const char *system, const char *name)
{
	struct utrace_event_format f = {.system = system, .name = name};
	bool fresh;
	int id = sel_id(s, &f, &fresh);

	/* named, not matched: its format goes out when an object has it */
	for (struct sel_id *i = s->ids; fresh && i; i = i->next)
		if (i->id == id)
			i->format_out = false;
	return id;
}

void utrace_event_select_forget(struct utrace_event_select *s, const char *system,
				const char *name)
{
	for (struct sel_id **pi = &s->ids; *pi; pi = &(*pi)->next) {
		struct sel_id *i = *pi;

		if (strcmp(i->system, system) || strcmp(i->name, name))
			continue;
		*pi = i->next;
		free(i->system);
		free(i->name);
		free(i);
		return;
	}
}

int utrace_event_select_match(struct utrace_event_select *s, const char *path, const char *system,
			      const char *name, int *id, const void **prog, uint32_t *prog_len,
			      const char **format, struct utrace_error *err)
{
	const struct utrace_event_format *f = sel_find(s, path, system, name);
	unsigned spec;
	bool fresh;
	int ret;

	*prog = NULL;
	*prog_len = 0;
	*format = NULL;
	if (!f)
		return 0; /* not described in its file: cannot be decoded, never enabled */
	spec = sel_recorded(s, system, name);
	if (utrace_event_select_soft(s, system, name) && !sel_has_triggers(s, system, name) &&
	    !s->all)
		return 0; /* excluded (-v), or named by no -e */
	if (spec == s->nr) /* only triggers: the first spec that names it counts */
		for (spec = 0;
		     spec < s->nr && !utrace_event_spec_matches(s->specs[spec].pattern, system, name);)
			spec++;
	else if (s->specs[spec].filter && !utrace_event_select_soft(s, system, name)) {
		ret = sel_compile(s, spec, path, f, prog, prog_len, err);
		if (ret < 0)
			return ret;
	}
	ret = sel_id(s, f, &fresh);
	if (ret < 0)
		return utrace_error_set(err, ret, "out of memory");
	*id = ret;
	for (unsigned i = 0; i < s->nr; i++) /* every -e that names it found something */
		s->specs[i].matched += utrace_event_spec_matches(s->specs[i].pattern, system, name);
	if (fresh) {
		free(s->format);
		s->format = utrace_event_format_text(f, *id);
		if (!s->format)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		*format = s->format;
	}
	return 1;
}
