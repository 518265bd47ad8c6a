/* SPDX-License-Identifier: MIT */
/*
 * dat_hist.c - the HIST records of a utrace.dat: each hist trigger's table
 * as the recorder saved it at the end (lib/record/recorder_hist.c).
 *
 * A record is checked whole before it is kept: its names are
 * NUL-terminated inside it, its program passes utrace_hist_hdr_ok, and its
 * table's element size and count agree with the program and with the
 * record's length.  A record that fails is skipped with a warning (a
 * damaged file never crashes the reader); the printer (lib/hist) then
 * only has to trust what was checked here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_prog.h"
#include "lib/tracefile/dat_internal.h"

struct dat_hists {
	struct utrace_dat_hist_info *v;
	size_t n, cap;
	char **blobs; /* the records' payloads, which v points into */
	size_t cap_blobs;
};

static const char *hist_check(const char *p, uint32_t len, struct utrace_dat_hist_info *h)
{
	struct utrace_dat_hist d;
	const struct utrace_hist_hdr *prog;
	struct utrace_hist_map map;
	uint64_t off, padded_prog;
	size_t ls, ln;

	if (len < sizeof(d))
		return "too short";
	memcpy(&d, p, sizeof(d));
	padded_prog = ((uint64_t)d.prog_len + 7) & ~7ull;
	off = sizeof(d) + (uint64_t)d.names_len;
	if ((d.names_len & 7) || off + padded_prog + sizeof(map) > len)
		return "names or program beyond the record";
	h->system = p + sizeof(d);
	ls = strnlen(h->system, d.names_len);
	ln = ls < d.names_len ? strnlen(h->system + ls + 1, d.names_len - ls - 1) : d.names_len;
	if (ls + 1 + ln + 1 >= d.names_len ||
	    !memchr(h->system + ls + 1 + ln + 1, 0, d.names_len - ls - 1 - ln - 1))
		return "names not terminated";
	h->event = h->system + ls + 1;
	h->trigger = h->event + ln + 1;
	prog = utrace_hist_hdr_ok(p + off, d.prog_len);
	if (!prog)
		return "malformed program";
	if (d.elt_size != utrace_hist_elt_size(prog->key_size, prog->nr_sums) ||
	    d.nr_elts > (1u << prog->map_bits) ||
	    (uint64_t)d.nr_elts * d.elt_size > len - (off + padded_prog + sizeof(map)))
		return "table does not match its program";
	/* copied out: the header wants 64-byte alignment (its counters have a
	 * cache line of their own), the record gives 8 */
	memcpy(&map, p + off + padded_prog, sizeof(map));
	h->prog = prog;
	h->prog_len = d.prog_len;
	h->elts = (const uint8_t *)p + off + padded_prog + sizeof(map);
	h->hits = 0; /* Totals' Hits: every entry's hit count (common/hist_prog.h) */
	for (uint32_t i = 0; i < d.nr_elts; i++) {
		uint64_t hc;

		memcpy(&hc, h->elts + (size_t)i * d.elt_size + prog->key_size, sizeof(hc));
		h->hits += hc;
	}
	h->drops = map.drops;
	h->paused = map.paused != 0;
	h->snap_seq = map.snap_seq;
	h->snap_val = map.snap_val;
	h->nr_elts = d.nr_elts;
	h->elt_size = d.elt_size;
	return NULL;
}

int dat_hist_meta(struct utrace_dat *d, char *p, uint32_t len, bool *kept, const char **bad)
{
	struct dat_hists *hs = d->hists;
	struct utrace_dat_hist_info h;

	/* the payload is 8-byte aligned (malloc), so is the program in it */
	*bad = hist_check(p, len, &h);
	if (*bad)
		return 0;
	if (!hs && !(hs = d->hists = calloc(1, sizeof(*hs))))
		return -ENOMEM;
	if (UTRACE_GROW(hs->v, hs->cap, hs->n + 1))
		return -ENOMEM;
	if (UTRACE_GROW(hs->blobs, hs->cap_blobs, hs->n + 1))
		return -ENOMEM;
	hs->blobs[hs->n] = p;
	hs->v[hs->n++] = h;
	*kept = true;
	return 0;
}

void dat_hist_free(struct utrace_dat *d)
{
	struct dat_hists *hs = d->hists;

	if (!hs)
		return;
	for (size_t i = 0; i < hs->n; i++)
		free(hs->blobs[i]);
	free(hs->blobs);
	free(hs->v);
	free(hs);
	d->hists = NULL;
}

unsigned utrace_dat_hist_count(const struct utrace_dat *d)
{
	return d->hists ? (unsigned)d->hists->n : 0;
}

const struct utrace_dat_hist_info *utrace_dat_hist_get(const struct utrace_dat *d, unsigned i)
{
	return i < utrace_dat_hist_count(d) ? &d->hists->v[i] : NULL;
}
