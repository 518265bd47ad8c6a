/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist.c - the hist triggers of a recording: one table per
 * trigger and event, shared by every process that has the event.
 *
 *   -e demo:demo_word -R 'hist:keys=len'
 *
 *   recorder                                   traced processes
 *   first object that defines demo_word:
 *     compile (parsed by the -R check)
 *     memfd: utrace_hist_map, zeroed  ---- HIST {prog} + fd ---->  mmap, attach
 *                                      ---- ENABLE {key} ------->  patch the sites
 *   every later object, fork child, exec:                          (same table)
 *                                      ---- HIST + the same fd -->
 *   end: the table is read and saved as a HIST record of utrace.dat
 *        (recorder_hist_tables.c, which also runs a kernel event's hits)
 *
 * The table stays mapped here too, so a traced process that is killed
 * loses nothing it counted.  The kernel keeps one table per trigger of an
 * event; so does this file, keyed by (the -e, the -R, the event): a
 * compiled program that differs from the first one's (the same event
 * name with another layout in another object) gets no table, and the
 * recording says so.  This file compiles the triggers and finds the
 * tables their $variables are in; recorder_hist_map.c keeps the tables,
 * recorder_hist_send.c sends them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hist_prog.h"
#include "lib/events/event_format.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_env.h"
#include "lib/hist/synth.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_kernel.h"
#include "lib/record/recorder_live.h"

/* What the compiler's callbacks know of the trigger being compiled. */
struct hist_env_arg {
	struct utrace_recorder *r;
	const char *path; /* the object whose event it is */
	unsigned depth;	  /* triggers compiled to find a variable, nested */
	bool kernel;	  /* a kernel event's: $vars are the kernel -e's */
	unsigned reader;  /* whose trigger (the live tracefs's): its $vars only */
};

static unsigned env_nspecs(const struct hist_env_arg *a)
{
	if (a->kernel)
		return a->r->o.nkspecs;
	return a->r->o.events ? utrace_event_select_count(a->r->o.events) : 0;
}

static const struct utrace_event_spec *env_spec(const struct hist_env_arg *a, unsigned i)
{
	return a->kernel ? &a->r->o.kspecs[i] : utrace_event_select_spec(a->r->o.events, i);
}

static struct rec_hist *hist_get(struct utrace_recorder *r, unsigned spec, unsigned trig,
				 const char *text, const struct utrace_trigger *t,
				 const struct utrace_event_format *fmt,
				 const struct hist_env_arg *env, struct utrace_error *err);

/* What a $name refers to of hist trigger s (variable v), now that its
 * table h is made. */
static int hist_var_info(const struct rec_hist *h, const struct utrace_hist_spec *s, unsigned v,
			 struct utrace_hist_var_info *out)
{
	const struct utrace_hist_hdr *p = h->prog;

	*out = (struct utrace_hist_var_info){
	    .table = h->owner ? h->owner->tid : h->tid,
	    .sum = utrace_hist_var_sum(s, v),
	    .bitmap = utrace_hist_var_bitmap(s),
	    .bit = 1ull << v,
	    .key_size = p->key_size,
	    .nr_keys = p->nr_keys,
	    .str = utrace_hist_var_is_str(p, utrace_hist_var_sum(s, v)),
	    .stack = utrace_hist_var_is_stack(p, utrace_hist_var_sum(s, v)),
	};
	memcpy(out->slots, p->slots, sizeof(out->slots));
	return 0;
}

/* Variable d->v of trigger d->k of spec d->spec: its trigger compiled
 * for its event (a synthetic event's, or one of the same object), for
 * its table. */
static int hist_var_table(const struct hist_env_arg *a, const struct utrace_hist_def *d,
			  struct utrace_hist_var_info *out)
{
	struct utrace_event_select *s = a->r->o.events;
	struct hist_env_arg nested = {a->r, a->path, a->depth + 1, a->kernel, a->reader};
	const struct utrace_event_format *fmt = NULL;
	const struct rec_kfmt *kf = NULL;
	struct utrace_error e;
	struct rec_hist *h;

