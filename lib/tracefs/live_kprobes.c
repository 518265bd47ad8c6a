/* SPDX-License-Identifier: MIT */
/*
 * live_kprobes.c - the kernel's two files about its kprobes that are not
 * tracefs files, over the in-process probes (runtime/inproc_probe_state.c,
 * lib/record/recorder_kprobes.c):
 *
 *   utrace.kprobes_list  the kernel's debugfs kprobes/list: each probe as
 *                        the traced processes' text has it now, one line
 *                        each, as kernel/kprobes.c report_probe prints it:
 *                        "%px  %s  %s+0x%x  %s " (address, type k or r
 *                        for a return probe, SYMBOL+OFFSET, the module: a
 *                        library's base name, " " for the program; or
 *                        "%px  %s  %pS " with no symbol: 0xADDRESS), then
 *                        [DISABLED] (its event records nothing now),
 *                        [OPTIMIZED] (a jmp to its detour is written, or
 *                        queued until no thread is in the way, as the
 *                        kernel's flag is set when its optimizer queues
 *                        the probe) and [FTRACE] (its function's call
 *                        site calls it: the kernel's ftrace-based kprobe);
 *                        an int3 has no flag.  A line is listed once
 *                        however many processes have it so (a fork's
 *                        child at the same address); one process's line
 *                        that differs (a child whose jmps stay int3s) is
 *                        its own.  [GONE] never shows: a probe's object
 *                        unloaded takes its probe with it
 *   utrace.kprobes-optimization  the kernel's sysctl
 *                        /proc/sys/debug/kprobes-optimization, which a
 *                        user-space tracefs cannot add to /proc: "%d\n",
 *                        1 at first; 0 makes every jmp probe an int3 (the
 *                        ones written taken back before the write
 *                        returns, new ones installed so), 1 queues them
 *                        to be jmps again; other values EINVAL
 *                        (proc_dointvec_minmax, 0 to 1)
 *
 * Top level only, as the kernel's are one for the system.  The caller
 * holds l->lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefs/live_internal.h"

struct kp_lines {
	char **line;
	size_t n, cap;
	int err;
};

static void kp_add(void *arg, const struct utrace_live_kprobe *k)
{
	struct kp_lines *ls = arg;
	char *s = NULL;
	int n;

	if (k->sym)
		n = asprintf(&s, "%016" PRIx64 "  %c  %s+0x%" PRIx64 "  %s %s%s%s\n", k->addr,
			     k->type, k->sym, k->off, k->module ? k->module : " ",
			     k->disabled ? "[DISABLED]" : "", k->optimized ? "[OPTIMIZED]" : "",
			     k->ftrace ? "[FTRACE]" : "");
	else
		n = asprintf(&s, "%016" PRIx64 "  %c  0x%" PRIx64 " %s%s%s\n", k->addr, k->type,
			     k->addr, k->disabled ? "[DISABLED]" : "",
			     k->optimized ? "[OPTIMIZED]" : "", k->ftrace ? "[FTRACE]" : "");
	if (n < 0) {
		ls->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < ls->n; i++)
		if (!strcmp(ls->line[i], s)) {
			free(s);
			return; /* another process has it so */
		}
	if (UTRACE_GROW(ls->line, ls->cap, ls->n + 1) < 0) {
		free(s);
		ls->err = -ENOMEM;
		return;
	}
	ls->line[ls->n++] = s;
}

int live_show_kprobes_list(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct kp_lines ls = {NULL, 0, 0, 0};
	int ret = 0;

	(void)h;
	if (l->ops.kprobes_list)
		ret = l->ops.kprobes_list(l->ops.arg, kp_add, &ls);
	for (size_t i = 0; i < ls.n; i++) {
		fputs(ls.line[i], out);
		free(ls.line[i]);
	}
	free(ls.line);
	return ret < 0 ? ret : ls.err;
}

int live_show_kprobes_opt(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	struct utrace_error err = {0};

	(void)h;
	fprintf(out, "%d\n", l->ops.kprobes_opt ? l->ops.kprobes_opt(l->ops.arg, -1, &err) : 1);
	return 0;
}

/* proc_dointvec_minmax: an int (leading blanks, a sign), a newline after
 * it, from 0 to 1 */
long live_write_kprobes_opt(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	struct utrace_error err = {0};
	long v;
	int ret;

	(void)h;
	if ((ret = live_dointvec(buf, n, 0, 1, &v)) < 0)
		return ret;
	if (!l->ops.kprobes_opt)
		return -ENODEV;
	if ((ret = l->ops.kprobes_opt(l->ops.arg, (int)v, &err)) < 0) {
		if (err.msg[0])
			live_errlog_add(l, "kprobes-optimization", v ? "1" : "0", err.msg, 0);
		return ret;
	}
	return (long)n;
}
