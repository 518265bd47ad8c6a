/* SPDX-License-Identifier: MIT */
/*
 * live_pids.c - set_ftrace_pid and set_ftrace_notrace_pid, and the
 * thread-id lists' syntax they share with set_event_pid (live_events.c),
 * the kernel's (kernel/trace/trace.c trace_pid_write, ftrace.c
 * ftrace_pid_open / pid_write):
 *
 *   read     "no pid" when the list is empty, else one id a line
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
 * the control page, runtime/trace_pid.c).  The caller holds l->lock.
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
	for (int i = 0; i < 2; i++)
		free(l->ft_pids[i]);
}

/* ---- set_ftrace_pid (which 0), set_ftrace_notrace_pid (which 1) ------ */

int live_show_ftrace_pid(struct utrace_live *l, const struct live_handle *h, FILE *out)
{
	int w = h->f->which;

	if (!l->nft_pids[w])
		fputs("no pid\n", out);
	for (unsigned i = 0; i < l->nft_pids[w]; i++)
		fprintf(out, "%d\n", l->ft_pids[w][i]);
	return 0;
}

/* List which made tids (n of them) in every process, or left as it was. */
static int ftrace_pids_apply(struct utrace_live *l, int which, int32_t *tids, unsigned n)
{
	const int32_t *lists[2] = {l->ft_pids[0], l->ft_pids[1]};
	unsigned ns[2] = {l->nft_pids[0], l->nft_pids[1]};
	int ret;

	lists[which] = tids;
	ns[which] = n;
	ret = l->ops.ftrace_pids(l->ops.arg, lists[0], ns[0], lists[1], ns[1]);
	if (ret < 0) {
		free(tids);
		return ret;
	}
	free(l->ft_pids[which]);
	l->ft_pids[which] = tids;
	l->nft_pids[which] = n;
	return 0;
}

int live_open_ftrace_pid(struct utrace_live *l, struct live_handle *h, int flags)
{
	int w = h->f->which;

	if ((flags & O_ACCMODE) == O_RDONLY || !(flags & O_TRUNC) || !l->nft_pids[w])
		return 0;
	return ftrace_pids_apply(l, w, NULL, 0);
}

long live_write_ftrace_pid(struct utrace_live *l, struct live_handle *h, const char *buf, size_t n)
{
	int w = h->f->which;
	int32_t *tids;
	unsigned k;
	int ret = live_pids_parse(buf, n, l->ft_pids[w], l->nft_pids[w], &tids, &k);

	if (ret < 0)
		return ret;
	return (ret = ftrace_pids_apply(l, w, tids, k)) < 0 ? ret : (long)n;
}
