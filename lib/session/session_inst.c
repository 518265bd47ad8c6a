/* SPDX-License-Identifier: MIT */
/*
 * session_inst.c - the live tracefs' instances (instances/NAME,
 * lib/tracefs/live_inst.c) over this recording: each one a selection of
 * the same records, not a buffer of its own.
 *
 * The kernel gives each instance its own ring buffer, and its tracepoints
 * write a record once into each instance that has the event on.  Here a
 * record is written by the traced thread itself into its one per-thread
 * buffer (runtime/ring_buffer.c): a second set of buffers would double
 * what every thread maps and what every enabled event costs it, and a
 * record would have to be written once per instance.  So the processes
 * keep one configuration, the union of the readers' (an event is on while
 * the top level or an instance has it on; tracing is on while one of them
 * has it on; the tracer is the widest one asked, with the function
 * filter of the one reader that has a tracer, or every function for
 * several), which the producer's fast path reads as before, at the same
 * cost; and each reader keeps the times (windows) at which it had what:
 *
 *   - an instance: its tracing_on, its tracer, each event it had on, its
 *     trace_marker writes; its trace and trace_pipe show the records of
 *     its events, its function calls (of its own set_ftrace_filter) and
 *     its marker's, inside its own tracing_on windows, after its own
 *     clear and what its own trace_pipe consumed, an event's records
 *     those its own filter keeps (run here, on the record);
 *   - each reader's thread-id lists (set_event_pid, set_event_notrace_pid,
 *     set_ftrace_pid, set_ftrace_notrace_pid, with its event-fork and
 *     function-fork): the processes run their union, each reader leaves
 *     out the records its own lists did not want (session_inst_pids.c);
 *   - the top level: while no instance was ever made, everything as
 *     before (no selection); after, the windows in which an instance kept
 *     on what the top level had off (its masks), whose records the top
 *     level does not show, its function calls of its own filter, and no
 *     instance's marker writes.
 *
 * An instance's own triggers (traceon, traceoff, stacktrace,
 * enable_event, disable_event, in its events' trigger files and its
 * set_ftrace_filter) run where the top level's do, in the traced thread,
 * each marked with its reader; they act on the instance's state, which
 * the runtime keeps on the control page beside the processes' words, and
 * what a firing changed moves the instance's windows to its time before
 * any of its files is next read or written (session_inst_trig.c); a
 * stacktrace's record says whose it is, as do its hist triggers' tables
 * and its snapshots (session_inst_trig.c).
 *
 * What an instance shares with the top level, as the processes have one
 * copy: the buffers (buffer_size_kb, records lost to a full one), the
 * trace clock's source, the snapshots (each of all the buffers, shown
 * through the selection of the reader that took it:
 * session_inst_snap.c), and the event filters the
 * processes run (the top level's: an instance's own filter chooses among
 * the records they keep).  The selection state is changed and read under
 * the tracefs's lock (every file's callback holds it); the recorder,
 * under rl->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter_prog.h"
#include "lib/base/grow.h"
#include "lib/events/event_filter.h"
#include "lib/events/ftrace_filter.h"
#include "lib/session/session_live_internal.h"

/* The top level's events/.../enable, set_event: the processes' (as
 * without instances) but for what an instance keeps on for itself. */
static int top_event_enable(struct session_live *rl, const char *sys, const char *name, int set)
{
	struct session_sel_ev *e = session_sel_ev_find(&rl->top, sys, name);
	int cur;

	if (set < 0) {
		cur = session_rec_event(rl, sys, name, -1);
		return cur <= 0 ? cur : !(e && session_wins_open(&e->w));
	}
	if (set) {
		if (e)
			session_wins_end(&e->w);
		return session_rec_event(rl, sys, name, 1);
	}
	if (session_insts_have_event(rl, NULL, sys, name)) {
		if (!(e = session_sel_ev_get(&rl->top, sys, name)) || session_wins_start(&e->w) < 0)
			return -ENOMEM;
		return 0;
	}
	if (e)
		session_wins_end(&e->w);
	return session_rec_event(rl, sys, name, 0);
}

