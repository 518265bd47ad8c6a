/* SPDX-License-Identifier: MIT */
/*
 * dat_own.c - utrace's own work in a recording's kernel events.
 *
 * Kernel events are recorded per task, and a traced task also runs
 * utrace's code: the recorder's child until it execs the command (it
 * resets signals, waits for the go), libutrace.so's constructor (it
 * connects, reads the objects' ELF files, patches), a fork child's
 * joining.  Their system calls are not the program's (strace of the same
 * program does not see them).  The recorder and the runtime stamp the
 * start and end of that work with the TSC, the clock of every record,
 * and the file keeps each window (OWN records).  A kernel event of that
 * thread inside a window is utrace's: the iterators leave it out and
 * count it (dat_warnings.own), unless utrace_dat_show_own() asked for it.
 * Kernel time stamps are compared as TSC counts (kticks_to_tsc), so the
 * mono trace_clock works too, to the precision of the file's clock pairs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/tracefile/dat_kernel.h"

struct dat_own {
	struct utrace_dat_own *w;
	size_t n, cap;
};

int dat_own_meta(struct utrace_dat *d, const char *p, uint32_t len, const char **bad)
{
	struct dat_own *o = d->own;

	if (len < sizeof(struct utrace_dat_own)) {
		*bad = "too short";
		return 0;
	}
	if (!o && !(o = d->own = calloc(1, sizeof(*o))))
		return -ENOMEM;
	if (UTRACE_GROW(o->w, o->cap, o->n + 1) < 0)
		return -ENOMEM;
	memcpy(&o->w[o->n], p, sizeof(o->w[0]));
	if (o->w[o->n].tsc1 < o->w[o->n].tsc0)
		*bad = "a window that ends before it starts";
	else
		o->n++;
	return 0;
}

/* Few windows (one per process and exec, one per fork child): a scan. */
bool dat_own_hit(const struct utrace_dat *d, int32_t tid, uint64_t tsc)
{
	const struct dat_own *o = d->own;

	if (!o || d->show_own)
		return false;
	for (size_t i = 0; i < o->n; i++)
		if (o->w[i].tid == tid && tsc >= o->w[i].tsc0 && tsc <= o->w[i].tsc1)
			return true;
	return false;
}

void utrace_dat_show_own(struct utrace_dat *d, bool show)
{
	d->show_own = show; /* (windows a refresh adds too) */
}

size_t utrace_dat_own_windows(const struct utrace_dat *d)
{
	return d->own ? d->own->n : 0;
}

void dat_own_free(struct utrace_dat *d)
{
	if (d->own)
		free(d->own->w);
	free(d->own);
	d->own = NULL;
}
