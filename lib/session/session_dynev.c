/* SPDX-License-Identifier: MIT */
/*
 * session_dynev.c - dynamic_events, kprobe_events, uprobe_events and
 * synthetic_events of the live tracefs (lib/tracefs/live_dynev.c knows the
 * files): a probe definition is parsed and checked by lib/probes against
 * the program as at `--probe` (a PATH:OFFSET one against its file, and
 * installed where a process has that file loaded, now or later), gets
 * its event id in the recording and goes to lib/record, which saves its
 * format and installs it in every process; a synthetic event likewise
 * with lib/hist.  Their records are off until their enable file says 1.
 *
 * The names defined are kept (session_dynev_names.c; those of the
 * command line's probes too), so that a second definition of one is
 * refused before anything is sent, as the kernel refuses it.  Every op holds the recorder (the
 * lock of lib/session/session_live_internal.h); session_live.c calls here,
 * never the other way.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/libdeps.h"
#include "lib/base/grow.h"
#include "lib/events/event_format.h"
#include "lib/hist/synth.h"
#include "lib/probes/inproc_probe.h"
#include "lib/probes/uprobe.h"
#include "lib/session/session_dynev.h"
#include "lib/session/session_dynev_internal.h"
#include "lib/session/session_live_internal.h"

/* The probe point as the kernel lists it: trace_kprobe_show's "SYM" or
 * "SYM+OFFS", trace_uprobe_show's "PATH:0x%016lx" (PATH absolute),
 * trace_fprobe_show's "SYM[%return]". */
static void dyn_point(FILE *f, const struct utrace_inproc_probe *p)
{
	uint64_t off = 0;
	const char *path = utrace_inproc_probe_path(p, &off), *sym;
	char *real = path && path[0] != '/' ? realpath(path, NULL) : NULL;

	if (path) {
		fprintf(f, " %s:0x%016llx", real ? real : path, (unsigned long long)off);
		free(real);
		return;
	}
	sym = utrace_inproc_probe_symbol(p, &off);
	if (utrace_inproc_probe_module(p))
		fprintf(f, " %s:", utrace_inproc_probe_module(p));
	else
		fputc(' ', f);
	if (utrace_inproc_probe_tracepoint(p))
		fputs(utrace_inproc_probe_tracepoint(p), f);
	else if (utrace_inproc_probe_fprobe(p))
		fprintf(f, "%s%s", sym, utrace_inproc_probe_kind(p) == UTRACE_IPP_RETURN ? "%return" : "");
	else if (off)
		fprintf(f, "%s+%llu", sym, (unsigned long long)off);
	else
		fprintf(f, "%s", sym);
}

/*
 * The line dynamic_events lists for probe p, as the kernel's
 * trace_kprobe_show, trace_uprobe_show and trace_fprobe_show:
 * "p:GRP/EVENT POINT", "r[MAXACTIVE]:..." for a return, "f:GRP/EVENT
 * ...", then each argument as NAME=COMM: its name (given, its text when
 * that is a C identifier, else the kernel's argN) and its text as written
 * ($arg* and $argN as the parameters' names when the program's DWARF
 * knows them, as the kernel's BTF does).
 */
static char *dyn_probe_line(const struct utrace_inproc_probe *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned max = utrace_inproc_probe_maxactive(p);

	if (!f)
		return NULL;
	if (utrace_inproc_probe_tracepoint(p))
		fputc('t', f);
	else if (utrace_inproc_probe_fprobe(p))
		fputc('f', f);
	else
		fputc(utrace_inproc_probe_kind(p) == UTRACE_IPP_RETURN ? 'r' : 'p', f);
	if (max)
		fprintf(f, "%u", max);
	fprintf(f, ":%s/%s", utrace_inproc_probe_group(p), utrace_inproc_probe_event(p));
	dyn_point(f, p);
	for (unsigned i = 0; i < utrace_inproc_probe_nargs(p); i++) {
		const char *comm = "", *name = utrace_inproc_probe_arg(p, i, &comm);

		fprintf(f, " %s=%s", name, comm);
	}
	fclose(f);
	return buf;
}