static int inst_event_enable(struct session_sel *s, const char *sys, const char *name, int set)
{
	struct session_live *rl = s->rl;
	struct session_sel_ev *e, *t;
	int cur = session_rec_event(rl, sys, name, -1);

	if (cur < 0)
		return cur;
	e = session_sel_ev_find(s, sys, name);
	if (set < 0)
		return e && session_wins_open(&e->w);
	if (set) {
		if (!(e = session_sel_ev_get(s, sys, name)) || session_wins_start(&e->w) < 0)
			return -ENOMEM;
		utrace_recorder_reader_event(rl->r, s->reader, e->id, true); /* its triggers' */
		if (cur) /* the top level's, or another instance's */
			return 1;
		/* on in the processes for this instance: not the top level's */
		if (!(t = session_sel_ev_get(&rl->top, sys, name)) || session_wins_start(&t->w) < 0)
			return -ENOMEM;
		cur = session_rec_event(rl, sys, name, 1);
		return cur < 0 ? cur : 1;
	}
	if (e)
		utrace_recorder_reader_event(rl->r, s->reader, e->id, false);
	if (!e || !session_wins_open(&e->w))
		return 0;
	session_wins_end(&e->w);
	t = session_sel_ev_find(&rl->top, sys, name);
	if (session_insts_have_event(rl, s, sys, name) || !t || !session_wins_open(&t->w))
		return 0;
	session_wins_end(&t->w);
	cur = session_rec_event(rl, sys, name, 0);
	return cur < 0 ? cur : 0;
}

int session_sel_event_enable(void *arg, const char *system, const char *name, int set)
{
	struct session_sel *s = arg;

	session_inst_sync(s->rl);
	if (!s->top)
		return inst_event_enable(s, system, name, set);
	if (!s->rl->sel_used)
		return session_rec_event(s->rl, system, name, set);
	return top_event_enable(s->rl, system, name, set);
}

/* tracing_on: the processes write while one reader has it on; the top
 * level's masks are the windows in which it had it off meanwhile. */
uint32_t session_sel_tracing_on(void *arg, int set)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	struct utrace_recorder *r = rl->r;

	if (s->top && set >= 0) /* as its triggers read it */
		utrace_recorder_reader_on(r, 0, set);
	if (s->top && !rl->sel_used)
		return utrace_recorder_tracing_on(r, set);
	session_inst_sync(rl);
	if (!s->top && s->reader && set >= 0)
		utrace_recorder_reader_on(r, s->reader, set);
	if (s->top) {
		if (set > 0)
			session_wins_end(&s->on);
		if (set > 0 || (!set && !session_insts_on(rl, NULL)))
			return utrace_recorder_tracing_on(r, set);
		if (!set && session_wins_start(&s->on) < 0)
			return utrace_recorder_tracing_on(r, 0);
		return utrace_recorder_tracing_on(r, -1) && !session_wins_open(&s->on);
	}
	if (set < 0)
		return session_wins_open(&s->on);
	if (set) {
		if (session_wins_start(&s->on) < 0)
			return 0;
		if (!utrace_recorder_tracing_on(r, -1)) {
			session_wins_start(&rl->top.on);
			utrace_recorder_tracing_on(r, 1);
		}
		return 1;
	}
	session_wins_end(&s->on);
	if (!session_insts_on(rl, s) && session_wins_open(&rl->top.on)) {
		session_wins_end(&rl->top.on);
		utrace_recorder_tracing_on(r, 0);
	}
	return 0;
}

/* The processes' tracer: the widest one a reader asks (function_graph
 * records what function shows too), its filter the one reader's, or
 * every function for several (each keeps its own at read time). */
