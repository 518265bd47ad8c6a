/* SPDX-License-Identifier: MIT */
/*
 * recorder_histlive.c - the hist tables of the live tracefs's triggers
 * (recorder_liveev.c): read for the hist file, paused, continued and
 * cleared by a trigger written again with :pause, :cont, :clear, dropped
 * with their trigger unless another trigger reads their variables.  The tables are recorder_hist.c's, shared with
 * every traced process: these act on the recorder's own mapping, which
 * the processes see at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_map.h"
#include "common/hist_prog.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"

/* h's table as it is now, for the hist file; *elts to free. */
int rec_hist_table(struct utrace_recorder *r, const struct rec_hist *h,
		   struct utrace_hist_table *t, uint8_t **elts)
{
	const struct utrace_hist_map *m = h->map;
	*elts = rec_hist_entries(h->map, &t->nr_elts);
	if (!*elts)
		return -ENOMEM;
	t->prog = h->prog;
	t->hits = 0; /* Totals' Hits: every entry's hit count (common/hist_map.h) */
	for (uint32_t i = 0; i < t->nr_elts; i++) {
		uint64_t hc;

		memcpy(&hc, *elts + i * utrace_hist_elt_size(m->key_size, m->nr_sums) + m->key_size,
		       sizeof(hc));
		t->hits += hc;
	}
	t->drops = m->drops;
	t->elts = *elts;
	t->paused = m->paused || rec_hist_disabled(r, h);
	t->snap_seq = m->snap_seq;
	t->snap_val = m->snap_val;
	return 0;
}

/* A trigger removed: the tables of spec go (the processes keep their
 * mapping until they end, unused). */
void rec_hist_drop(struct utrace_recorder *r, unsigned spec)
{
	for (struct rec_hist **pp = &r->hist->hists; *pp;) {
		struct rec_hist *h = *pp;

		if (h->spec != spec) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		rec_hist_free_one(h);
	}
}

/*
 * :clear (the kernel's hist_clear, tracing_map_clear): the table emptied
 * in place while the programs may be counting into it.  It is paused
 * meanwhile, so a hit that starts now counts nothing; the slots go first
 * (a reader or an inserter finds none of the old entries), then the
 * elements, then the counter hands them out again from the first.  A hit
 * already past the pause check is not waited for (no process can be):
 * its entry lands in the new table or is lost, as the kernel's clear
 * races with its tracepoints too (a thread's unlocked add to its stripe,
 * common/hist_map.h, may also land whole on the cleared value).  The
 * stripes' sums are cleared with the elements; their owners stay.
 */
static void hist_clear(struct utrace_hist_map *m)
{
	uint32_t was = __atomic_exchange_n(&m->paused, 1, __ATOMIC_ACQ_REL);

	utrace_hist_map_empty(m);
	__atomic_store_n(&m->paused, was, __ATOMIC_RELEASE);
}

int rec_hist_ctl(struct utrace_recorder *r, unsigned spec, int what, bool *paused)
{
	struct rec_hist *h;

	for (h = r->hist->hists; h && h->spec != spec; h = h->next)
		;
	if (!h)
		return -ENOENT;
	if (what == REC_HIST_PAUSE || what == REC_HIST_CONT)
		__atomic_store_n(&h->map->paused, what == REC_HIST_PAUSE, __ATOMIC_RELEASE);
	else if (what == REC_HIST_CLEAR)
		hist_clear(h->map);
	*paused = __atomic_load_n(&h->map->paused, __ATOMIC_ACQUIRE) || rec_hist_disabled(r, h);
	return 0;
}

const struct rec_hist *rec_hist_find(const struct utrace_recorder *r, unsigned spec)
{
	const struct rec_hist *h;

	for (h = r->hist->hists; h && h->spec != spec; h = h->next)
		;
	return h;
}

/* Whether another trigger's program RESOLVEs in the table of spec: its
 * variables are read (the kernel's hist_trigger_check_refs). */
bool rec_hist_referenced(const struct utrace_recorder *r, unsigned spec)
{
	const struct rec_hist *h = rec_hist_find(r, spec);
	uint32_t tid;

	if (!h)
		return false;
	tid = h->owner ? h->owner->tid : h->tid;
	for (const struct rec_hist *o = r->hist->hists; o; o = o->next) {
		const struct utrace_hist_hdr *p = o->prog;
		const struct utrace_hist_insn *in = utrace_hist_insns(p);

		for (uint32_t i = 0; o->spec != spec && i < p->nr_insns; i++)
			if (in[i].op == UTRACE_HOP_RESOLVE && in[i].off == tid)
				return true;
	}
	return false;
}
