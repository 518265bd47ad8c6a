/* SPDX-License-Identifier: MIT */
/*
 * report_filter.c - selects the events a report shows.
 *
 * Design: the thread selection (tid, pid, comm) is decided once per
 * buffer when a pass begins, since a buffer is one thread; CPU and time
 * are properties of each event.  Function filters and depth need the
 * shape of each thread's calls, so the filter follows every selected
 * thread's stack of entries as the events stream by, keeping for each
 * open entry its depth and whether it was shown:
 *
 *   - an entry of a matching function starts a subtree (its depth is
 *     remembered); events below it are shown with depth - that depth; its
 *     return, or any event at or above its depth, ends the subtree;
 *   - a return whose entry was seen but not shown (another CPU, before
 *     the time range) is marked UTRACE_EVF_NO_ENTRY, so a printer names
 *     the function ("} / * func * /") or times the call from its return.
 *
 * Memory: per thread, one record per open call; per function, one byte
 * (the cached match).  Function names are matched once per function
 * (lib/report/func_table.c numbers them), not once per event.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/func_table.h"
#include "lib/base/glob.h"
#include "lib/base/grow.h"
#include "lib/report/report_filter.h"
#include "lib/report/report_filter_internal.h"
#include "lib/report/report_fold.h"
#include "lib/report/stack_index.h"

int utrace_report_filter_new(struct utrace_report_filter **out, struct utrace_error *err)
{
	struct utrace_report_filter *f = calloc(1, sizeof(*f));

	*out = f;
	if (!f)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	f->max_depth = NONE;
	return 0;
}

static void end_pass(struct utrace_report_filter *f)
{
	for (unsigned i = 0; f->th && i < f->nr_th; i++)
		free(f->th[i].stack);
	free(f->th);
	stack_index_free(&f->stacks);
	free(f->threads);
	free(f->fmatch);
	utrace_func_table_free(f->ft);
	f->th = NULL;
	f->threads = NULL;
	f->fmatch = NULL;
	f->fmatch_cap = 0;
	f->ft = NULL;
	f->nr_threads = f->nr_th = 0;
}

void utrace_report_filter_free(struct utrace_report_filter *f)
{
	if (!f)
		return;
	end_pass(f);
	report_fold_free(&f->fold);
	for (size_t i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	for (size_t i = 0; i < f->nr_funcs; i++)
		free(f->funcs[i]);
	free(f->comms);
	free(f->funcs);
	free(f->cpus);
	free(f->tids);
	free(f->pids);
	free(f);
}

bool utrace_report_filter_active(const struct utrace_report_filter *f)
{
	return f && f->active;
}

static bool thread_selected(const struct utrace_report_filter *f,
			    const struct utrace_dat_buffer_info *bi)
{
	bool ok;
	size_t i;

	if (f->nr_tids) {
		for (i = 0, ok = false; i < f->nr_tids && !ok; i++)
			ok = f->tids[i] == bi->tid;
		if (!ok)
			return false;
	}
	if (f->nr_pids) {
		for (i = 0, ok = false; i < f->nr_pids && !ok; i++)
			ok = f->pids[i] == bi->pid;
		if (!ok)
			return false;
	}
	if (f->nr_comms) {
		for (i = 0, ok = false; i < f->nr_comms && !ok; i++)
			ok = utrace_glob_match(f->comms[i], bi->comm);
		if (!ok)
			return false;
	}
	return true;
}

/* A --cpu the trace does not have selects nothing: say which it has.
 * Only a recorder's count bounds the ids (the machine's configured CPUs);
 * without it (older files, fixtures) a thread's records may name CPUs no
 * sub-buffer header does, so nothing is refused. */
static int check_cpus(const struct utrace_report_filter *f, struct utrace_dat *d,
		      struct utrace_error *err)
{
	unsigned n = utrace_dat_nr_cpus(d);

	if (!utrace_dat_meta(d, "nr_cpus"))
		return 0;

	for (size_t i = 0; i < f->nr_cpus; i++)
		if (f->cpus[i].lo >= n)
			return utrace_error_set(err, -EINVAL,
						"--cpu %u: the trace has CPU%s 0%s%.0u",
						f->cpus[i].lo, n > 1 ? "s" : "", n > 1 ? " to " : "",
						n > 1 ? n - 1 : 0);
	return 0;
}

int utrace_report_filter_begin(struct utrace_report_filter *f, struct utrace_dat *d,
			       struct utrace_error *err)
{
	unsigned n = utrace_dat_buffer_count(d);

