/* SPDX-License-Identifier: MIT */
/*
 * dat_snap.c - snapshots in utrace.dat (SNAPSHOT and SNAP_PAGE records,
 * docs/utrace-dat.md): the list of them, and the choice of pages when the
 * file is opened as one of them (utrace_dat_open_snapshot): the reader
 * then indexes that snapshot's SNAP_PAGEs in place of the trace's PAGEs,
 * and the iterator stops each thread at the snapshot's TSC (dat_iter.c).
 */
#include <errno.h>
#include <string.h>

#include "lib/tracefile/dat_internal.h"

int dat_snap_meta(struct utrace_dat *d, const char *p, uint32_t len, const char **bad)
{
	struct utrace_dat_snapshot s;

	if (len < sizeof(s)) {
		*bad = "too short for a snapshot";
		return 0;
	}
	memcpy(&s, p, sizeof(s));
	if (!s.id) {
		*bad = "snapshot id 0";
		return 0;
	}
	if (UTRACE_GROW(d->snaps, d->cap_snaps, d->nr_snaps + 1))
		return -ENOMEM;
	d->snaps[d->nr_snaps++] = s;
	return 0;
}

bool dat_snap_page_wanted(const struct utrace_dat *d, uint32_t type, const unsigned char *head,
			  size_t n)
{
	struct utrace_dat_page pg;

	if (type == UTRACE_DAT_PAGE)
		return !d->snap_sel;
	if (!d->snap_sel || n < sizeof(struct utrace_dat_rec) + sizeof(pg))
		return false;
	memcpy(&pg, head + sizeof(struct utrace_dat_rec), sizeof(pg));
	return pg.reserved == d->snap_sel;
}

int dat_snap_select(struct utrace_dat *d, struct utrace_error *err)
{
	if (!d->snap_sel)
		return 0;
	for (size_t i = 0; i < d->nr_snaps; i++)
		if (d->snaps[i].id == d->snap_sel) {
			/* 0 is "no cut": a TSC of 0 cuts everything anyway */
			d->snap_cut = d->snaps[i].tsc ? d->snaps[i].tsc : 1;
			return 0;
		}
	return utrace_error_set(err, -ENOENT, "%s: no snapshot %u", d->path, d->snap_sel);
}

unsigned utrace_dat_snapshot_count(const struct utrace_dat *d)
{
	return (unsigned)d->nr_snaps;
}

const struct utrace_dat_snapshot *utrace_dat_snapshot_get(const struct utrace_dat *d, unsigned i)
{
	return i < d->nr_snaps ? &d->snaps[i] : NULL;
}