static int sel_apply(struct session_live *rl, struct utrace_error *err)
{
	enum utrace_tracer t = UTRACE_TRACER_NOP;
	const struct utrace_func_filter *f = NULL;
	uint32_t depth = 0;
	unsigned users = 0;
	bool all = false, unlimited = false;
	int ret;

	for (size_t i = 0; i <= rl->ninsts; i++) {
		const struct session_sel *s = i ? rl->insts[i - 1] : &rl->top;

		if (s->tracer == UTRACE_TRACER_NOP)
			continue;
		users++;
		all |= !s->filter;
		f = s->filter;
		if (t != UTRACE_TRACER_FUNCTION_GRAPH)
			t = s->tracer;
		unlimited |= !s->depth;
		depth = s->depth > depth ? s->depth : depth;
	}
	live_lock(rl);
	ret = utrace_recorder_live_set(rl->r, t, users > 1 || all ? NULL : f, unlimited ? 0 : depth,
				       err);
	pthread_mutex_unlock(&rl->lock);
	if (ret < 0)
		return ret;
	if (t != UTRACE_TRACER_NOP && rl->top.tracer == UTRACE_TRACER_NOP)
		ret = session_wins_start(&rl->top.fn);
	else
		session_wins_end(&rl->top.fn);
	for (size_t i = 0; i < rl->ninsts && ret >= 0; i++) {
		if (rl->insts[i]->tracer != UTRACE_TRACER_NOP)
			ret = session_wins_start(&rl->insts[i]->fn);
		else
			session_wins_end(&rl->insts[i]->fn);
	}
	return ret < 0 ? utrace_error_set(err, ret, "out of memory") : 0;
}

int session_sel_set_tracer(void *arg, enum utrace_tracer tracer,
			   const struct utrace_func_filter *filter, uint32_t max_depth,
			   struct utrace_error *err)
{
	struct session_sel *s = arg, old = *s;
	struct session_live *rl = s->rl;
	int ret;

	s->tracer = tracer;
	s->filter = filter;
	s->depth = max_depth;
	if (s->top && !rl->sel_used) {
		live_lock(rl);
		ret = utrace_recorder_live_set(rl->r, tracer, filter, max_depth, err);
		pthread_mutex_unlock(&rl->lock);
	} else {
		ret = sel_apply(rl, err);
	}
	if (ret < 0) {
		s->tracer = old.tracer;
		s->filter = old.filter;
		s->depth = old.depth;
	}
	return ret;
}

static bool is_call(const struct utrace_event *ev)
{
	return ev->kind == UTRACE_EV_ENTRY || ev->kind == UTRACE_EV_EXIT ||
	       ev->kind == UTRACE_EV_LEAF || ev->kind == UTRACE_EV_FUNC;
}

/* A call of func is one s's own function filter selects. */
static bool func_ok(const struct session_sel *s, const char *func)
{
	return !s->filter || !func ||
	       (utrace_func_filter_select(s->filter, func, func, NULL) & UTRACE_SITE_TRACE);
}

static const struct session_sel_ev *ev_by_id(const struct session_sel *s, uint32_t id)
{
	for (size_t i = 0; i < s->nevs; i++)
		if (s->evs[i].id >= 0 && (uint32_t)s->evs[i].id == id)
			return &s->evs[i];
	return NULL;
}

/* The readers whose stacktrace triggers wrote stack record ev (bit r of
 * reader r, session_inst_trig.c), 0: the top level's alone. */
static unsigned stack_readers(const struct utrace_event *ev)
{
	return ev->flags >> UTRACE_EVF_STACK_READERS_SHIFT & 0xff;
}

/* The top level's records: all but those of its masks, of the
 * instances' marker writes and of their stacktraces. */
static int top_keep(const struct session_sel *s, const struct utrace_event *ev, const char *func)
{
	const struct session_sel_ev *e;

	if (session_wins_has(&s->on, ev->ts))
		return 0;
	if (is_call(ev))
		return !session_wins_has(&s->fn, ev->ts) && func_ok(s, func) &&
		       session_sel_pids_keep(s, ev, true);
	if (ev->kind == UTRACE_EV_EVENT)
		return (!(e = ev_by_id(s, ev->id)) || !session_wins_has(&e->w, ev->ts)) &&
		       session_sel_pids_keep(s, ev, false);
	if (ev->kind == UTRACE_EV_STACK && stack_readers(ev))
		return stack_readers(ev) & 1; /* an instance's stacktrace, the top level's too? */
	if (ev->kind == UTRACE_EV_PRINT)
		for (size_t i = 0; i < s->rl->ninsts; i++)
			if (session_wins_has(&s->rl->insts[i]->marks, ev->ts))
				return 0;
	return 1;
}

