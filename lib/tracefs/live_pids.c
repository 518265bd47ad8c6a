/* SPDX-License-Identifier: MIT */
/*
 * live_pids.c - the thread-id lists set_event_pid, set_event_notrace_pid,
 * set_ftrace_pid and set_ftrace_notrace_pid, and the syntax they share,
 * the kernel's (kernel/trace/trace.c trace_pid_write, ftrace.c
 * ftrace_pid_open / pid_write):
 *
 *   read     one id a line; set_ftrace_pid and set_ftrace_notrace_pid
 *            say "no pid" when empty
 *   `>`      (an open with O_TRUNC) empties the list first, so
 *            `echo > set_ftrace_pid` clears it
 *   `>>`     adds to it
 *   a write  words separated by white space, each a number as kstrtoul
 *            takes it (base 0), a thread id: 1 to PID_MAX_LIMIT; another
 *            word is EINVAL and the list stays as the open left it
 *
 * The ids are those of the traced processes' threads (gettid, `ps -L`);
 * an id that is none of them is kept and matches nothing, as a kernel pid
 * that is not running.  set_ftrace_pid, when it has ids, is the only
 * threads whose function records are written; set_ftrace_notrace_pid's
 * are never written.  Both go to every process at once (ops->ftrace_pids:
 * the control page, runtime/trace_pid.c); set_event_pid and
 * set_event_notrace_pid alike for events (ops->event_pids,
 * runtime/trace_events.c).  An instance's four are its own, through its
 * own ops (the recording runs the union of the readers' in the
 * processes: lib/session/session_inst_pids.c).  The recording owns the
 * lists: with the options event-fork and function-fork (live_options.c)
 * it adds a fork child to those its parent thread is in, so each open
 * takes them back (ops->pids_get).  The caller holds l->lock.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/live_internal.h"

#define LIVE_PID_MAX 4194304 /* the kernel's PID_MAX_LIMIT (64-bit) */

/* One word: a thread id, or -EINVAL. */
static int pid_word(const char *w, int32_t *tid)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*w)) /* kstrtoul takes no sign */
		return -EINVAL;
	errno = 0;
	v = strtoull(w, &end, 0);
	if (*end || errno || !v || v > LIVE_PID_MAX)
		return -EINVAL;
	*tid = (int32_t)v;
	return 0;
}

int live_pids_parse(const char *buf, size_t len, const int32_t *old, unsigned nold, int32_t **out,
		    unsigned *nout)
{
	int32_t *tids = malloc((nold + len / 2 + 1) * sizeof(*tids));
	char *s = strndup(buf, len), *save = NULL;
	unsigned k = nold;
	int ret = tids && s ? 0 : -ENOMEM;

	if (tids && nold)
		memcpy(tids, old, nold * sizeof(*tids));
	for (char *w = ret ? NULL : strtok_r(s, " \t\n", &save); w && !ret;
	     w = strtok_r(NULL, " \t\n", &save)) {
		int32_t v;
		unsigned i;

		if ((ret = pid_word(w, &v)) < 0)
			break;
		for (i = 0; i < k && tids[i] != v; i++)
			;
		if (i == k)
			tids[k++] = v;
	}
	free(s);
	if (ret < 0) {
		free(tids);
		return ret;
	}
	*out = tids;
	*nout = k;
	return 0;
}

void live_pids_free(struct utrace_live *l)
{
	for (int i = 0; i < 4; i++)
		free(l->pids[i]);
}

/* The lists as the recording has them now: a fork child may have joined
 * one (event-fork, function-fork).  What fails to copy stays as it was. */
static void pids_sync(struct utrace_live *l)
{
	int32_t buf[UTRACE_LIVE_PIDS_MAX];

	for (int w = 0; w < 4 && l->ops.pids_get; w++) {
		unsigned n = l->ops.pids_get(l->ops.arg, (enum utrace_live_pids)w, buf);
		int32_t *tids = n ? malloc(n * sizeof(*tids)) : NULL;

		if (n && !tids)
			continue;
		if (n)
			memcpy(tids, buf, n * sizeof(*tids));
		free(l->pids[w]);
		l->pids[w] = tids;
		l->npids[w] = n;
	}
}

int live_show_pids(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int w = h->f->which;

	pids_sync(l);
	/* the kernel's ftrace_pid_show says so; trace_pid_show says nothing */
	if (!l->npids[w] && w >= UTRACE_LIVE_PIDS_FTRACE)
		fputs("no pid\n", out);
	for (unsigned i = 0; i < l->npids[w]; i++)
		fprintf(out, "%d\n", l->pids[w][i]);
	return 0;
}

/* List which made tids (n of them) in every process, or left as it was;
 * the other list of its pair goes as it is. */
static int pids_apply(struct utrace_live *l, int which, int32_t *tids, unsigned n)
{
	int first = which & ~1;
	const int32_t *lists[2] = {l->pids[first], l->pids[first + 1]};
	unsigned ns[2] = {l->npids[first], l->npids[first + 1]};
	int ret;

	lists[which - first] = tids;
	ns[which - first] = n;
	if (first == UTRACE_LIVE_PIDS_EVENT)
		ret = l->ops.event_pids(l->ops.arg, lists[0], ns[0], lists[1], ns[1]);
	else
		ret = l->ops.ftrace_pids(l->ops.arg, lists[0], ns[0], lists[1], ns[1]);
	if (ret < 0) {
		free(tids);
		return ret;
	}
	free(l->pids[which]);
	l->pids[which] = tids;
	l->npids[which] = n;
	return 0;
}

int live_open_pids(struct utrace_live *l, struct live_handle *h, int flags)
{
	int w = h->f->which;

	if ((flags & O_ACCMODE) == O_RDONLY)
		return 0;
	pids_sync(l);
	if (!(flags & O_TRUNC) || !l->npids[w])
		return 0;
	return pids_apply(l, w, NULL, 0);
}

long live_write_pids(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	int w = h->f->which;
	int32_t *tids;
	unsigned k;
	int ret;

	pids_sync(l);
	ret = live_pids_parse(buf, n, l->pids[w], l->npids[w], &tids, &k);
	if (ret < 0)
		return ret;
	return (ret = pids_apply(l, w, tids, k)) < 0 ? ret : (long)n;
}