	if (!f)
		return 0;
	if (check_cpus(f, d, err) < 0)
		return -EINVAL;
	end_pass(f);
	f->d = d;
	f->have_origin = 0;
	f->kept = f->last_end = 0;
	report_fold_reset(&f->fold, f->max_depth == NONE ? 0 : f->max_depth);
	f->threads = calloc(n ? n : 1, sizeof(*f->threads));
	f->th = calloc(n ? n : 1, sizeof(*f->th));
	if (!f->threads || !f->th)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(d));
	f->nr_threads = f->nr_th = n;
	for (unsigned i = 0; i < n; i++) {
		f->threads[i] = thread_selected(f, utrace_dat_buffer_get(d, i));
		f->th[i].match = NONE;
	}
	if (f->nr_funcs || f->keep)
		return utrace_func_table_new(d, &f->ft, err);
	return 0;
}

void utrace_report_filter_set_keep(struct utrace_report_filter *f, utrace_report_keep_fn keep,
				   void *arg)
{
	f->keep = keep;
	f->keep_arg = arg;
	f->active |= keep != NULL;
}

/* The caller's selection of ev (f->keep): 1 keep, 0 drop, <0 */
static int keep_event(struct utrace_report_filter *f, const struct utrace_event *ev,
		      struct utrace_error *err)
{
	const char *name = NULL;
	uint32_t fn;

	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_EXIT:
	case UTRACE_EV_LEAF:
	case UTRACE_EV_FUNC:
		if (!(ev->flags & UTRACE_EVF_NO_ID) && ev->id != UTRACE_DAT_NO_ID) {
			if (utrace_func_table_lookup(f->ft, ev->image, ev->id, &fn, err) < 0)
				return err->code;
			name = utrace_func_table_name(f->ft, fn);
		}
		break;
	case UTRACE_EV_LOST:
		return 1;
	default:
		break;
	}
	return f->keep(f->keep_arg, ev, name);
}

void utrace_report_filter_set_resume(struct utrace_report_filter *f, struct utrace_dat_resume *rs)
{
	f->resume = rs;
}

/* Bookmarks skip only what a time range from a fixed time drops: a
 * function or depth selection follows every call from the start. */
static bool resumable(const struct utrace_report_filter *f)
{
	return f->resume && f->from.set && !f->from.elapsed && !f->nr_funcs &&
	       f->max_depth == NONE;
}

int utrace_report_filter_iter_open(struct utrace_report_filter *f, struct utrace_dat *d,
				   struct utrace_dat_iter **it, struct utrace_error *err)
{
	int ret = utrace_report_filter_begin(f, d, err);

	if (ret >= 0)
		ret = utrace_dat_iter_open(d, it, err);
	if (ret >= 0 && f && resumable(f) &&
	    (ret = utrace_dat_iter_resume(*it, f->resume, f->from.ns, err)) < 0) {
		utrace_dat_iter_close(*it);
		*it = NULL;
	}
	return ret;
}

bool utrace_report_filter_thread(const struct utrace_report_filter *f, const struct utrace_dat *d,
				 unsigned buf)
{
	if (!f || !f->active)
		return true;
	return buf < utrace_dat_buffer_count(d) &&
	       thread_selected(f, utrace_dat_buffer_get(d, buf));
}

static bool cpu_selected(const struct utrace_report_filter *f, uint32_t cpu)
{
	if (!f->nr_cpus)
		return true;
	for (size_t i = 0; i < f->nr_cpus; i++)
		if (cpu >= f->cpus[i].lo && cpu <= f->cpus[i].hi)
			return true;
	return false;
}

static bool name_matches(const struct utrace_report_filter *f, const char *name)
{
	const char *paren = strchr(name, '(');

	for (size_t i = 0; i < f->nr_funcs; i++) {
		if (utrace_glob_match(f->funcs[i], name))
			return true;
		/* C++: "ns::f(int)" also matches "ns::f" */
		if (paren && paren > name &&
		    utrace_glob_match_n(f->funcs[i], name, (size_t)(paren - name)))
			return true;
	}
	return false;
}

/* 1 if the event's function matches -F, 0 if not, <0 */
static int func_matches(struct utrace_report_filter *f, const struct utrace_event *ev,
			struct utrace_error *err)
{
	uint32_t fn;
	int ret;