/* Whether e's filter (of an instance) keeps event record ev: run on the
 * record as the processes have it, the common fields first (common_type,
 * common_flags, common_preempt_count, common_pid), the data after. */
static bool filter_keeps(struct session_sel *s, const struct session_sel_ev *e,
			 const struct utrace_event *ev)
{
	uint16_t type = (uint16_t)ev->id;
	int32_t pid = ev->tid;

	if (!e->prog)
		return true;
	if (UTRACE_GROW(s->rec, s->cap_rec, (size_t)ev->data_len + 8) < 0)
		return true;
	memcpy(s->rec, &type, 2);
	s->rec[2] = ev->has_ctx ? ev->ctx_flags : 0;
	s->rec[3] = ev->has_ctx ? ev->ctx_preempt : 0;
	memcpy(s->rec + 4, &pid, 4);
	if (ev->data_len)
		memcpy(s->rec + 8, ev->data, ev->data_len);
	return utrace_filter_run(e->prog, e->prog_len, s->rec, ev->data_len + 8);
}

int session_sel_keep(void *arg, const struct utrace_event *ev, const char *func)
{
	struct session_sel *s = arg;
	const struct session_sel_ev *e;

	if (ev->cpu < 64 && s->cpus && session_wins_has(&s->cpus[ev->cpu], ev->ts))
		return 0; /* its tracing_cpumask left that CPU out then */
	if (s->top)
		return top_keep(s, ev, func);
	if (!session_wins_has(&s->on, ev->ts))
		return 0;
	if (is_call(ev))
		return session_wins_has(&s->fn, ev->ts) && func_ok(s, func) &&
		       session_sel_pids_keep(s, ev, true);
	if (ev->kind == UTRACE_EV_EVENT)
		return (e = ev_by_id(s, ev->id)) && session_wins_has(&e->w, ev->ts) &&
		       session_sel_pids_keep(s, ev, false) && filter_keeps(s, e, ev);
	if (ev->kind == UTRACE_EV_PRINT)
		return session_wins_has(&s->marks, ev->ts);
	if (ev->kind == UTRACE_EV_STACK) /* its own stacktrace trigger's */
		return s->reader && stack_readers(ev) >> s->reader & 1;
	return 0;
}

int session_sel_print_trace(void *arg, FILE *out, const char *tracer, uint32_t options,
			    uint64_t since_ns, int cpu, uint64_t *last_ns, struct utrace_error *err)
{
	struct session_sel *s = arg;

	if (s->top && !s->rl->sel_used)
		return session_live_print_trace(arg, out, tracer, options, since_ns, cpu, last_ns,
						err);
	session_inst_sync(s->rl);
	return session_live_print_sel(s->rl, session_sel_keep, s, out, tracer, options, since_ns,
				      cpu, last_ns, err);
}

/* tracing_cpumask: the processes write nothing on a CPU only while every
 * reader has it out; each reader keeps, by CPU, the times it had it out,
 * whose records it does not show (session_sel_keep). */
void session_sel_cpu_off(void *arg, uint64_t off)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	uint64_t all = off;

	s->cpu_off = off;
	if (s->top && !rl->sel_used) {
		utrace_recorder_live_cpu_off(rl->r, off);
		return;
	}
	if (!s->cpus && !(s->cpus = calloc(64, sizeof(*s->cpus))))
		return;
	for (unsigned c = 0; c < 64; c++)
		if (off >> c & 1)
			session_wins_start(&s->cpus[c]);
		else
			session_wins_end(&s->cpus[c]);
	all &= rl->top.cpu_off;
	for (size_t i = 0; i < rl->ninsts; i++)
		all &= rl->insts[i]->cpu_off;
	utrace_recorder_live_cpu_off(rl->r, all);
}

