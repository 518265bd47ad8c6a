/* SPDX-License-Identifier: MIT */
/*
 * recorder_kpages.c - the kernel records the merge saves (recorder_kmerge.c),
 * written again as ring-buffer pages in the kernel's layout per CPU
 * (lib/kernel/kernel_trace.c reads them back), and the last of them kept
 * for the snapshots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_kmerge.h"

/* A page written, kept for the snapshots (the oldest one replaced). */
static void km_ring_add(struct utrace_recorder *r, struct km_cpu *c, uint32_t len)
{
	uint32_t max = KM_RING_BYTES / r->km->ksubbuf;

	if (!c->ring && (!(c->ring = malloc((size_t)max * r->km->ksubbuf)) ||
			 !(c->ring_len = calloc(max, sizeof(*c->ring_len))))) {
		free(c->ring);
		c->ring = NULL;
		return; /* the snapshots will have this CPU's current page only */
	}
	memcpy(c->ring + (size_t)c->ring_next * r->km->ksubbuf, c->page, len);
	c->ring_len[c->ring_next] = len;
	c->ring_next = (c->ring_next + 1) % max;
	if (c->ring_n < max)
		c->ring_n++;
}

int rec_kpage_flush(struct utrace_recorder *r, uint32_t cpu, struct km_cpu *c,
		    struct utrace_error *err)
{
	struct utrace_dat_kpage kp = {.cpu = cpu};
	uint64_t commit = c->used | (c->missed ? KM_MISSED : 0);

	if (!c->used)
		return 0;
	memcpy(c->page, &c->page_ts, 8);
	memcpy(c->page + 8, &commit, 8);
	if (r->km->keep_pages)
		km_ring_add(r, c, 16 + c->used);
	c->missed = false;
	c->used = 0;
	return rec_write(r, UTRACE_DAT_KPAGE, &kp, sizeof(kp), c->page, 16 + (commit & ~KM_MISSED),
			 err);
}

/*
 * One record into its CPU's page, with the ring buffer's event header: a
 * word of type_len (5 bits: data length / 4 up to 112 bytes, else 0 and a
 * length word) and the time delta (27 bits), after a TIME_EXTEND (type 30)
 * when the delta does not fit.
 */
int rec_kpage_put(struct utrace_recorder *r, uint32_t cpu, uint64_t ts, const uint8_t *rec,
		  uint32_t len, struct utrace_error *err)
{
	struct km_cpu *c = &r->km->cpus[cpu];
	uint32_t dlen = (len + 3) & ~3u, need = 4 + (dlen > KM_SMALL_MAX ? 4 : 0) + dlen + 8;
	uint64_t delta;
	uint32_t *w;

	if (!c->page && !(c->page = malloc(r->km->ksubbuf)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (16 + need > r->km->ksubbuf)
		return 0; /* cannot be: it came in such a page */
	if (c->used && 16 + c->used + need > r->km->ksubbuf && rec_kpage_flush(r, cpu, c, err) < 0)
		return err->code;
	if (!c->used)
		c->page_ts = c->out_ts = ts;
	delta = ts > c->out_ts ? ts - c->out_ts : 0;
	c->out_ts = ts > c->out_ts ? ts : c->out_ts;
	w = (uint32_t *)(c->page + 16 + c->used);
	if (delta >> KM_DELTA_BITS) {
		*w++ = 30u | (uint32_t)(delta & ((1u << KM_DELTA_BITS) - 1)) << 5;
		*w++ = (uint32_t)(delta >> KM_DELTA_BITS);
		c->used += 8;
		delta = 0;
	}
	if (dlen > KM_SMALL_MAX) {
		*w++ = (uint32_t)delta << 5;
		*w++ = dlen + 4;
		c->used += 8;
	} else {
		*w++ = dlen / 4 | (uint32_t)delta << 5;
		c->used += 4;
	}
	memcpy(w, rec, len);
	memset((uint8_t *)w + len, 0, dlen - len);
	c->used += dlen;
	return 0;
}

/* The kernel records saved so far, each CPU's last pages (as many as its
 * ring holds) and the page being filled, as KPAGEs of snapshot id. */
int rec_kpage_snap(struct utrace_recorder *r, uint32_t id, uint32_t *pages,
			 struct utrace_error *err)
{
	struct rec_kmerge *km = r->km;
	uint32_t max = KM_RING_BYTES / r->km->ksubbuf;

	for (uint32_t cpu = 0; km && cpu < km->nr_cpus; cpu++) {
		struct km_cpu *c = &km->cpus[cpu];
		struct utrace_dat_kpage kp = {.cpu = cpu, .reserved = id};
		uint64_t commit = c->used | (c->missed ? KM_MISSED : 0);

		for (uint32_t i = 0; c->ring && i < c->ring_n; i++) { /* oldest first */
			uint32_t k = (c->ring_next + max - c->ring_n + i) % max;

			if (rec_write(r, UTRACE_DAT_KPAGE, &kp, sizeof(kp),
				      c->ring + (size_t)k * r->km->ksubbuf, c->ring_len[k], err) < 0)
				return err->code;
			(*pages)++;
		}
		if (!c->used)
			continue;
		/* the page being filled, as it would be flushed now */
		memcpy(c->page, &c->page_ts, 8);
		memcpy(c->page + 8, &commit, 8);
		if (rec_write(r, UTRACE_DAT_KPAGE, &kp, sizeof(kp), c->page, 16 + c->used, err) < 0)
			return err->code;
		(*pages)++;
	}
	return 0;
}