	if ((ev->flags & UTRACE_EVF_NO_ID) || ev->id == UTRACE_DAT_NO_ID)
		return 0;
	ret = utrace_func_table_lookup(f->ft, ev->image, ev->id, &fn, err);
	if (ret < 0)
		return ret;
	if (UTRACE_GROW_ZERO(f->fmatch, f->fmatch_cap, (size_t)fn + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (!f->fmatch[fn])
		f->fmatch[fn] = name_matches(f, utrace_func_table_name(f->ft, fn)) ? 2 : 1;
	return f->fmatch[fn] == 2;
}

static int push_call(struct fthread *t, uint32_t depth, uint32_t shown, struct utrace_error *err)
{
	if (UTRACE_GROW(t->stack, t->cap, (size_t)t->n + 1) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	t->stack[t->n++] = (struct open_call){depth, shown};
	return 0;
}

/* ENTRY, LEAF, EXIT of a selected thread: 1 keep, 0 drop, <0 */
static int graph_event(struct utrace_report_filter *f, struct fthread *t, struct utrace_event *ev,
		       bool when, struct utrace_error *err)
{
	uint32_t d = ev->depth, base = 0;
	int seen = 0, shown = 0, in = 1, ret;

	if (ev->kind == UTRACE_EV_EXIT) {
		while (t->n && t->stack[t->n - 1].depth > d)
			t->n--;
		if (t->n && t->stack[t->n - 1].depth == d) {
			seen = 1;
			shown = (int)t->stack[--t->n].shown;
		}
	} else {
		while (t->n && t->stack[t->n - 1].depth >= d)
			t->n--;
	}

	if (f->nr_funcs) {
		if (t->match != NONE && d < t->match)
			t->match = NONE; /* its return was lost */
		if (t->match != NONE && ev->kind != UTRACE_EV_EXIT && d == t->match)
			t->match = NONE;
		if (t->match != NONE) {
			base = t->match;
			if (ev->kind == UTRACE_EV_EXIT && d == t->match)
				t->match = NONE;
		} else {
			ret = func_matches(f, ev, err);
			if (ret < 0)
				return ret;
			in = ret;
			base = d;
			if (in && ev->kind == UTRACE_EV_ENTRY)
				t->match = d;
		}
	}
	ret = in && when && d - base < f->max_depth;
	if (ev->kind == UTRACE_EV_ENTRY && push_call(t, d, (uint32_t)ret, err) < 0)
		return -ENOMEM;
	if (!ret)
		return 0;
	if (seen && !shown)
		ev->flags |= UTRACE_EVF_NO_ENTRY;
	ev->depth = d - base;
	return 1;
}

/* The open calls of ev's program stack (its thread's, or a coroutine's). */
static struct fthread *call_stack(struct utrace_report_filter *f, const struct utrace_event *ev)
{
	long i = stack_index(&f->stacks, (void **)&f->th, sizeof(*f->th), f->nr_threads, ev->buf,
			     ev->stack);

	if (i < 0)
		return NULL;
	if ((unsigned long)i >= f->nr_th) {
		f->th[i].match = NONE;
		f->nr_th = (unsigned)i + 1;
	}
	return &f->th[i];
}

/* A tracepoint, printf or stack event under -D: shown only where the call
 * it happened in is shown whole (a call at the limit is one line, so
 * nothing inside it shows), at the depth counted as the calls' is. */
static int event_in_depth(struct utrace_report_filter *f, struct utrace_event *ev,
			  struct utrace_error *err)
{
	struct fthread *t = call_stack(f, ev);
	uint32_t base;

	if (!t)
		return utrace_error_set(err, -ENOMEM, "%s: out of memory", utrace_dat_path(f->d));
	base = t->match != NONE && t->match <= ev->depth ? t->match : 0;
	if (ev->depth - base >= f->max_depth)
		return 0;
	ev->depth -= base;
	return 1;
}

int utrace_report_filter_event(struct utrace_report_filter *f, struct utrace_event *ev,
			       struct utrace_error *err)
{
	struct fthread *t;

	bool when;

	if (!f || !f->active)
		return 1;
	if (!f->have_origin) {
		f->have_origin = 1;
		f->lo = !f->from.set ? 0 : f->from.elapsed ? ev->ts + f->from.ns : f->from.ns;
		f->hi = !f->to.set ? UINT64_MAX : f->to.elapsed ? ev->ts + f->to.ns : f->to.ns;
	}
	if (ev->buf >= f->nr_threads || !f->threads[ev->buf])
		return 0;
	if (f->keep) {
		int k = keep_event(f, ev, err);

		if (k <= 0)
			return k;
	}
	/* a call folded into one line whose entry lies before the range and
	 * its return in it: its return, as for a call not folded (trace_pipe
	 * printed the entry, then the return came) */
	if (ev->kind == UTRACE_EV_LEAF && ev->ts < f->lo && ev->ts + ev->duration >= f->lo) {
		ev->kind = UTRACE_EV_EXIT;
		ev->ts += ev->duration;
		ev->flags |= UTRACE_EVF_NO_ENTRY;
	}
	when = ev->ts >= f->lo && ev->ts <= f->hi && cpu_selected(f, ev->cpu);
	switch (ev->kind) {
	case UTRACE_EV_ENTRY:
	case UTRACE_EV_LEAF:
	case UTRACE_EV_EXIT:
		if (!(t = call_stack(f, ev)))
			return utrace_error_set(err, -ENOMEM, "%s: out of memory",
						utrace_dat_path(f->d));
		return graph_event(f, t, ev, when, err);
	case UTRACE_EV_FUNC:
		if (!when)
			return 0;
		return f->nr_funcs ? func_matches(f, ev, err) : 1;
	case UTRACE_EV_EVENT:
	case UTRACE_EV_PRINT:
	case UTRACE_EV_STACK:
	case UTRACE_EV_SIGNAL:
		return when && f->max_depth != NONE ? event_in_depth(f, ev, err) : when;
	default:
		return when;
	}
}

struct pull_arg {
	struct utrace_report_filter *f;
	struct utrace_dat_iter *it;
};

/* The next event the selection keeps, before any folding. */
static int pull_selected(void *arg, struct utrace_event *ev, struct utrace_error *err)
{
	struct pull_arg *a = arg;
	int ret;

	while ((ret = utrace_dat_iter_next(a->it, ev, err)) > 0) {
		ret = utrace_report_filter_event(a->f, ev, err);
		if (ret != 0)
			return ret;
	}
	return ret;
}

/* An event handed out (ret > 0): counted, and the end of the last one
 * noted (a one-line call ends at its return). */
static inline int filter_kept(struct utrace_report_filter *f, const struct utrace_event *ev,
			      int ret)
{
	uint64_t end;

	if (ret <= 0 || !f || ev->kind == UTRACE_EV_LOST)
		return ret;
	f->kept++;
	end = ev->ts + (ev->kind == UTRACE_EV_LEAF ? ev->duration : 0);
	if (end > f->last_end)
		f->last_end = end;
	return ret;
}

int utrace_report_filter_next(struct utrace_report_filter *f, struct utrace_dat_iter *it,
			      struct utrace_event *ev, struct utrace_error *err)
{
	struct pull_arg a = {f, it};
	int ret;

	if (f && f->limit && f->kept >= f->limit)
		return 0;
	/* with a depth limit, a call at the limit is one line (report_fold.h) */
	if (f && f->active && f->max_depth != NONE)
		ret = report_fold_next(&f->fold, pull_selected, &a, ev, err);
	else
		ret = pull_selected(&a, ev, err);
	return filter_kept(f, ev, ret);
}

void utrace_report_filter_set_limit(struct utrace_report_filter *f, uint64_t n)
{
	f->limit = n;
}

uint64_t utrace_report_filter_last(const struct utrace_report_filter *f)
{
	return f->last_end;
}

/* utrace_report_filter_next, straight to the iterator when nothing is
 * selected and nothing limits the count (a report of every event: the
 * calls through the selection's layers were a twentieth of --profile) */
static inline int filter_next(struct utrace_report_filter *f, struct utrace_dat_iter *it,
			      struct utrace_event *ev, const struct utrace_event **out,
			      struct utrace_error *err)
{
	int ret;

	if (f && (f->active || f->limit)) {
		*out = ev;
		return utrace_report_filter_next(f, it, ev, err);
	}
	/* the event in place, not copied (utrace_dat_iter_next_ref) */
	ret = utrace_dat_iter_next_ref(it, out, err);
	return filter_kept(f, *out, ret);
}

int utrace_report_filter_next_ref(struct utrace_report_filter *f, struct utrace_dat_iter *it,
				  struct utrace_event *ev, const struct utrace_event **out,
				  struct utrace_error *err)
{
	return filter_next(f, it, ev, out, err);
}

int utrace_report_filter_run(struct utrace_report_filter *f, struct utrace_dat *d,
			     int (*fn)(void *arg, const struct utrace_event *ev,
				       struct utrace_error *err),
			     void *arg, struct utrace_pass_stats *st, struct utrace_error *err)
{
	struct utrace_dat_iter *it;
	struct utrace_event ev;
	const struct utrace_event *e;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = utrace_report_filter_iter_open(f, d, &it, err);
	if (ret < 0)
		return ret;
	while ((ret = filter_next(f, it, &ev, &e, err)) > 0) {
		if (e->kind != UTRACE_EV_LOST)
			st->events++;
		else if (e->flags & UTRACE_EVF_LOST_UNKNOWN)
			st->lost_unknown++;
		else
			st->lost += e->lost;
		ret = fn(arg, e, err);
		if (ret < 0)
			break;
	}
	st->damaged = utrace_dat_iter_warnings(it);
	st->unread = utrace_dat_iter_unread(it, &st->unread_unknown);
	st->own = utrace_dat_iter_own(it);
	if (st->damaged)
		snprintf(st->damaged_first, sizeof(st->damaged_first), "%s",
			 utrace_dat_iter_warning(it));
	utrace_dat_iter_close(it);
	return ret < 0 ? ret : 0;
}