struct sym_walk {
	const struct utrace_inproc_probe *p;
	bool found;
	char **seen; /* each path is looked in once */
	size_t nseen, cap_seen;
};

static void sym_in(void *arg, const char *path)
{
	struct sym_walk *w = arg;
	struct utrace_inproc_probe_loc loc;
	struct utrace_error e = {0};

	for (size_t i = 0; i < w->nseen && !w->found; i++)
		if (!strcmp(w->seen[i], path))
			return;
	if (w->found || UTRACE_GROW(w->seen, w->cap_seen, w->nseen + 1) < 0)
		return;
	if ((w->seen[w->nseen] = strdup(path)))
		w->nseen++;
	w->found = utrace_inproc_probe_locate(w->p, path, NULL, 0, 0, NULL, 0, &loc, &e) > 0;
}

/* Whether the program or a library it needs defines p's symbol, or an
 * object a traced process has loaded (the command may be a shell that
 * runs the program). */
static bool dyn_symbol_known(struct session_live *rl, const struct utrace_inproc_probe *p)
{
	struct sym_walk w = {p, false, NULL, 0, 0};

	if (rl->dyn->exe && utrace_inproc_probe_found(p))
		return true;
	live_lock(rl);
	utrace_recorder_live_objects(rl->r, sym_in, &w);
	pthread_mutex_unlock(&rl->lock);
	for (size_t i = 0; i < w.nseen; i++)
		free(w.seen[i]);
	free(w.seen);
	return w.found;
}

/* The kernel's error for a probe point it does not take, at the second
 * word of def. */
static int dyn_bad_point(const char *def, int code, struct utrace_error *err)
{
	int col = (int)strspn(def, " \t"), ret;

	col += (int)strcspn(def + col, " \t");
	col += (int)strspn(def + col, " \t");
	ret = utrace_error_set(err, -EINVAL, "%s", utrace_uprobe_error_text(code));
	err->column = col + 1;
	return ret;
}

/* The kind session_dynev_append_check compares. */
static int dyn_probe_kind(const struct utrace_inproc_probe *p)
{
	return (int)utrace_inproc_probe_kind(p) + (utrace_inproc_probe_fprobe(p) ? 8 : 0) +
	       (utrace_inproc_probe_tracepoint(p) ? 16 : 0);
}

/* The point of def: its second word (malloc'ed). */
static char *dyn_def_point(const char *def)
{
	const char *w = def + strspn(def, " \t");

	w += strcspn(w, " \t");
	w += strspn(w, " \t");
	return strndup(w, strcspn(w, " \t"));
}

/* p under the name of old: the kernel's append errors. */
static int dyn_append(struct dyn_name *old, struct utrace_inproc_probe *p, const char *def,
		      struct utrace_error *err)
{
	struct session_dynev_probe o = {old->kind, old->format, old->point}, a;
	char *text = utrace_event_format_text(utrace_inproc_probe_format(p), old->id);
	char *point = dyn_def_point(def);
	int ret;

	if (!old->format) /* the command line's, or a synthetic event */
		ret = utrace_error_set(err, -EEXIST, "There is already the exact same probe event");
	else if (!text || !point)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	else {
		a = (struct session_dynev_probe){dyn_probe_kind(p), text, point};
		ret = session_dynev_append_check(&o, &a, def, err);
	}
	free(text);
	free(point);
	return ret;
}

/* p, checked as another point of old's event (the kernel's multiprobe),
 * added to the recording under its id and format; p is the recorder's
 * afterwards, even on failure; *line only on success. */
