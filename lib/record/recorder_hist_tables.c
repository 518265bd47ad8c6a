/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist_tables.c - the hist tables as the recorder itself uses
 * them (recorder_hist.c makes them and sends them to the processes): a
 * kernel event's hits run into them in the recorder (recorder_kmerge.c),
 * enable_hist/disable_hist pause them, and at the end each is read in
 * slot order, as the kernel lists it, and saved as a HIST record of
 * utrace.dat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/hist_prog.h"
#include "lib/events/event_filter.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"
#include "lib/record/recorder_live.h"

/* RESOLVE's table of id, for the recorder's own hits. */
static struct utrace_hist_map *hist_table(void *arg, uint32_t id)
{
	const struct utrace_recorder *r = arg;

	for (const struct rec_hist *h = r->hist->hists; h; h = h->next)
		if (!h->owner && h->tid == id)
			return h->map;
	return NULL;
}

/* One record of kernel id kid (or of a synthetic event the recorder
 * fired): every table of that id, as the runtime runs a user event's.
 * c->arg is the recorder (the emit callback's too). */
/* Whether a program keys on the event's stack (common_stacktrace). */
static bool hist_uses_stack(const void *prog)
{
	const struct utrace_hist_hdr *hdr = prog;
	const struct utrace_hist_insn *in = (const struct utrace_hist_insn *)(hdr + 1);

	for (uint32_t i = 0; i < hdr->nr_insns; i++)
		if (in[i].op == UTRACE_HOP_STACK)
			return true;
	return false;
}

bool rec_hist_kwants_stack(const struct utrace_recorder *r, int kid)
{
	for (const struct rec_hist *h = r->hist->hists; h; h = h->next)
		if (h->kid == kid && hist_uses_stack(h->prog))
			return true;
	return false;
}

/* A kernel event's hits.  A hist keyed on its stack needs the kernel's
 * kernel_stack entry after it (c->stack): a hit without one (lost, or
 * not taken: the -R stacktrace's own filter or count) is dropped. */
void rec_hist_krun(struct utrace_recorder *r, int kid, unsigned reader, struct utrace_hist_ctx *c)
{
	c->table = hist_table;
	for (struct rec_hist *h = r->hist->hists; h; h = h->next) {
		if (h->kid != kid)
			continue;
		if (reader != REC_HIST_ALL_READERS &&
		    (h->spec & REC_HIST_LIVE ? rec_live_reader_of(r, h->spec) : 0) != reader)
			continue; /* another trace_array's trace_marker triggers */
		if (!c->stack && hist_uses_stack(h->prog)) {
			const struct utrace_hist_hdr *hdr = h->prog;
			const void *f = (const struct utrace_hist_insn *)(hdr + 1) + hdr->nr_insns;

			if (!hdr->filter_len ||
			    utrace_filter_run(f, hdr->filter_len, c->rec, c->rec_len))
				__atomic_fetch_add(&h->map->drops, 1, __ATOMIC_RELAXED);
		} else
			utrace_hist_run(h->prog, h->map, c);
	}
}

/* enable_hist / disable_hist on a kernel event: its tables, as the
 * kernel's hist_enable_trigger sets each hist trigger's paused. */
void rec_hist_kpause(struct utrace_recorder *r, int kid, bool paused)
{
	for (struct rec_hist *h = r->hist->hists; h; h = h->next)
		if (h->kid == kid)
			__atomic_store_n(&h->map->paused, paused, __ATOMIC_RELAXED);
}

bool rec_hist_kpaused(const struct utrace_recorder *r, int kid)
{
	for (const struct rec_hist *h = r->hist->hists; h; h = h->next)
		if (h->kid == kid && __atomic_load_n(&h->map->paused, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* The used elements, in slot order (the kernel lists them so), copied
 * into one buffer: *n of them. */
uint8_t *rec_hist_entries(struct utrace_hist_map *m, uint32_t *n)
{
	uint64_t esize = utrace_hist_elt_size(m->key_size, m->nr_sums);
	uint32_t nslots = 2u << m->bits, max = 1u << m->bits;
	const struct utrace_hist_mslot *slots = utrace_hist_slots(m);
	uint8_t *out = malloc((size_t)(max ? max : 1) * esize);

	*n = 0;
	if (!out)
		return NULL;
	for (uint32_t i = 0; i < nslots && *n < max; i++) {
		uint64_t w = __atomic_load_n(&slots[i].word, __ATOMIC_ACQUIRE);

		if (w && utrace_hist_slot_elt(w) < max) {
			uint8_t *o = out + (*n)++ * esize;

			memcpy(o, utrace_hist_elt(m, utrace_hist_slot_elt(w)), esize);
			/* the threads' stripes' sums (common/hist_map.h) */
			utrace_hist_map_merge(m, utrace_hist_slot_elt(w), o + m->key_size);
		}
	}
	return out;
}

/* One HIST record: the header, the names, the program, the table's
 * header and its entries (the slots are not needed to read it). */
static int hist_save(struct utrace_recorder *r, struct rec_hist *h,
		     struct utrace_error *err)
{
	struct utrace_hist_map *m = h->map;
	struct utrace_dat_hist d = {0};
	size_t ls = strlen(h->system) + 1, ln = strlen(h->name) + 1, lt = strlen(h->text) + 1;
	static const uint8_t zero[8];
	struct iovec iov[8];
	uint8_t *elts = rec_hist_entries(m, &d.nr_elts);
	int ret;

	if (!elts)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (rec_hist_disabled(r, h)) /* "[paused]" as the trigger is now */
		m->paused = 1;
	d.prog_len = h->prog_len;
	d.names_len = (uint32_t)((ls + ln + lt + 7) & ~(size_t)7);
	d.elt_size = (uint32_t)utrace_hist_elt_size(m->key_size, m->nr_sums);
	iov[0] = (struct iovec){&d, sizeof(d)};
	iov[1] = (struct iovec){h->system, ls};
	iov[2] = (struct iovec){h->name, ln};
	iov[3] = (struct iovec){(void *)h->text, lt};
	iov[4] = (struct iovec){(void *)zero, d.names_len - (ls + ln + lt)};
	iov[5] = (struct iovec){h->prog, (h->prog_len + 7) & ~7u};
	iov[6] = (struct iovec){m, sizeof(*m)};
	iov[7] = (struct iovec){elts, (size_t)d.nr_elts * d.elt_size};
	ret = utrace_dat_write(r->w, UTRACE_DAT_HIST, iov, 8, err);
	free(elts);
	return ret;
}

int rec_hist_save_all(struct utrace_recorder *r, struct utrace_error *err)
{
	int ret = 0;

	for (struct rec_hist *h = r->hist->hists; h && ret >= 0; h = h->next)
		ret = hist_save(r, h, err);
	return ret;
}