	if (a->depth >= 4)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND; /* a loop of references */
	if (a->kernel && (kf = rec_kfmt_find(a->r, d->sys, d->ev)))
		fmt = kf->fmt;
	else if (!a->kernel)
		fmt = utrace_event_select_format(
		    s, strcmp(d->sys, "synthetic") ? a->path : UTRACE_EVENT_NOOBJ, d->sys, d->ev);
	if (!fmt || !(h = hist_get(a->r, d->spec | (a->kernel ? REC_HIST_KERNEL : 0), d->k,
				   d->text, d->t, fmt, &nested, &e)))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	if (kf)
		h->kid = kf->id;
	return hist_var_info(h, d->t->hist, d->v, out);
}

/* ... of a trigger the tracefs added (recorder_liveev.c): its table, made
 * now for its event's format where the trigger being compiled is (or
 * where else it is) if it is not made yet. */
static int hist_live_var_table(const struct hist_env_arg *a, const struct utrace_hist_def *d,
			       struct utrace_hist_var_info *out)
{
	const char *where = a->path;
	/* a kernel event's (recorder_livekev.c): the kernel's format */
	const struct rec_kfmt *kf = rec_kfmt_shown(a->r, d->sys, d->ev);
	const struct utrace_event_format *fmt =
	    kf ? kf->fmt : rec_live_fmt(a->r, a->path, d->sys, d->ev, &where);
	struct hist_env_arg nested = {a->r, kf ? UTRACE_EVENT_NOOBJ : where, a->depth + 1, !!kf,
				      a->reader};
	struct utrace_error e;
	struct rec_hist *h;

	if (a->depth >= 4 || !fmt ||
	    !(h = hist_get(a->r, d->spec, 0, d->text, d->t, fmt, &nested, &e)))
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	if (kf)
		h->kid = kf->id;
	return hist_var_info(h, d->t->hist, d->v, out);
}

static int hist_layout(void *arg, const struct utrace_hist_def *d,
		       struct utrace_hist_var_info *out)
{
	const struct hist_env_arg *a = arg;

	return d->spec & REC_HIST_LIVE ? hist_live_var_table(a, d, out)
				       : hist_var_table(a, d, out);
}

/* A trigger the tracefs added that defines the variable looked for. */
struct hist_live_visit {
	void (*visit)(void *ctx, const struct utrace_hist_def *d);
	void *ctx;
	const struct hist_env_arg *a;
};

static void hist_live_found(void *arg, const char *sys, const char *ev, const char *text,
			    const struct utrace_trigger *t, unsigned spec, unsigned v)
{
	const struct hist_live_visit *lv = arg;

	(void)v; /* visit finds it */
	/* a kernel event's trigger for a kernel event's, a user event's
	 * for a user event's: each runs where its records are; but a
	 * synthetic event's (no object) may be fired by either, and reads
	 * both (the tables are the recorder's, shared) */
	if ((rec_kfmt_shown(lv->a->r, sys, ev) != NULL) != lv->a->kernel &&
	    (lv->a->kernel || strcmp(lv->a->path, UTRACE_EVENT_NOOBJ)))
		return;
	lv->visit(lv->ctx, &(struct utrace_hist_def){sys, ev, text, t, spec, 0, 0});
}

/*
 * The triggers a $name may be of (lib/hist/hist_env.c searches them):
 * the -R of a user event (a kernel event's: of the kernel -e), and the
 * triggers the tracefs added.  The one found is compiled now if its table
 * is not made yet (hist_layout), so that the reference has a table id to
 * RESOLVE in.
 */
static void hist_each(void *arg, const char *var, const char *want_sys, const char *want_ev,
		      void (*visit)(void *ctx, const struct utrace_hist_def *d), void *ctx)
{
	const struct hist_env_arg *a = arg;
	struct hist_live_visit lv = {visit, ctx, a};
	char sys[65], ev[65];

	for (unsigned i = 0; !a->reader && i < env_nspecs(a); i++) { /* -R: the top level's */
		const struct utrace_event_spec *sp = env_spec(a, i);

		if (!utrace_event_spec_exact(sp->pattern, sys, ev, sizeof(sys)))
			continue;
		for (unsigned k = 0; k < sp->nr_triggers; k++)
			visit(ctx, &(struct utrace_hist_def){sys, ev, sp->triggers[k],
							     utrace_trigger_parsed(sp, k), i, k, 0});
	}
	if (a->r->o.live)
		rec_live_vars(a->r, a->reader, var, want_sys, want_ev, hist_live_found, &lv);
}

/* The compiler's env of a trigger compiled with a (which must outlive
 * it, as sc must). */
