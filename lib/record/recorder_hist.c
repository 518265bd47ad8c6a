/* SPDX-License-Identifier: MIT */
/*
 * recorder_hist.c - the hist triggers of a recording: one table per
 * trigger and event, shared by every process that has the event.
 *
 *   -e demo:demo_word -R 'hist:keys=len'
 *
 *   recorder                                   traced processes
 *   first object that defines demo_word:
 *     parse + compile for its format
 *     memfd: utrace_hist_map, zeroed  ---- HIST {prog} + fd ---->  mmap, attach
 *                                      ---- ENABLE {key} ------->  patch the sites
 *   every later object, fork child, exec:                          (same table)
 *                                      ---- HIST + the same fd -->
 *   end: the table is read and saved as a HIST record of utrace.dat
 *
 * The table stays mapped here too, so a traced process that is killed
 * loses nothing it counted.  The kernel keeps one table per trigger of an
 * event; so does this file, keyed by (the -e, the -R, the event): a
 * compiled program that differs from the first one's (the same event
 * name with another layout in another object) gets no table, and the
 * recording says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/hist_prog.h"
#include "lib/events/event_select.h"
#include "lib/hist/hist.h"
#include "lib/hist/hist_compile.h"
#include "lib/record/recorder_internal.h"

struct rec_hist {
	unsigned spec, trig;
	char *system, *name;
	const char *text; /* the -R as written (the cmd's string) */
	void *prog;
	uint32_t prog_len;
	int fd;
	struct utrace_hist_map *map;
	uint64_t map_size;
	struct rec_hist *next;
};

static int hist_map_new(struct rec_hist *h, struct utrace_error *err)
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

/* Parses and compiles -R `text` for the event's format. */
static int hist_compile(const char *text, const struct utrace_event_format *fmt, void **prog,
			uint32_t *len, struct utrace_error *err)
{
	struct utrace_trigger *t = NULL;
	int code, ret;

	ret = utrace_trigger_parse(text, &t, &code, err);
	if (ret < 0)
		return ret;
	if (t->cmd != UTRACE_TRIG_HIST || t->remove)
		ret = utrace_error_set(err, -EOPNOTSUPP, "trigger '%s': only hist triggers "
					    "are supported on user events yet", text);
	else
		ret = utrace_hist_compile(t->hist, fmt, prog, len, &code, err);
	utrace_trigger_free(t);
	return ret;
}

static struct rec_hist *hist_get(struct utrace_recorder *r, unsigned spec, unsigned trig,
				 const char *text, const struct utrace_event_format *fmt,
				 struct utrace_error *err)
{
	struct rec_hist *h;
	void *prog = NULL;
	uint32_t len = 0;

	if (hist_compile(text, fmt, &prog, &len, err) < 0)
		return NULL;
	for (h = r->hists; h; h = h->next)
		if (h->spec == spec && h->trig == trig && !strcmp(h->system, fmt->system) &&
		    !strcmp(h->name, fmt->name))
			break;
	if (h) {
		if (h->prog_len != len || memcmp(h->prog, prog, len)) {
			utrace_error_set(err, -EINVAL, "%s:%s: another layout of the event than "
						       "the first one's: '%s' left off here",
					 fmt->system, fmt->name, text);
			h = NULL;
		}
		free(prog);
		return h;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->system = strdup(fmt->system)) || !(h->name = strdup(fmt->name))) {
		utrace_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	h->spec = spec;
	h->trig = trig;
	h->text = text;
	h->prog = prog;
	h->prog_len = len;
	h->fd = -1;
	if (hist_map_new(h, err) < 0)
		goto fail;
	{
		/* kept in the order of the triggers, in which they are saved */
		struct rec_hist **tail = &r->hists;

		while (*tail)
			tail = &(*tail)->next;
		*tail = h;
	}
	return h;
fail:
	if (h) {
		if (h->fd >= 0)
			close(h->fd);
		free(h->system);
		free(h->name);
		free(h);
	}
	free(prog);
	return NULL;
}

static int hist_send(struct rec_conn *c, uint32_t obj, uint32_t key, const struct rec_hist *h)
{
	size_t size = sizeof(struct utrace_msg_hist) + h->prog_len;
	struct utrace_msg_hist *m = calloc(1, size);
	int ret;

	if (!m)
		return -ENOMEM;
	m->hdr.type = UTRACE_MSG_HIST;
	m->hdr.size = (uint32_t)size;
	m->obj = obj;
	m->key = key;
	m->prog_len = h->prog_len;
	m->map_size = h->map_size;
	memcpy(m->prog, h->prog, h->prog_len);
	ret = rec_conn_send(c, m, size, h->fd);
	free(m);
	return ret;
}

int rec_hist_send(struct utrace_recorder *r, struct rec_conn *c, uint32_t obj, uint32_t key,
		  const char *path, const char *system, const char *name,
		  struct utrace_error *err)
{
	struct utrace_event_select *s = r->o.events;
	const struct utrace_event_format *fmt = utrace_event_select_format(s, path, system, name);
	unsigned sent = 0;

	for (unsigned i = 0; fmt && i < utrace_event_select_count(s); i++) {
		const struct utrace_event_spec *sp = utrace_event_select_spec(s, i);

		if (!utrace_event_spec_matches(sp->pattern, system, name))
			continue;
		for (unsigned k = 0; k < sp->nr_triggers; k++) {
			struct rec_hist *h;
			struct utrace_error e;
			int ret;

			if (sent == UTRACE_EVENT_HISTS_MAX)
				return 0;
			h = hist_get(r, i, k, sp->triggers[k], fmt, &e);
			if (!h) {
				if (r->o.notice)
					r->o.notice(r->o.notice_arg, c->pid, e.msg);
				continue;
			}
			ret = hist_send(c, obj, key, h);
			if (ret < 0)
				return utrace_error_set(err, ret, "sending a hist trigger failed");
			sent++;
		}
	}
	return 0;
}

/* The used elements, in slot order (the kernel lists them so), copied
 * into one buffer: *n of them. */
static uint8_t *hist_entries(struct utrace_hist_map *m, uint32_t *n)
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

		if (w && utrace_hist_slot_elt(w) < max)
			memcpy(out + (*n)++ * esize, utrace_hist_elt(m, utrace_hist_slot_elt(w)), esize);
	}
	return out;
}

/* One HIST record: the header, the names, the program, the table's
 * header and its entries (the slots are not needed to read it). */
static int hist_save(struct utrace_recorder *r, const struct rec_hist *h,
		     struct utrace_error *err)
{
	struct utrace_hist_map *m = h->map;
	struct utrace_dat_hist d = {0};
	size_t ls = strlen(h->system) + 1, ln = strlen(h->name) + 1, lt = strlen(h->text) + 1;
	static const uint8_t zero[8];
	struct iovec iov[8];
	uint8_t *elts = hist_entries(m, &d.nr_elts);
	int ret;

	if (!elts)
		return utrace_error_set(err, -ENOMEM, "out of memory");
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

	for (struct rec_hist *h = r->hists; h && ret >= 0; h = h->next)
		ret = hist_save(r, h, err);
	return ret;
}

void rec_hist_free(struct utrace_recorder *r)
{
	while (r->hists) {
		struct rec_hist *h = r->hists;

		r->hists = h->next;
		if (h->map)
			munmap(h->map, h->map_size);
		if (h->fd >= 0)
			close(h->fd);
		free(h->system);
		free(h->name);
		free(h->prog);
		free(h);
	}
}
