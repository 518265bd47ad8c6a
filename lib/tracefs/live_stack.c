/* SPDX-License-Identifier: MIT */
/*
 * live_stack.c - the stack tracer's files, the kernel's (kernel/trace/
 * trace_stack.c), over the traced programs (runtime/stack_tracer.c):
 *
 *   stack_trace         the deepest stack seen at a traced function's
 *                       entry, innermost first, as the kernel's t_show
 *                       prints it: a header with the number of entries,
 *                       then "%3ld) %8d   %5d   %pS" a frame (its depth:
 *                       the bytes from its thread's stack top to where
 *                       its return address was; its size: the depth less
 *                       the next frame's, the last frame's its depth; the
 *                       location FUNC+0xOFF/0xLEN, a library's with
 *                       " [LIB]"), and the kernel's "Stack tracer
 *                       disabled" lines while it is off and no maximum
 *                       was kept
 *   stack_max_size      that stack's size in bytes; a write of a number
 *                       (base 10, as kstrtoul) sets it: `echo 0` starts
 *                       the search again (the frames stay until a deeper
 *                       stack replaces them, as the kernel's)
 *   stack_trace_filter  set_ftrace_filter's syntax (live_files.c's lists,
 *                       LIVE_STACK_LIST), no function commands: the
 *                       functions whose entries check the stack; empty:
 *                       every function ("#### all functions enabled ####")
 *   utrace.stack_tracer_enabled  (utrace's) the kernel's sysctl
 *                       /proc/sys/kernel/stack_tracer_enabled, which a
 *                       user-space tracefs cannot add to /proc: an int,
 *                       "%d\n"; a write of one not 0 turns the stack
 *                       tracer on (the processes' sites patched before
 *                       the write returns), 0 off; else EINVAL
 *
 * Top level only, as the kernel's.  The caller holds l->lock.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefs/live_internal.h"

struct stack_frames {
	uint32_t n;
	uint32_t depth[UTRACE_STACK_ENTRIES];
	char *loc[UTRACE_STACK_ENTRIES];
};

static void frame_add(void *arg, uint32_t depth, const char *loc)
{
	struct stack_frames *f = arg;

	if (f->n < UTRACE_STACK_ENTRIES && (f->loc[f->n] = strdup(loc)))
		f->depth[f->n++] = depth;
}

int live_show_stack_trace(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct stack_frames *f = calloc(1, sizeof(*f));
	uint64_t max;
	int ret;

	(void)h;
	if (!f)
		return -ENOMEM;
	if (!l->ops.stack_trace) {
		free(f);
		return -ENODEV;
	}
	max = l->ops.stack_max(l->ops.arg, false, 0);
	ret = l->ops.stack_trace(l->ops.arg, frame_add, f);
	if (ret >= 0) {
		fprintf(out,
			"        Depth    Size   Location    (%u entries)\n"
			"        -----    ----   --------\n",
			f->n);
		if (!l->stack_enabled && !max)
			fputs("#\n"
			      "#  Stack tracer disabled\n"
			      "#\n"
			      "# To enable the stack tracer, either add 'stacktrace' to the\n"
			      "# kernel command line\n"
			      "# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n"
			      "#\n",
			      out);
		for (uint32_t i = 0; i < f->n; i++)
			fprintf(out, "%3u) %8u   %5u   %s\n", i, f->depth[i],
				i + 1 == f->n ? f->depth[i] : f->depth[i] - f->depth[i + 1], f->loc[i]);
	}
	for (uint32_t i = 0; i < f->n; i++)
		free(f->loc[i]);
	free(f);
	return ret < 0 ? ret : 0;
}

int live_show_stack_max(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	(void)h;
	if (!l->ops.stack_max)
		return -ENODEV;
	fprintf(out, "%llu\n", (unsigned long long)l->ops.stack_max(l->ops.arg, false, 0));
	return 0;
}

/* kstrtoul(buf, 10): digits, at most one newline after them */
long live_write_stack_max(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	char text[32], *end;
	unsigned long long v;
	size_t len = n;

	(void)h;
	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(text) || buf[0] == '-' || buf[0] == '+')
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = 0;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end || errno || text[0] == ' ')
		return -EINVAL;
	if (!l->ops.stack_max)
		return -ENODEV;
	l->ops.stack_max(l->ops.arg, true, v);
	return (long)n;
}

int live_show_stack_enabled(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	(void)h;
	fprintf(out, "%d\n", l->stack_enabled);
	return 0;
}

/* The stack tracer on or off with stack_trace_filter's list: its
 * filter is made of the list as set_ftrace_filter's (and kept until the
 * stop, as the processes may use it until they answered). */
static int stack_apply(struct utrace_live *l, bool on, const struct live_list *list)
{
	struct live_list lists[UTRACE_FILTER_LISTS] = {{0}};
	struct utrace_error err = {0};
	struct utrace_func_filter *f;
	int ret;

	lists[UTRACE_FILTER] = *list;
	if (!l->ops.stack_set)
		return -ENODEV;
	if (UTRACE_GROW(l->filters, l->cap_filters, l->nfilters + 1) < 0)
		return -ENOMEM;
	if (!(f = live_filter_make(lists, &err)))
		return err.code;
	l->filters[l->nfilters++] = f;
	ret = l->ops.stack_set(l->ops.arg, on, list->n ? f : NULL, &err);
	if (ret < 0 && err.msg[0])
		live_errlog_add(l, "stack_tracer_enabled", on ? "1" : "0", err.msg, 0);
	return ret;
}

/* proc_dointvec: an int (leading blanks, a sign), a newline after it */
long live_write_stack_enabled(struct utrace_live *l, struct live_handle *h, const char *buf,
			      size_t n)
{
	long v;
	int ret;

	(void)h;
	if ((ret = live_dointvec(buf, n, INT_MIN, INT_MAX, &v)) < 0)
		return ret;
	if (!v != !l->stack_enabled && (ret = stack_apply(l, v != 0, &l->stack_list)) < 0)
		return ret;
	l->stack_enabled = (int)v;
	return (long)n;
}

int live_stack_filter_apply(struct utrace_live *l, const struct live_list *list)
{
	struct live_list copy = {0};
	int ret;

	if (live_list_copy(&copy, list) < 0) {
		live_list_free(&copy);
		return -ENOMEM;
	}
	if ((ret = stack_apply(l, l->stack_enabled != 0, &copy)) < 0) {
		live_list_free(&copy);
		return ret;
	}
	live_list_free(&l->stack_list);
	l->stack_list = copy;
	return 0;
}
