/* SPDX-License-Identifier: MIT */
/*
 * session_live.c - `utrace record --tracefs DIR`: the live tracefs
 * (lib/tracefs) over this recording.  lib/tracefs knows the files; what they
 * show and change is done here, with lib/record (the tracer and filter of
 * the running processes, tracing_on, the file written so far) and
 * lib/report (the trace file's text, as `utrace report` prints it).
 * What the files read of the file written so far (trace, trace_pipe,
 * utrace.dat, per_cpu/cpuN/stats) is session_live_read.c's; the state both
 * share, session_live_internal.h's.
 *
 * An --overwrite recording (utrace start) drains its rings at the end
 * only: what trace shows, and the mount's utrace.dat, is an extract
 * (lib/record/recorder_extract.c) at output.extract, made while the
 * recorder is held and unlinked once opened.
 *
 * The recorder is single-threaded; the FUSE threads reach it only
 * between two polls of session.c's loop: the loop holds lock while it
 * works and lets go of it after each poll, yielding to a FUSE thread that
 * waits (want), since a mutex just released is otherwise often taken back
 * by the same thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/kernel/kernel_trace.h"
#include "lib/session/session_dynev.h"
#include "lib/session/session_live.h"
#include "lib/session/session_live_internal.h"
#include "lib/tracefs/live.h"
#include "lib/hist/hist.h"
#include "lib/report/report_hist.h"
#include "lib/report/report_text.h"
#include "lib/tracefile/dat_reader.h"



static int live_set_option(void *arg, const char *name, uint32_t *options)
{
	struct utrace_report_opts o;
	struct utrace_error err = {0};

	utrace_report_opts_init(&o);
	o.flags = *options;
	if (utrace_report_set_option(&o, name, &err) < 0)
		return err.code;
	*options = o.flags;
	return 0;
}

/*
 * A write to the trace_marker of the top level or of an instance (its
 * reader: only its triggers of ftrace:print run; one without a reader
 * has none) by thread pid.  With kernel events, it is a record of the
 * kernel's timeline (recorder_kmarker.c): the kernel's pages so far are
 * read first, so that it comes after what the writer did before it, and
 * the writer is named as a task of those records.
 */
