/* SPDX-License-Identifier: MIT */
/*
 * session_inst_snap.c - the snapshot file of the top level and of each
 * instance (lib/tracefs/live_snapshot.c) over this recording.
 *
 * A snapshot is a copy of every thread's buffer (lib/record/
 * recorder_snap.c), the one set of buffers all readers share
 * (session_inst.c); so an instance's `echo 1 > snapshot` takes one of all
 * of them, kept as that instance's, and its snapshot file shows it
 * through the instance's selection (its events, windows, filters), as
 * its trace does.  So does a snapshot trigger of the instance's: the
 * runtime's request names its reader, and the recorder says whose each
 * snapshot is (utrace_recorder_snapshot_reader), which snaps_sync reads
 * before a snapshot is numbered or shown.  The top level's are the others
 * (written to its file, or by a snapshot trigger of its own), numbered
 * among themselves, and shown through the top level's masks once an
 * instance was made.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/base/grow.h"
#include "lib/report/report_text.h"
#include "lib/session/session_live_internal.h"

/* How many of the recording's first n snapshots instances took. */
static unsigned inst_taken(const struct session_live *rl, unsigned n)
{
	unsigned k = 0;

	for (size_t i = 0; i < rl->ninst_snaps; i++)
		k += rl->inst_snaps[i] <= n;
	return k;
}

static bool inst_took(const struct session_live *rl, unsigned id)
{
	for (size_t i = 0; i < rl->ninst_snaps; i++)
		if (rl->inst_snaps[i] == id)
			return true;
	return false;
}

static int snaps_add(struct session_live *rl, struct session_sel *s, unsigned id)
{
	if (UTRACE_GROW(rl->inst_snaps, rl->cap_inst_snaps, rl->ninst_snaps + 1) < 0 ||
	    (s && UTRACE_GROW(s->snaps, s->cap_snaps, s->nsnaps + 1) < 0))
		return -ENOMEM;
	rl->inst_snaps[rl->ninst_snaps++] = id;
	if (s)
		s->snaps[s->nsnaps++] = id;
	return 0;
}

/* The snapshots taken since the last call that an instance's trigger
 * asked for: that instance's (one removed since: no reader's, but still
 * not the top level's), in the order taken.  The recorder held. */
static int snaps_sync(struct session_live *rl, struct utrace_error *err)
{
	int reader;

	while ((reader = utrace_recorder_snapshot_reader(rl->r, rl->snaps_seen + 1)) >= 0) {
		if (reader && snaps_add(rl, session_reader_sel(rl, (unsigned)reader),
					rl->snaps_seen + 1) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
		rl->snaps_seen++;
	}
	return 0;
}

/* One taken now: its number among the reader's own (1, 2, ...). */
int session_sel_take_snapshot(void *arg, struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct session_live *rl = s->rl;
	int id;

	live_lock(rl);
	id = utrace_recorder_snapshot_now(rl->r, err);
	if (id > 0 && snaps_sync(rl, err) < 0)
		id = err->code;
	pthread_mutex_unlock(&rl->lock);
	if (id <= 0 || (s->top && !rl->sel_used))
		return id;
	if (s->top)
		return id - (int)inst_taken(rl, (unsigned)id);
	if (snaps_add(rl, s, (unsigned)id) < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return (int)s->nsnaps;
}

/* Of the recording's total snapshots, the reader's: how many (*count),
 * and the recording's number of its newest (0: none). */
static unsigned sel_newest(const struct session_sel *s, unsigned total, unsigned *count)
{
	const struct session_live *rl = s->rl;
	unsigned id;

	if (s->top && !rl->sel_used) {
		*count = total;
		return total;
	}
	if (s->top) {
		*count = total - inst_taken(rl, total);
		for (id = total; id && inst_took(rl, id); id--)
			;
		return id;
	}
	*count = 0;
	for (size_t i = 0; i < s->nsnaps; i++)
		*count += s->snaps[i] <= total;
	return *count ? s->snaps[*count - 1] : 0;
}

/* Snapshot id of d printed as trace, through s's selection if it has one. */
static int print_one(struct session_sel *s, struct utrace_dat *d, unsigned id, FILE *out,
		     const char *tracer, uint32_t options, struct utrace_error *err)
{
	struct utrace_report_filter *f = NULL;
	struct utrace_report_opts o;
	struct utrace_dat *sd;
	int ret;

	utrace_report_opts_init(&o);
	o.tracer = tracer;
	o.flags = options;
	if (!s->top || s->rl->sel_used) {
		if (utrace_report_filter_new(&f, err) < 0)
			return err->code;
		utrace_report_filter_set_keep(f, session_sel_keep, s);
		o.filter = f;
	}
	ret = utrace_dat_open_snapshot(utrace_dat_path(d), utrace_dat_snapshot_get(d, id - 1)->id,
				       &sd, err);
	if (ret >= 0) {
		ret = utrace_report_print(sd, out, &o, NULL, err);
		utrace_dat_close(sd);
	}
	utrace_report_filter_free(f);
	return ret;
}

int session_sel_print_snapshot(void *arg, FILE *out, const char *tracer, uint32_t options,
			       unsigned from, unsigned *count, struct utrace_error *err)
{
	struct session_sel *s = arg;
	struct utrace_dat *d;
	unsigned id;
	int ret;

	if (session_live_open_dat(s->rl, &d, err) < 0)
		return err->code;
	/* whose are those in the file (known before they were written) */
	live_lock(s->rl);
	ret = snaps_sync(s->rl, err);
	pthread_mutex_unlock(&s->rl->lock);
	if (ret < 0) {
		utrace_dat_close(d);
		return ret;
	}
	id = sel_newest(s, utrace_dat_snapshot_count(d), count);
	if (!out || *count <= from || !id) {
		utrace_dat_close(d);
		return 0;
	}
	ret = print_one(s, d, id, out, tracer, options, err);
	utrace_dat_close(d);
	return ret < 0 ? ret : 1;
}