/* An instance's trace_marker: the top level's write, its time kept. */
static int inst_marker(void *arg, int32_t pid, const char *text, size_t len,
		       struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int ret;

	if (session_wins_start(&s->marks) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = rl->ops.marker(s, pid, text, len, err); /* the top level's, as s's */
	session_wins_end(&s->marks);
	return ret;
}

/* An instance's event filter: the records of its events it shows (the
 * processes write what the top level's filter keeps). */
static int inst_event_filter(void *arg, const char *system, const char *name, const char *filter,
			     struct utrace_error *err)
{
	struct session_sel *s = arg;
	const struct utrace_event_format *fmt = utrace_live_format(s->rl->fs, system, name);
	struct session_sel_ev *e;
	uint32_t len = 0;
	void *prog = NULL;
	int code = 0;

	if (!fmt)
		return utrace_error_set(err, -ENOENT, "%s/%s: no such event", system, name);
	/* FIELD.function by the symbols utrace.kallsyms lists, as the
	 * top level's file checked it */
	if (filter && utrace_filter_compile_func(fmt, filter, utrace_live_func_range, s->rl->fs,
						 &prog, &len, &code, err) < 0)
		return err->code;
	if (!(e = session_sel_ev_get(s, system, name))) {
		free(prog);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	free(e->prog);
	e->prog = prog;
	e->prog_len = len;
	return 0;
}

/* The ops of an instance: the top level's, but for its own selection and
 * without what only the top level has (lib/tracefs leaves out its files). */
static void inst_ops(struct session_sel *s, struct utrace_live_ops *ops)
{
	*ops = s->rl->ops;
	ops->arg = s;
	ops->marker = inst_marker;
	ops->event_filter = inst_event_filter;
	ops->synth_add = NULL;
	ops->dynev_enable = NULL;
	ops->dynev_initial = NULL;
	ops->dump_on_crash = NULL;
	ops->instance_new = NULL;
	ops->instance_free = NULL;
	session_inst_trig_ops(s, ops); /* its own triggers */
}

int session_inst_new(void *arg, const char *name, struct utrace_live_ops *ops,
		     struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	struct session_sel *s;
	bool first = !rl->sel_used;

	if (UTRACE_GROW(rl->insts, rl->cap_insts, rl->ninsts + 1) < 0 ||
	    !(s = calloc(1, sizeof(*s))))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	s->rl = rl;
	session_inst_reader_take(rl, s);
	rl->insts[rl->ninsts++] = s;
	rl->sel_used = true;
	inst_ops(s, ops);
	/* its own pid lists (none: every thread), the top level's from now */
	session_pids_readers(rl, first);
	/* the CPUs the top level left out: its own from now on */
	if (rl->top.cpu_off)
		session_sel_cpu_off(&rl->top, rl->top.cpu_off);
	/* as the kernel's: tracing on, nop, no event */
	session_sel_tracing_on(s, 1);
	return 0;
}

void session_sel_free(struct session_sel *s)
{
	for (size_t i = 0; i < s->nevs; i++) {
		free(s->evs[i].sys);
		free(s->evs[i].name);
		free(s->evs[i].w.t);
		free(s->evs[i].prog);
	}
	free(s->rec);
	free(s->snaps);
	for (unsigned c = 0; s->cpus && c < 64; c++)
		free(s->cpus[c].t);
	free(s->cpus);
	free(s->evs);
	free(s->on.t);
	free(s->fn.t);
	free(s->marks.t);
	session_sel_pids_free(s);
}

/* rmdir: what only it kept on in the processes goes off. */
void session_inst_free(void *arg, void *inst)
{
	struct session_live *rl = live_rl(arg);
	struct session_sel *s = inst;
	struct utrace_error err = {0};
	size_t i;

	session_inst_reader_drop(rl, s);
	for (i = 0; i < s->nevs; i++)
		inst_event_enable(s, s->evs[i].sys, s->evs[i].name, 0);
	session_sel_tracing_on(s, 0);
	for (i = 0; i < rl->ninsts && rl->insts[i] != s; i++)
		;
	if (i < rl->ninsts)
		memmove(&rl->insts[i], &rl->insts[i + 1],
			(rl->ninsts - i - 1) * sizeof(*rl->insts));
	rl->ninsts -= i < rl->ninsts;
	session_pids_readers(rl, false); /* its lists go */
	if (s->tracer != UTRACE_TRACER_NOP) {
		s->tracer = UTRACE_TRACER_NOP;
		sel_apply(rl, &err);
	}
	if (s->cpu_off)
		session_sel_cpu_off(&rl->top, rl->top.cpu_off);
	session_sel_free(s);
	free(s);
}