static const struct utrace_hist_env *hist_env(const struct hist_env_arg *a,
					      struct utrace_hist_scope *sc)
{
	*sc = (struct utrace_hist_scope){.each = hist_each,
					 .layout = hist_layout,
					 .synths = a->r->o.synths,
					 .nr_synths = a->r->o.nr_synths,
					 .arg = (void *)a};
	return utrace_hist_scope_env(sc);
}

/* The live tracefs's check of a trigger of an event where path has it
 * (recorder_liveev.c): $name as its compile would find it. */
int rec_hist_var(struct utrace_recorder *r, unsigned reader, const char *path, const char *name,
		 const char *msys, const char *mev, struct utrace_hist_var_info *out)
{
	/* path NULL: a kernel event's (recorder_livekev.c) */
	struct hist_env_arg a = {r, path ? path : UTRACE_EVENT_NOOBJ, 0, !path, reader};
	struct utrace_hist_scope sc;
	const struct utrace_hist_env *env = hist_env(&a, &sc);

	return env->var(env->arg, name, msys, mev, out);
}

/* An action's synthetic event: its index is the id its EMIT carries. */
int rec_synth_lookup(void *arg, const char *name, struct utrace_hist_synth_info *out)
{
	const struct utrace_recorder *r = arg;

	return utrace_synth_lookup(r->o.synths, r->o.nr_synths, name, out);
}

/* The program the -R check compiled for trigger trig of a user -e spec,
 * for this event of env's object (lib/hist/trigger_spec.c), copied into
 * *prog; false if it kept none (an object of a file it did not read, a
 * kernel event's, the tracefs's), or if the tracefs may change the
 * synthetic events its actions' ids number. */
static bool hist_kept(struct utrace_recorder *r, unsigned spec, unsigned trig,
		      const struct utrace_event_format *fmt, const struct hist_env_arg *env,
		      void **prog, uint32_t *len)
{
	const struct utrace_event_spec *sp;
	const void *p;

	if ((spec & (REC_HIST_KERNEL | REC_HIST_LIVE)) || !env || env->kernel || r->o.live ||
	    !r->o.events ||
	    !(sp = utrace_event_select_spec(r->o.events, spec)) ||
	    !(p = utrace_trigger_kept(sp, trig, env->path, fmt->system, fmt->name, len)) ||
	    !(*prog = malloc(*len)))
		return false;
	memcpy(*prog, p, *len);
	return true;
}

/* Compiles -R t (parsed) for the event's format, unless the check did. */
static int hist_compile(struct utrace_recorder *r, unsigned spec, unsigned trig,
			const struct utrace_trigger *t, const struct utrace_event_format *fmt,
			const struct hist_env_arg *env, void **prog, uint32_t *len, bool *paused,
			char **table, struct utrace_error *err)
{
	struct utrace_hist_scope sc;
	int code, ret;

	if (t->cmd != UTRACE_TRIG_HIST || t->remove)
		ret = err->code = 0; /* another command: recorder_trig.c's */
	else if (hist_kept(r, spec, trig, fmt, env, prog, len))
		ret = 0; /* the check was the compile */
	else
		ret = utrace_trigger_compile(t, fmt, env ? hist_env(env, &sc) : NULL, prog, len,
					     &code, err);
	*paused = t->hist && t->hist->pause;
	if (ret >= 0 && t->hist && t->hist->name && !(*table = strdup(t->hist->name)))
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
	return ret;
}

/* The table of trigger trig of spec for fmt's event, whatever the format
 * it was made for; NULL if none yet. */
static struct rec_hist *hist_find(struct utrace_recorder *r, unsigned spec, unsigned trig,
				  const struct utrace_event_format *fmt)
{
	struct rec_hist *h;

	for (h = r->hist->hists; h; h = h->next)
		if (h->spec == spec && h->trig == trig && !strcmp(h->system, fmt->system) &&
		    !strcmp(h->name, fmt->name))
			break;
	return h;
}

/* What hist_compile made: the program, its name= and its :pause. */
struct hist_made {
	void *prog;
	uint32_t len;
	bool paused;
	char *table;
};

/* Table h of the event, for another format fmt of it: the same program
 * adds fmt to h's, another one gets no table (NULL, err). */