static int live_marker(void *arg, int32_t pid, const char *text, size_t len,
		       struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	unsigned reader = s->top ? 0 : s->reader ? s->reader : UTRACE_READERS;
	int ret = 0;

	live_lock(rl);
	if (rl->kt && (ret = session_live_merge(rl, err)) >= 0)
		utrace_ktrace_note_task(rl->kt, pid);
	if (ret >= 0)
		ret = utrace_recorder_live_marker(rl->r, reader, pid, text, len, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static void live_functions(void *arg, utrace_live_func_cb cb, void *cbarg)
{
	struct session_live *rl = live_rl(arg);

	live_lock(rl);
	utrace_recorder_live_functions(rl->r, cb, cbarg);
	pthread_mutex_unlock(&rl->lock);
}

static void live_symbols(void *arg, utrace_live_sym_cb cb, void *cbarg)
{
	struct session_live *rl = live_rl(arg);

	live_lock(rl);
	utrace_recorder_live_symbols(rl->r, cb, cbarg);
	pthread_mutex_unlock(&rl->lock);
}

static void live_objects(void *arg, void (*cb)(void *cbarg, const char *path), void *cbarg)
{
	struct session_live *rl = live_rl(arg);

	live_lock(rl);
	utrace_recorder_live_objects(rl->r, cb, cbarg);
	pthread_mutex_unlock(&rl->lock);
}

static int live_event_id(void *arg, const char *system, const char *name)
{
	struct session_live *rl = live_rl(arg);
	int id;

	live_lock(rl);
	/* a kernel event's (the kernel's id) before a program's of that name */
	if ((id = utrace_recorder_live_kid(rl->r, system, name)) < 0)
		id = session_dynev_event_id(rl, system, name);
	pthread_mutex_unlock(&rl->lock);
	return id;
}

/* The i-th kernel event shown: its format lives as long as the recorder
 * and does not change, so no lock is needed. */
static const struct utrace_event_format *live_kernel_event(void *arg, size_t i)
{
	struct session_live *rl = live_rl(arg);

	return utrace_recorder_live_kevent(rl->r, i);
}


static int live_event_filter(void *arg, const char *system, const char *name, const char *filter,
			     struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_filter(rl->r, system, name, filter, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/*
 * A kernel event's stacktrace (the recorder has taken the list): its
 * stack is the kernel's, a kernel_stack entry its own stacktrace trigger
 * writes after the event in the kernel instance, armed while one is
 * listed (with its filter: the kernel runs it; the :N is the
 * recorder's, on the entries saved) and removed when none is.
 */
static int live_kstack(struct session_live *rl, const char *system, const char *name,
		       struct utrace_trigger *const *trigs, unsigned n, struct utrace_error *err)
{
	const struct utrace_trigger *st = NULL;

	if (!rl->kt || utrace_recorder_live_kid(rl->r, system, name) < 0)
		return 0;
	for (unsigned i = 0; i < n && !st; i++)
		if (trigs[i]->cmd == UTRACE_TRIG_STACKTRACE)
			st = trigs[i];
	if (!st && !utrace_ktrace_stacks(rl->kt))
		return 0;
	return utrace_ktrace_stack_live(rl->kt, system, name, st ? st->filter : NULL, st != NULL,
					err);
}

static int live_event_triggers(void *arg, const char *system, const char *name,
			       const char *const *texts, struct utrace_trigger *const *trigs,
			       unsigned n, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_triggers(rl->r, 0, system, name, texts, trigs, n, err);
	if (ret >= 0)
		ret = live_kstack(rl, system, name, trigs, n, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

_Static_assert(UTRACE_LIVE_TRIG_CLEAR == 3, "the recorder's numbers of what trigger_ctl does");
_Static_assert(UTRACE_LIVE_PIDS_MAX == UTRACE_FT_PIDS && UTRACE_LIVE_PIDS_MAX == UTRACE_EV_PIDS,
	       "the pid lists of the tracefs and the control page");

static int live_trigger_ctl(void *arg, const char *system, const char *name, const char *text,
			    int what, long *count, bool *paused)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_trigger_ctl(rl->r, 0, system, name, text, what, count, paused);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static bool live_event_soft(void *arg, const char *system, const char *name)
{
	struct session_live *rl = live_rl(arg);
	bool soft;

	live_lock(rl);
	soft = utrace_recorder_live_soft(rl->r, 0, system, name);
	pthread_mutex_unlock(&rl->lock);
	return soft;
}

/* $var of a hist trigger of the top level or of an instance: its own
 * level's (one without a reader has none) */
static int live_hist_var(void *arg, const char *system, const char *name, const char *var,
			 const char *msys, const char *mev, struct utrace_hist_var_info *out)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int ret;

	if (!s->top && !s->reader)
		return UTRACE_HIST_ERR_VAR_NOT_FOUND;
	live_lock(rl);
	ret = utrace_recorder_live_hist_var(rl->r, s->reader, system, name, var, msys, mev, out);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static int live_hist_synth(void *arg, const char *synth, struct utrace_hist_synth_info *out)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_synth(rl->r, synth, out);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

struct live_hist_out {
	struct utrace_dat *d;
	FILE *out;
	unsigned n;
	struct utrace_error *err;
};

static int live_hist_one(void *arg, const char *text, const struct utrace_hist_table *t)
{
	struct live_hist_out *h = arg;

	if (h->n++) /* the kernel's hist_show: a blank line between */
		fputs("\n\n", h->out);
	return utrace_report_hist_table(h->d, h->out, text, t, h->err);
}

/* The tables of the reader's own hist triggers (the top level's, or an
 * instance's: session_inst_trig.c), read with the recorder held, the
 * names (comm, symbols) from the file written so far. */
int session_sel_print_hist(void *arg, FILE *out, const char *system, const char *name,
			   struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	struct live_hist_out h = {NULL, out, 0, err};
	int ret;

	if (!s->top && !s->reader) /* an instance without triggers: empty */
		return 0;
	if (session_live_open_dat(rl, &h.d, err) < 0)
		return err->code;
	live_lock(rl);
	ret = utrace_recorder_live_hists(rl->r, s->reader, system, name, live_hist_one, &h, err);
	pthread_mutex_unlock(&rl->lock);
	utrace_dat_close(h.d);
	return ret;
}



static int live_set_thresh(void *arg, uint64_t usecs, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_thresh(rl->r, usecs, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static unsigned live_nr_buffers(void *arg)
{
	struct session_live *rl = live_rl(arg);
	unsigned n;

	live_lock(rl);
	n = utrace_recorder_live_buffers(rl->r);
	pthread_mutex_unlock(&rl->lock);
	return n;
}

static long live_buffer_kb_set(void *arg, uint64_t kb)
{
	struct session_live *rl = live_rl(arg);
	int ret = kb ? utrace_recorder_live_buffer_kb(rl->r, kb) : 0;

	return ret < 0 ? ret : (long)utrace_recorder_live_buffer_kb_now(rl->r);
}

/* buffer_subbuf_size_kb: the control page's word, as buffer_size_kb's */
static long live_subbuf_size(void *arg, uint32_t size)
{
	struct session_live *rl = live_rl(arg);
	int ret = size ? utrace_recorder_live_subbuf_size(rl->r, size) : 0;

	return ret < 0 ? ret : (long)utrace_recorder_live_subbuf_size_now(rl->r);
}

/* options/dump-on-crash: the runtimes' handlers write their record, and
 * the session dumps the last calls (session_crash.c), while it is on */
static void live_dump_on_crash(void *arg, bool on)
{
	struct session_live *rl = live_rl(arg);

	live_lock(rl);
	utrace_recorder_live_dump_on_crash(rl->r, on);
	pthread_mutex_unlock(&rl->lock);
}

static int live_graph_retval(void *arg, bool on, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_graph_retval(rl->r, on, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/* the stack tracer's files (lib/tracefs/live_stack.c) */
static int live_stack_set(void *arg, bool on, const struct utrace_func_filter *filter,
			  struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_live_stack(rl->r, on, filter, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static uint64_t live_stack_max(void *arg, bool set, uint64_t size)
{
	return utrace_recorder_stack_max(live_rl(arg)->r, set, size); /* the control page's */
}

static int live_stack_trace(void *arg, void (*cb)(void *cbarg, uint32_t depth, const char *loc),
			    void *cbarg)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl); /* the processes' objects name the frames */
	ret = utrace_recorder_stack(rl->r, cb, cbarg);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/* the kernel's kprobes/list and kprobes-optimization (lib/tracefs/live_kprobes.c) */
struct live_kp {
	void (*cb)(void *cbarg, const struct utrace_live_kprobe *k);
	void *cbarg;
};

static void live_kp_line(void *arg, const struct utrace_kprobe_line *l)
{
	const struct live_kp *kp = arg;
	struct utrace_live_kprobe k = {l->addr,	     l->type,	   l->sym,	l->off,
				       l->module,    l->disabled, l->optimized, l->ftrace};

	kp->cb(kp->cbarg, &k);
}

static int live_kprobes_list(void *arg, void (*cb)(void *cbarg, const struct utrace_live_kprobe *k),
			     void *cbarg)
{
	struct session_live *rl = live_rl(arg);
	struct live_kp kp = {cb, cbarg};
	int ret;

	live_lock(rl); /* the processes' live channels and objects */
	ret = utrace_recorder_kprobes_list(rl->r, live_kp_line, &kp);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

static int live_kprobes_opt(void *arg, int set, struct utrace_error *err)
{
	struct session_live *rl = live_rl(arg);
	int ret;

	live_lock(rl);
	ret = utrace_recorder_kprobes_optimization(rl->r, set, err);
	pthread_mutex_unlock(&rl->lock);
	return ret;
}

/*
 * trace_clock: every record holds the TSC the runtime read (rdtsc,
 * runtime/rt.h rt_clock); the file's two calibration points make it
 * CLOCK_MONOTONIC.  So the clocks are the kernel's
 * "mono" (ktime_get_mono_fast_ns: CLOCK_MONOTONIC, printed as seconds)
 * and "x86-tsc" (the raw counter, printed as a count), and its "local"
 * (the default: sched_clock, per CPU) and "global" (the same, monotonic
 * across CPUs).  Here the TSC is one invariant counter for every CPU
 * (constant_tsc, nonstop_tsc: runtime/ring_buffer.c keeps each thread's
 * times monotonic), so local and global are that counter in nanoseconds
 * as mono is: the three print the same time stamps.
 */
/* trace: the wakeup tracers' is their latency trace; trace_pipe and
 * per_cpu show the records as they are */
static int live_print_trace(void *arg, FILE *out, const char *tracer, uint32_t options,
			    uint64_t since_ns, int cpu, uint64_t *last_ns, struct utrace_error *err)
{
	if (session_live_wakeup_tracer(tracer)) {
		if (!last_ns && cpu < 0)
			return session_live_wakeup_print(live_rl(arg), out, err);
		tracer = "nop";
	}
	return session_sel_print_trace(arg, out, tracer, options, since_ns, cpu, last_ns, err);
}

static int live_set_clock(void *arg, const char *name, uint32_t *options)
{
	if (!strcmp(name, "local") || !strcmp(name, "global") || !strcmp(name, "mono"))
		*options &= ~UTRACE_REPORT_CLOCK_TSC;
	else if (!strcmp(name, "x86-tsc"))
		*options |= UTRACE_REPORT_CLOCK_TSC;
	else
		return -EINVAL;
	return 0;
}

void session_live_kernel(struct session_live *rl, struct utrace_ktrace *kt)
{
	if (rl)
		rl->kt = kt;
}

struct session_live *session_live_start(struct utrace_recorder *r, const char *dir,
					const struct utrace_session_opts *o,
					struct utrace_error *err)
{
	struct session_live *rl = calloc(1, sizeof(*rl));
	struct utrace_live_ops ops = {
	    .set_tracer = session_sel_set_tracer,
	    .tracing_on = session_sel_tracing_on,
	    .print_trace = live_print_trace,
	    .print_profile = session_live_print_profile,
	    .functions = live_functions,
	    .symbols = live_symbols,
	    .marker = live_marker,
	    .set_option = live_set_option,
	    .option_names = utrace_report_option_names(),
	    .options = UTRACE_REPORT_DEFAULT_FLAGS,
	    .objects = live_objects,
	    .event_id = live_event_id,
	    .kernel_event = live_kernel_event,
	    .extract = session_live_extract,
	    .event_enable = session_sel_event_enable,
	    .event_filter = live_event_filter,
	    .event_triggers = live_event_triggers,
	    .print_hist = session_sel_print_hist,
	    .trigger_ctl = live_trigger_ctl,
	    .event_soft = live_event_soft,
	    .hist_var = live_hist_var,
	    .hist_synth = live_hist_synth,
	    .take_snapshot = session_sel_take_snapshot,
	    .print_snapshot = session_sel_print_snapshot,
	    .set_thresh = live_set_thresh,
	    .nr_buffers = live_nr_buffers,
	    .buffer_kb_set = live_buffer_kb_set,
	    .subbuf_size = live_subbuf_size,
	    .cpu_off = session_sel_cpu_off,
	    .event_hits = session_live_event_hits,
	    .cpu_stats = session_live_cpu_stats,
	    .event_pids = session_sel_event_pids,
	    .ftrace_pids = session_sel_ftrace_pids,
	    .pids_get = session_sel_pids_get,
	    .follow_fork = session_sel_follow_fork,
	    .dump_on_crash = o->npids ? NULL : live_dump_on_crash, /* no handlers in -P's */
	    .dump_on_crash_on = o->rec.dump_on_crash,
	    .graph_retval = live_graph_retval,
	    .stack_set = live_stack_set,
	    .stack_max = live_stack_max,
	    .stack_trace = live_stack_trace,
	    .kprobes_list = live_kprobes_list,
	    .kprobes_opt = live_kprobes_opt,
	    .graph_retval_on = o->rec.funcgraph_retval,
	    .clock_names = "local global mono x86-tsc", /* the kernel's order */
	    .instance_new = session_inst_new,
	    .instance_free = session_inst_free,
	    .set_clock = live_set_clock,
	    .wakeup_start = session_live_wakeup_start,
	    .wakeup_max = session_live_wakeup_max,
	    .wakeup_clear = session_live_wakeup_clear,
	    .thresh_us = o->rec.thresh_ns / 1000,
	    .buffer_kb = o->rec.buffer_kb,
	    .tracer = o->rec.tracer,
	    .filter = o->filter,
	    .max_depth = o->rec.max_depth,
	};
	struct utrace_error lerr = {0};

	if (!rl) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	rl->r = r;
	rl->output = o->rec.output;
	rl->overwrite = o->rec.overwrite;
	if (asprintf(&rl->extract, "%s.extract", o->rec.output) < 0) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		free(rl);
		return NULL;
	}
	rl->events = o->rec.events;
	if (!(rl->dyn = session_dynev_new(rl, o, &ops))) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		free(rl);
		return NULL;
	}
	session_eprobe_ops(rl, &ops);
	pthread_mutex_init(&rl->lock, NULL);
	pthread_mutex_lock(&rl->lock); /* the loop's, from the start */
	rl->top = (struct session_sel){.rl = rl, .top = true, .tracer = o->rec.tracer,
				       .filter = o->filter, .depth = o->rec.max_depth};
	ops.arg = &rl->top;
	rl->ops = ops;
	if (utrace_live_start(dir, &ops, &rl->fs, &lerr) < 0) {
		utrace_error_set(err, lerr.code, "--tracefs: %s", lerr.msg);
		session_dynev_free(rl->dyn);
		pthread_mutex_unlock(&rl->lock);
		pthread_mutex_destroy(&rl->lock);
		free(rl->extract);
		free(rl);
		return NULL;
	}
	return rl;
}

void session_live_yield(struct session_live *rl)
{
	if (!rl)
		return;
	pthread_mutex_unlock(&rl->lock);
	while (__atomic_load_n(&rl->want, __ATOMIC_RELAXED))
		sched_yield();
	pthread_mutex_lock(&rl->lock);
}

void session_live_stop(struct session_live *rl)
{
	if (!rl)
		return;
	/* the FUSE threads may wait for the recorder: let them finish */
	pthread_mutex_unlock(&rl->lock);
	/* a trace_pipe reader (utrace stream) gets the last records */
	utrace_live_drain(rl->fs, 2000);
	utrace_live_stop(rl->fs);
	utrace_event_select_free(rl->own);
	for (size_t i = 0; i < rl->ninsts; i++) {
		session_sel_free(rl->insts[i]);
		free(rl->insts[i]);
	}
	free(rl->insts);
	free(rl->inst_snaps);
	session_sel_free(&rl->top);
	session_dynev_free(rl->dyn);
	pthread_mutex_destroy(&rl->lock);
	session_live_resumes_free(rl);
	utrace_dat_kscan_free(rl->kscan);
	free(rl->extract);
	free(rl);
}
