/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist_map.c - a hist trigger's table while the recording lasts
 * (recorder_hist.c makes them): its memfd, mapped here and in every
 * traced process; shared by a later trigger of the same name=; paused by
 * :pause; the event formats its program was compiled for; freed with the
 * recorder.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/hist_prog.h"
#include "lib/base/grow.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_hist.h"

int rec_hist_map_new(struct rec_hist *h, struct utrace_error *err)
{
	const struct utrace_hist_hdr *p = h->prog;

	h->map_size = utrace_hist_map_bytes(p->map_bits, p->key_size, p->nr_sums);
	h->fd = memfd_create("utrace-hist", MFD_CLOEXEC);
	if (h->fd < 0 || ftruncate(h->fd, (off_t)h->map_size) < 0)
		return utrace_error_set(err, -errno, "hist table: %s", strerror(errno));
	h->map = mmap(NULL, h->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return utrace_error_set(err, -errno, "hist table: %s", strerror(errno));
	}
	h->map->bits = p->map_bits;
	h->map->key_size = p->key_size;
	h->map->nr_sums = p->nr_sums;
	/* the rest is the memfd's zeroes: empty slots, no element handed out */
	h->map->magic = UTRACE_HIST_MAP_MAGIC;
	return 0;
}

/* A user event's state (common/proto.h), NULL for a kernel event. */
uint8_t *rec_hist_state(struct utrace_recorder *r, const struct rec_hist *h)
{
	int id;
	unsigned i;

	if (h->spec & REC_HIST_KERNEL || !r->o.events)
		return NULL;
	id = utrace_event_select_id(r->o.events, h->system, h->name);
	i = (unsigned)(id - UTRACE_EV_ID_BASE);
	return id >= UTRACE_EV_ID_BASE && i < UTRACE_EV_STATE_MAX ? &r->ctl->ev_state[i] : NULL;
}

bool rec_hist_disabled(struct utrace_recorder *r, const struct rec_hist *h)
{
	uint8_t *st = rec_hist_state(r, h);
	size_t i;

	if (!st)
		return false;
	if (!h->reader || h->reader >= UTRACE_READERS)
		return __atomic_load_n(st, __ATOMIC_ACQUIRE) & UTRACE_EVS_HIST_PAUSED;
	i = (size_t)(st - r->ctl->ev_state);
	return __atomic_load_n(&r->ctl->reader_hist_off[h->reader][i / 8], __ATOMIC_ACQUIRE) &
	       (1u << (i % 8));
}

/* hist:...:pause: a user event's hists of -R start paused in the shared
 * state (enable_hist continues them), a kernel event's table and one the
 * tracefs added (:cont continues it) are paused themselves. */
void rec_hist_pause(struct utrace_recorder *r, struct rec_hist *h)
{
	uint8_t *st = h->spec & REC_HIST_LIVE ? NULL : rec_hist_state(r, h);

	if (st)
		*st |= UTRACE_EVS_HIST_PAUSED;
	else
		h->map->paused = 1;
}

/*
 * name=: the first trigger of that name made the table; this one adds to
 * it if its keys and values are laid out the same (the kernel's rule for a
 * named trigger: the same key and value fields), so every event's hist
 * shows the one table, as in the kernel.
 */
int rec_hist_share(struct utrace_recorder *r, struct rec_hist *h, struct utrace_error *err)
{
	const struct utrace_hist_hdr *p = h->prog, *q;

	for (struct rec_hist *o = r->hist->hists; o; o = o->next) {
		if (!o->table || o->owner || strcmp(o->table, h->table))
			continue;
		q = o->prog;
		if (p->key_size != q->key_size || p->nr_sums != q->nr_sums ||
		    p->map_bits != q->map_bits || p->nr_keys != q->nr_keys ||
		    memcmp(p->slots, q->slots, sizeof(p->slots)))
			return utrace_error_set(err, -EINVAL, "%s (name=%s)",
						utrace_hist_err_text(UTRACE_HIST_ERR_NAMED_MISMATCH),
						h->table);
		h->owner = o;
		h->map = o->map;
		h->fd = o->fd;
		h->map_size = o->map_size;
		return 0;
	}
	return 0;
}

/*
 * One compile per (trigger, event format): a format is an object's
 * (lib/events/event_select.c loads each file's once for the recording,
 * every process that maps the file shares it) or a kernel event's, so
 * the format's address is its identity while the recording lasts.  The
 * table h keeps the formats its program was made for; any other object
 * or process with one of them gets the program as it is.
 */
bool rec_hist_compiled_for(const struct rec_hist *h, const struct utrace_event_format *fmt)
{
	for (size_t i = 0; i < h->nr_fmts; i++)
		if (h->fmts[i] == fmt)
			return true;
	return false;
}

int rec_hist_note_fmt(struct rec_hist *h, const struct utrace_event_format *fmt)
{
	if (UTRACE_GROW(h->fmts, h->cap_fmts, h->nr_fmts + 1) < 0)
		return -ENOMEM;
	h->fmts[h->nr_fmts++] = fmt;
	return 0;
}

void rec_hist_free_one(struct rec_hist *h)
{
	if (h->map && !h->owner)
		munmap(h->map, h->map_size);
	if (h->fd >= 0 && !h->owner)
		close(h->fd);
	free(h->fmts);
	free(h->table);
	free(h->system);
	free(h->name);
	free(h->prog);
	free(h);
}

void rec_hist_set_kid(struct rec_hist *h, int kid)
{
	h->kid = kid;
}

int rec_hist_new(struct utrace_recorder *r)
{
	r->hist = calloc(1, sizeof(*r->hist));
	return r->hist ? 0 : -ENOMEM;
}

void rec_hist_free(struct utrace_recorder *r)
{
	while (r->hist && r->hist->hists) {
		struct rec_hist *h = r->hist->hists;

		r->hist->hists = h->next;
		rec_hist_free_one(h);
	}
	free(r->hist);
	r->hist = NULL;
}