static struct rec_hist *hist_other_fmt(struct rec_hist *h, const struct utrace_event_format *fmt,
				       const char *text, const struct hist_made *m,
				       struct utrace_error *err)
{
	if (h->prog_len != m->len || memcmp(h->prog, m->prog, m->len)) {
		utrace_error_set(err, -EINVAL, "%s:%s: another layout of the event than "
					       "the first one's: '%s' left off here",
				 fmt->system, fmt->name, text);
		return NULL;
	}
	if (rec_hist_note_fmt(h, fmt) < 0) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	return h;
}

/* New h's table: its name='s if an earlier trigger made it, else one of
 * its own with the next id. */
static int hist_table(struct utrace_recorder *r, struct rec_hist *h, struct utrace_error *err)
{
	int ret;

	if (h->table && (ret = rec_hist_share(r, h, err)) < 0)
		return ret;
	if (!h->owner && (ret = rec_hist_map_new(h, err)) < 0)
		return ret;
	if (!h->owner && r->hist->hist_tids + 1 >= UTRACE_HIST_TABLES_MAX)
		return utrace_error_set(err, -E2BIG, "too many hist tables (%u)",
					UTRACE_HIST_TABLES_MAX);
	h->tid = h->owner ? h->owner->tid : ++r->hist->hist_tids;
	return 0;
}

/* A new table for trigger trig of spec, with m's program (which it keeps)
 * compiled for fmt; added last, in the order of the triggers, in which
 * they are saved.  NULL (err) frees what m holds. */
static struct rec_hist *hist_new(struct utrace_recorder *r, unsigned spec, unsigned trig,
				 const char *text, const struct utrace_event_format *fmt,
				 struct hist_made *m, struct utrace_error *err)
{
	struct rec_hist *h = calloc(1, sizeof(*h)), **tail;

	if (!h) {
		free(m->prog);
		free(m->table);
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	/* what the failure path's rec_hist_free_one() reads is set first */
	h->fd = -1;
	h->kid = -1;
	h->prog = m->prog;
	h->prog_len = m->len;
	h->table = m->table;
	m->table = NULL;
	h->spec = spec;
	h->trig = trig;
	h->text = text;
	if (!(h->system = strdup(fmt->system)) || !(h->name = strdup(fmt->name)) ||
	    rec_hist_note_fmt(h, fmt) < 0) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (hist_table(r, h, err) < 0)
		goto fail;
	if (m->paused) /* :pause; a user event's enable_hist may continue it */
		rec_hist_pause(r, h);
	for (tail = &r->hist->hists; *tail; tail = &(*tail)->next)
		;
	*tail = h;
	return h;
fail: /* also unmaps a table made before E2BIG */
	rec_hist_free_one(h);
	return NULL;
}

static struct rec_hist *hist_get(struct utrace_recorder *r, unsigned spec, unsigned trig,
				 const char *text, const struct utrace_trigger *t,
				 const struct utrace_event_format *fmt,
				 const struct hist_env_arg *env, struct utrace_error *err)
{
	struct hist_made m = {0};
	struct rec_hist *h;

	if (!t) {
		utrace_error_set(err, -EINVAL, "-R '%s': not parsed", text);
		return NULL;
	}
	h = hist_find(r, spec, trig, fmt);
	if (h && rec_hist_compiled_for(h, fmt))
		return h; /* compiled once per format: every object of it */
	if (hist_compile(r, spec, trig, t, fmt, env, &m.prog, &m.len, &m.paused, &m.table,
			 err) < 0 || !m.prog) {
		free(m.table);
		return NULL; /* err->code 0: not a hist trigger */
	}
	if (!h)
		return hist_new(r, spec, trig, text, fmt, &m, err);
	h = hist_other_fmt(h, fmt, text, &m, err);
	free(m.prog);
	free(m.table);
	return h;
}

/* ---- kernel events (recorder_khist.c, recorder_kmerge.c), the sending
 * (recorder_hist_send.c) ------------------------------------------- */

struct rec_hist *rec_hist_get(struct utrace_recorder *r, unsigned spec, unsigned k,
			      const char *text, const struct utrace_trigger *t,
			      const struct utrace_event_format *fmt, bool env_kernel,
			      const char *path, struct utrace_error *err)
{
	struct hist_env_arg env = {r, path, 0, env_kernel,
				   spec & REC_HIST_LIVE ? rec_live_reader_of(r, spec) : 0};

	return hist_get(r, spec, k, text, t, fmt, &env, err);
}