static int dyn_point_append(struct session_live *rl, struct dyn_name *old,
			    struct utrace_inproc_probe *p, const char *def, char **line,
			    const struct utrace_event_format **fmt, struct utrace_error *err)
{
	int ret;

	if (utrace_recorder_inproc_probe_check(rl->r, p, err) < 0) {
		utrace_inproc_probe_free(p);
		return dyn_bad_point(def, UTRACE_UPROBE_ERR_BAD_INSN_BNDRY, err);
	}
	if (!old->fmt || !(*line = dyn_probe_line(p))) {
		utrace_inproc_probe_free(p);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	ret = utrace_recorder_inproc_probe_add(rl->r, p, old->id, NULL, err);
	if (ret >= 0 && dyn_point_keep(old, ret, *line) < 0)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	if (ret < 0) {
		free(*line);
		*line = NULL;
		return ret;
	}
	*fmt = old->fmt;
	return 0;
}

/* p added to the recording (the recorder held); p is the recorder's
 * afterwards, even on failure; *line only on success. */
static int dyn_probe_install(struct session_live *rl, struct utrace_inproc_probe *p, const char *def,
			     char **line, const struct utrace_event_format **fmt,
			     struct utrace_error *err)
{
	struct session_dynev *d = rl->dyn;
	const char *sys = utrace_inproc_probe_group(p), *name = utrace_inproc_probe_event(p);
	char *text = NULL;
	int id = -1, ret;

	*line = NULL;
	struct dyn_name *old = dyn_find(d, sys, name);

	if (old) {
		if ((ret = dyn_append(old, p, def, err)) >= 0)
			return dyn_point_append(rl, old, p, def, line, fmt, err);
	} else if (utrace_recorder_live_format(rl->r, sys, name)) /* a program's event */
		ret = session_dynev_exists(err);
	else if (utrace_recorder_inproc_probe_check(rl->r, p, err) < 0)
		ret = dyn_bad_point(def, UTRACE_UPROBE_ERR_BAD_INSN_BNDRY, err);
	else if ((id = session_dynev_event_id(rl, sys, name)) < 0 ||
		 !(text = utrace_event_format_text(utrace_inproc_probe_format(p), id)) ||
		 !(*line = dyn_probe_line(p)) || dyn_keep(d, sys, name, id, false, true) < 0)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	else {
		struct dyn_name *kept = &d->names[d->n - 1];

		*fmt = kept->fmt = utrace_inproc_probe_format(p);
		kept->kind = dyn_probe_kind(p);
		kept->format = strdup(text);
		kept->point = dyn_def_point(def);
		ret = utrace_recorder_inproc_probe_add(rl->r, p, id, text, err);
		p = NULL; /* the recorder's */
		if (ret >= 0 && dyn_point_keep(kept, ret, *line) < 0)
			ret = utrace_error_set(err, -ENOMEM, "out of memory"); /* said; it stays */
		if (ret < 0 && !kept->nk)
			dyn_name_free(&d->names[--d->n]); /* the name dyn_keep kept */
	}
	if (ret < 0) {
		free(*line);
		*line = NULL;
	}
	free(text);
	utrace_inproc_probe_free(p);
	return ret;
}

/* Whether def's point has a ':' (uprobe_events takes it as PATH:). */
static bool dyn_point_has_colon(const char *def)
{
	char *point = dyn_def_point(def);
	bool has = point && strchr(point, ':');

	free(point);
	return has;
}

/* The kernel's default groups: kprobes, fprobes, tracepoints, uprobes. */
static const char *dyn_default_group(const char *def, bool path)
{
	char t = def[strspn(def, " \t")];

	return path ? "uprobes" : t == 'f' ? "fprobes" : t == 't' ? "tracepoints" : "kprobes";
}

static int dyn_probe_add(void *arg, const char *def, enum utrace_live_probe file, char **line,
			 const struct utrace_event_format **fmt, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct session_dynev *d = rl->dyn;
	struct utrace_inproc_probe *p = NULL;
	bool path = !utrace_inproc_probe_is_in_process(def) ||
		    (file == UTRACE_LIVE_UPROBE && dyn_point_has_colon(def));
	int ret;

	/* kprobe_events: symbols only; uprobe_events: PATH: points only */
	if (file == UTRACE_LIVE_KPROBE && path)
		return dyn_bad_point(def, UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, err);
	if (file == UTRACE_LIVE_UPROBE && !path)
		return dyn_bad_point(def, UTRACE_UPROBE_ERR_NO_PROBE_POINT, err);
	if (utrace_inproc_probe_parse_as(def, d->exe, dyn_default_group(def, path), path, &p, NULL,
					 err) < 0)
		return err->code ? err->code : -EINVAL;
	/* a PATH: probe waits for the file to be loaded, as the kernel's
	 * uprobe waits for it to be mapped; a tracepoint is one the program
	 * (or an object it has loaded) defines: its __utrace_do_ function */
	if (!path && !dyn_symbol_known(rl, p)) {
		bool tp = utrace_inproc_probe_tracepoint(p) != NULL;

		utrace_inproc_probe_free(p);
		return dyn_bad_point(def, tp ? UTRACE_UPROBE_ERR_NO_TRACEPOINT
					     : UTRACE_UPROBE_ERR_BAD_PROBE_ADDR, err);
	}
	live_lock(rl);
	ret = dyn_probe_install(rl, p, def, line, fmt, err);
	pthread_mutex_unlock(&rl->lock);
	return ret < 0 ? ret : 0;
}

/* "s:synthetic/NAME\tTYPE FIELD; TYPE FIELD", as the kernel lists a
 * synthetic event. */
static char *dyn_synth_line(const struct utrace_synth *s)
{
	size_t n = strlen(s->name) + strlen(s->desc) + sizeof("s:synthetic/\t");
	char *buf = malloc(n);

	if (buf)
		snprintf(buf, n, "s:synthetic/%s\t%s", s->name, s->desc);
	return buf;
}

static int dyn_synth_add(void *arg, const char *def, char **line,
			 const struct utrace_event_format **fmt, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct session_dynev *d = rl->dyn;
	struct utrace_synth *s = NULL;
	char *text = NULL;
	int id = 0, code, ret;

	if (utrace_synth_parse(def, 0, &s, &code, err) < 0)
		return err->code ? err->code : -EINVAL;
	*line = NULL;
	live_lock(rl);
	if (dyn_find(d, "synthetic", s->name))
		ret = utrace_error_set(err, -EEXIST, "Event already exists");
	else if ((id = session_dynev_event_id(rl, "synthetic", s->name)) < 0 ||
		 !(text = utrace_event_format_text(s->fmt, id)) ||
		 !(*line = dyn_synth_line(s)) ||
		 dyn_keep(d, "synthetic", s->name, id, true, true) < 0)
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	else {
		*fmt = s->fmt;
		ret = utrace_recorder_synth_add(rl->r, s, id, text, err);
		s = NULL; /* the recorder's */
		if (ret < 0)
			d->n--; /* the name dyn_keep kept */
	}
	pthread_mutex_unlock(&rl->lock);
	if (ret < 0) {
		free(*line);
		*line = NULL;
	}
	free(text);
	utrace_synth_free(s);
	return ret < 0 ? ret : 0;
}

/* The point of n listed as line goes, the others stay (n has several):
 * 1 if it did, 0 if n has not several, -ENOENT if none is so listed. */
static int dyn_point_remove(struct session_live *rl, struct dyn_name *n, const char *line)
{
	unsigned i;
	int ret;

	if (n->nk < 2 || !line)
		return 0;
	for (i = 0; i < n->nk && strcmp(n->lines[i], line); i++)
		;
	if (i == n->nk)
		return -ENOENT;
	if ((ret = utrace_recorder_inproc_probe_remove_key(rl->r, n->keys[i])) < 0)
		return ret;
	free(n->lines[i]);
	n->nk--;
	memmove(&n->lines[i], &n->lines[i + 1], (n->nk - i) * sizeof(n->lines[0]));
	memmove(&n->keys[i], &n->keys[i + 1], (n->nk - i) * sizeof(n->keys[0]));
	return 1;
}

static int dyn_remove(void *arg, const char *sys, const char *name, const char *line,
		      struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct session_dynev *d = rl->dyn;
	struct dyn_name *n;
	int ret;

	live_lock(rl);
	if (!(n = dyn_find(d, sys, name)))
		ret = -ENOENT;
	else if ((ret = dyn_point_remove(rl, n, line)) != 0) {
		pthread_mutex_unlock(&rl->lock); /* one of its points: the event stays */
		return ret < 0 ? ret : 0;
	} else if (n->synth)
		ret = utrace_recorder_synth_remove(rl->r, name, n->id);
	else
		ret = utrace_recorder_inproc_probe_remove(rl->r, sys, name, err);
	if (ret >= 0 && n) {
		/* a synthetic event's name is free again; a probe's too (its
		 * key stays off for good: a new one gets a new key, and a new
		 * event id, its layout may differ) */
		if (!n->synth && rl->events)
			utrace_event_select_forget(rl->events, sys, name);
		dyn_name_free(n);
		*n = d->names[--d->n];
	}
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static int dyn_enable(void *arg, const char *sys, const char *name, int on)
{
	struct session_live *rl = live_rl(arg);
	struct session_dynev *d = rl->dyn;
	struct dyn_name *n;
	int ret;

	live_lock(rl);
	session_live_catch_up(rl);
	if (!(n = dyn_find(d, sys, name)) || !n->live)
		ret = -ENOENT; /* the command line's: recorded as -e said */
	else if (n->synth)
		ret = utrace_recorder_synth_enable(rl->r, name, n->id, on);
	else
		ret = utrace_recorder_inproc_probe_enable(rl->r, sys, name, on);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/* The command line's in-process probes: each one's last definition. */
static void dyn_initial(void *arg, void (*cb)(void *cbarg, const char *line,
					      const struct utrace_event_format *fmt),
			void *cbarg)
{
	struct session_live *rl = live_rl(arg);
	struct session_dynev *d = rl->dyn;
	const struct utrace_session_opts *o = d->o;

	for (unsigned i = 0; i < o->rec.nr_inproc_probes; i++) {
		const struct utrace_inproc_probe *p = o->rec.inproc_probes[i];
		struct utrace_error err = {0};
		char *line = NULL;

		for (unsigned k = o->nprobes; k-- > 0 && !line;) {
			struct utrace_inproc_probe *q;

			if (!utrace_inproc_probe_is_in_process(o->probe_defs[k]) ||
			    utrace_inproc_probe_parse(o->probe_defs[k], d->exe, &q, NULL, &err) < 0)
				continue;
			if (utrace_inproc_probe_kind(q) != UTRACE_IPP_REMOVE &&
			    !strcmp(utrace_inproc_probe_group(q), utrace_inproc_probe_group(p)) &&
			    !strcmp(utrace_inproc_probe_event(q), utrace_inproc_probe_event(p)))
				line = dyn_probe_line(q);
			utrace_inproc_probe_free(q);
		}
		if (line && dyn_keep(d, utrace_inproc_probe_group(p), utrace_inproc_probe_event(p), 0, false,
				     false) >= 0)
			cb(cbarg, line, utrace_inproc_probe_format(p));
		free(line);
	}
	/* --synthetic, in order (the kernel lists them here too) */
	for (unsigned i = 0; i < o->rec.nr_synths && i < o->nsynth; i++) {
		char *line = dyn_synth_line(o->rec.synths[i]);

		if (line && dyn_keep(d, "synthetic", o->rec.synths[i]->name, 0, true, false) >= 0)
			cb(cbarg, line, o->rec.synths[i]->fmt);
		free(line);
	}
}

struct session_dynev *session_dynev_new(struct session_live *rl,
					const struct utrace_session_opts *o,
					struct utrace_live_ops *ops)
{
	struct session_dynev *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = o;
	d->exe = o->argv ? utrace_program_path(o->argv[0]) : NULL;
	ops->probe_add = dyn_probe_add;
	ops->synth_add = dyn_synth_add;
	ops->dynev_remove = dyn_remove;
	ops->dynev_enable = dyn_enable;
	ops->dynev_initial = dyn_initial;
	(void)rl;
	return d;
}

void session_dynev_free(struct session_dynev *d)
{
	if (!d)
		return;
	free(d->exe);
	for (size_t i = 0; i < d->n; i++)
		dyn_name_free(&d->names[i]);
	free(d->names);
	free(d);
}
