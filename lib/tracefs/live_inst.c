/* SPDX-License-Identifier: MIT */
/*
 * live_inst.c - instances/: `mkdir instances/NAME` makes a tracefs of its
 * own, as the kernel's trace instances (kernel/trace/trace.c,
 * instance_mkdir): its trace, trace_pipe, tracing_on, current_tracer,
 * set_event, events/.../enable, options, set_ftrace_filter ..., over the
 * same traced processes.  An instance is a struct utrace_live whose root
 * is the top level: every file's code is the top level's, run on the
 * instance's state and on the ops the recording gives it
 * (ops->instance_new), which keep its own selection of the records.
 * Its files' callbacks run with the top level's lock held, as every
 * other file's.  `rmdir instances/NAME` removes it, EBUSY while one of
 * its files is open (the kernel's: a file holds a reference to its
 * trace_array); the kernel's own files are not made or removed.
 *
 * The state of a tracefs, the top level's or an instance's, is set up and
 * freed here too (live_state_init, live_state_free).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/tracefs/live_internal.h"

struct live_inst {
	struct utrace_live *l;
};

static struct utrace_live *inst_find(struct utrace_live *l, const char *name, size_t len,
				     size_t *at)
{
	for (size_t i = 0; i < l->ninsts; i++)
		if (strlen(l->insts[i].l->name) == len && !memcmp(l->insts[i].l->name, name, len)) {
			if (at)
				*at = i;
			return l->insts[i].l;
		}
	return NULL;
}

struct utrace_live *live_inst_find(struct utrace_live *l, const char *name, size_t len)
{
	return inst_find(l, name, len, NULL);
}

void live_trace_clear_all(struct utrace_live *l)
{
	struct utrace_live *root = l->root ? l->root : l;

	live_trace_clear(root);
	for (size_t i = 0; i < root->ninsts; i++)
		live_trace_clear(root->insts[i].l);
}

void live_inst_names(struct utrace_live *l, void (*fill)(void *arg, const char *name), void *arg)
{
	for (size_t i = 0; i < l->ninsts; i++)
		fill(arg, l->insts[i].l->name);
}

/* "/instances/NAME": NAME, else NULL (a path elsewhere: the kernel's
 * tracefs has no mkdir there, EPERM) */
static const char *inst_name(struct utrace_live *l, const char *path)
{
	const char *p = path + (path[0] == '/');

	if (!l->ops.instance_new || strncmp(p, "instances/", 10) || !p[10] || strchr(p + 10, '/'))
		return NULL;
	return p + 10;
}

static void inst_free(struct utrace_live *in)
{
	struct utrace_live *root = in->root;

	if (root->ops.instance_free)
		root->ops.instance_free(root->ops.arg, in->ops.arg);
	live_ftcmd_drop(in, root); /* its function commands' probes */
	live_state_free(in);
	free(in);
}

int live_inst_mkdir(struct utrace_live *l, const char *path)
{
	const char *name = inst_name(l, path);
	struct utrace_live_ops ops;
	struct utrace_error err = {0};
	struct utrace_live *in;

	if (!name)
		return -EPERM;
	if (inst_find(l, name, strlen(name), NULL))
		return -EEXIST;
	if (UTRACE_GROW(l->insts, l->cap_insts, l->ninsts + 1) < 0 ||
	    !(in = calloc(1, sizeof(*in))))
		return -ENOMEM;
	if (!(in->name = strdup(name))) {
		free(in);
		return -ENOMEM;
	}
	if (l->ops.instance_new(l->ops.arg, name, &ops, &err) < 0) {
		live_errlog_add(l, "instances", name, err.msg, 0);
		free(in->name);
		free(in);
		return err.code;
	}
	in->root = l;
	/* a new instance: nop, its own options and clock, no function list */
	ops.tracer = UTRACE_TRACER_NOP;
	ops.filter = NULL;
	if (live_state_init(in, &ops) < 0) {
		inst_free(in);
		return -ENOMEM;
	}
	l->insts[l->ninsts++].l = in;
	return 0;
}

int live_inst_rmdir(struct utrace_live *l, const char *path)
{
	const char *name = inst_name(l, path);
	struct utrace_live *in;
	size_t at;

	if (!name)
		return -EPERM;
	if (!(in = inst_find(l, name, strlen(name), &at)))
		return -ENOENT;
	if (in->nopen)
		return -EBUSY;
	memmove(&l->insts[at], &l->insts[at + 1], (l->ninsts - at - 1) * sizeof(*l->insts));
	l->ninsts--;
	inst_free(in);
	return 0;
}

void live_inst_free_all(struct utrace_live *l)
{
	while (l->ninsts)
		inst_free(l->insts[--l->ninsts].l);
	free(l->insts);
	l->insts = NULL;
	l->cap_insts = 0;
}

int live_state_init(struct utrace_live *l, const struct utrace_live_ops *ops)
{
	l->ops = *ops;
	l->tracer = ops->tracer;
	l->max_depth = ops->max_depth;
	l->options = ops->options;
	l->thresh_us = ops->thresh_us;
	l->dump_on_crash = ops->dump_on_crash_on;
	l->graph_retval = ops->graph_retval_on;
	live_clock_init(l);
	l->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (l->ncpu < 1)
		l->ncpu = 1;
	if (!(l->cpu_clear_ns = calloc((size_t)l->ncpu, sizeof(uint64_t))) ||
	    !(l->cpu_pipes = calloc((size_t)l->ncpu, sizeof(*l->cpu_pipes))))
		return -ENOMEM;
	return live_lists_from(l, ops->filter) < 0 ? -ENOMEM : 0;
}

void live_state_free(struct utrace_live *l)
{
	live_errlog_clear(l);
	for (int w = 0; w < UTRACE_FILTER_LISTS; w++)
		live_list_free(&l->lists[w]);
	live_list_free(&l->stack_list);
	for (size_t i = 0; i < l->nfilters; i++)
		utrace_func_filter_free(l->filters[i]);
	free(l->filters);
	free(l->pipe.text);
	for (int c = 0; l->cpu_pipes && c < l->ncpu; c++)
		free(l->cpu_pipes[c].text);
	free(l->cpu_pipes);
	free(l->cpu_clear_ns);
	live_events_free(l);
	live_pids_free(l);
	live_ftcmd_free(l);
	live_dynev_free(l);
	live_evconf_free(l);
	free(l->name);
}
